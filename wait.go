package upicollect

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/upicollect/upicollect-go/internal/retry"
)

// WaitOption configures WaitForPayment.
type WaitOption func(*waitSettings)

type waitSettings struct {
	minDelay, maxDelay time.Duration
	maxWait            time.Duration
	onPoll             func(*PaymentStatus)
	unknownTimeout     time.Duration // WithUnknownOrderTimeout; 0: none
	expected           Money         // WithExpectedAmount; 0: any
}

// Polling defaults: the service documents no webhooks, and its own Android
// client polls every 5s for 5 minutes.
const (
	// DefaultPollMin is the first delay between status checks.
	DefaultPollMin = 2 * time.Second
	// DefaultPollMax is the longest delay between status checks.
	DefaultPollMax = 10 * time.Second
)

// DefaultMaxWait bounds a WaitForPayment unless WithMaxWait says otherwise.
// A payment lives minutes: the service documents no lifetime, but its own
// Android client polls for 5 minutes, and the sandbox's intents expire after
// 5 minutes by default. An expired order stays "not found" (PENDING) for
// ever, so without a bound a wait with context.Background would never end;
// 15 minutes is three times that life, long enough for a slow bank, short
// enough that a forgotten wait ends.
const DefaultMaxWait = 15 * time.Minute

// WithPollInterval sets the delay between status checks: it starts at min
// and grows towards max, each delay jittered (default 2s..10s). A min of zero
// or less keeps the default; a max below min is raised to min.
func WithPollInterval(min, max time.Duration) WaitOption {
	return func(w *waitSettings) {
		if min > 0 {
			w.minDelay = min
		}
		if max > 0 {
			w.maxDelay = max
		}
		if w.maxDelay < w.minDelay {
			w.maxDelay = w.minDelay
		}
	}
}

// WithMaxWait bounds the whole wait (on top of the context's own deadline;
// the earlier ends it). The default is DefaultMaxWait; zero or less keeps
// it. There is no unbounded wait: for a longer one, pass a longer d.
func WithMaxWait(d time.Duration) WaitOption {
	return func(w *waitSettings) {
		if d > 0 {
			w.maxWait = d
		}
	}
}

// WithOnPoll calls fn with every status seen, from the polling goroutine.
func WithOnPoll(fn func(*PaymentStatus)) WaitOption {
	return func(w *waitSettings) { w.onPoll = fn }
}

// WithExpectedAmount makes a SUCCESS for another amount than m end the wait
// with that status and an *APIError matching ErrAmountMismatch: the payer
// paid, but not what the order asks, and the order must not be credited as
// paid. Zero or less expects no amount.
func WithExpectedAmount(m Money) WaitOption {
	return func(w *waitSettings) { w.expected = max(m, 0) }
}

// WithUnknownOrderTimeout ends a wait for an order that the service still
// does not know after d (every status seen so far was NotFound): a typo, or
// an order that was never created. WaitForPayment then returns the last
// status and an *APIError matching ErrNotFound, carrying that status
// check's HTTP status, statusCode, message and Response. Once any answer
// shows the order known (a state other than the not-found shapes), d no
// longer applies. The live service also answers "not found" for an order
// nobody has started to pay, so choose a d longer than a payer takes to
// open the payment (a few minutes); zero or less (the default) means the
// wait ends only by its context or WithMaxWait.
func WithUnknownOrderTimeout(d time.Duration) WaitOption {
	return func(w *waitSettings) { w.unknownTimeout = max(d, 0) }
}

// WaitForPayment polls the status of orderID until it is terminal
// (SUCCESS, FAIL, REJECT or a state this SDK does not know) and returns it.
// A FAIL or REJECT is a result, not an error: check Paid.
//
// API: POST /v1/payments/checkPaymentStatus, repeatedly
//
// Each poll is a CheckPaymentStatus call with its own retries. A poll that
// fails transiently (5xx, 429, a network error, an unreadable answer) is
// followed by the next poll; an error that will not change by waiting
// (unauthorized, invalid request) ends the wait at once. When the context
// ends or the maximum wait (DefaultMaxWait unless WithMaxWait) passes,
// WaitForPayment returns the last status seen (nil if none) together with an
// *APIError matching context.DeadlineExceeded or context.Canceled; when the
// last poll failed, the error carries that poll's HTTP status, message and
// cause (errors.Is(err, syscall.ECONNREFUSED) against a dead port). A 404
// that is not the service's own not-found answer (a wrong base URL) ends
// the wait at once. With WithExpectedAmount, a SUCCESS for another amount
// ends it with ErrAmountMismatch. Every wait between polls ends when the
// context does. Polls count against the client's rate limit (WithRateLimit
// or WithRateLimiter), so many concurrent waits share the client's cap. A
// terminal status is reported to the client's Observer (WithObserver) as a
// FinalState, with the time the wait took.
func (c *Client) WaitForPayment(ctx context.Context, orderID string, opts ...WaitOption) (*PaymentStatus, error) {
	c.mustInit()
	w := waitSettings{minDelay: DefaultPollMin, maxDelay: DefaultPollMax, maxWait: DefaultMaxWait}
	for _, o := range opts {
		if o != nil {
			o(&w)
		}
	}
	// The deadline is on the client's clock, so an injected clock drives it.
	begun := c.clock.Now()
	ctx, cancel := context.WithDeadline(ctx, begun.Add(w.maxWait))
	defer cancel()
	var (
		last   *PaymentStatus
		failed error // the last poll's error, when the last poll failed
	)
	unknown := unknownOrderWatch{timeout: w.unknownTimeout, start: c.clock.Now()}
	for n := 1; ; n++ {
		st, err := c.CheckPaymentStatus(ctx, orderID)
		if err == nil || failed == nil || saysMoreThanContext(err) {
			failed = err // a poll the context cut short before it learned anything keeps the one before
		}
		switch {
		case err == nil:
			last = st
			if w.onPoll != nil {
				w.onPoll(st)
			}
			if st.TxnStatus.Terminal() {
				c.observeFinal(ctx, orderID, st, begun)
				if w.expected > 0 && st.Paid() && st.Amount != w.expected {
					return st, amountMismatchError(st, w.expected)
				}
				return st, nil
			}
			if unknown.expired(st, c.clock.Now()) {
				return st, unknownOrderError(st, w.unknownTimeout)
			}
		case ctx.Err() != nil:
			return last, waitError(orderID, last, failed, ctx.Err())
		case !pollAgain(err):
			return last, err
		}
		// A failed poll that may succeed later polls on; the client's
		// Observer (its log among them) has seen the failed call.
		delay := unknown.clip(retry.PollDelay(n, w.minDelay, w.maxDelay, c.rand), c.clock.Now())
		if err := c.clock.Sleep(ctx, delay); err != nil {
			return last, waitError(orderID, last, failed, err)
		}
	}
}

// saysMoreThanContext reports whether a failed poll learned something
// beyond its context's end: an answer, or a transport error of its own
// (connection refused, ...).
func saysMoreThanContext(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return true
	}
	if ae.HTTPStatus != 0 {
		return true
	}
	var ue *url.Error
	return errors.As(err, &ue) && !errors.Is(ue.Err, context.Canceled) && !errors.Is(ue.Err, context.DeadlineExceeded)
}

// pollAgain reports whether a failed poll may succeed on a later poll. Any
// HTTP 404 that reached here is not the service's not-found answer (which is
// a PENDING status): the base URL is wrong, and waiting will not fix it.
func pollAgain(err error) bool {
	switch {
	case errors.Is(err, ErrValidation), errors.Is(err, ErrUnauthorized),
		errors.Is(err, ErrInvalidRequest), errors.Is(err, ErrNotFound):
		return false
	}
	var ae *APIError
	return !errors.As(err, &ae) || ae.HTTPStatus != http.StatusNotFound
}
