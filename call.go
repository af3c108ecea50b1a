package upicollect

import (
	"context"
	"errors"
	"io"
	"net/url"
	"time"

	"github.com/upicollect/upicollect-go/internal/retry"
	"github.com/upicollect/upicollect-go/internal/vocab"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// A call runs in this order: an operation describes it (newCall or
// createCall), invoke sends it and decodes the accepted answer, send is the
// retry loop, and each attempt is one transport.try, read once by judge
// (answer.go); from judge's answer retryVerdict (retry.go) decides the
// retry and attemptError or dataError (errors.go) makes the error.

// call is one operation call: described once, sent by every attempt.
type call struct {
	op      string
	path    string   // below the base URL, for the log
	url     *url.URL // the endpoint, joined to the base URL once; shared
	body    string   // the form, encoded once
	getBody func() (io.ReadCloser, error)
	safety  safety
	orderID string
	// shapes are the answers the operation reads besides status true.
	shapes shapes

	// What the call did, for its observer: attempts sent, the last
	// answer's status, and why it stopped without success.
	attempts   int
	httpStatus int
	stopReason string
	// dropped are the app links an intent's answer carried that the
	// client dropped (CallEnd.DroppedLinks).
	dropped []DroppedLink
}

// newCall describes op. The form is encoded here, once per call, not once
// per attempt.
func (c *Client) newCall(op, path, orderID string, s safety, form string) *call {
	return &call{
		op: op, path: path, url: c.endpoint(path), body: form, safety: s, orderID: orderID,
		// For a transport that retries a request on a connection that
		// closed under it.
		getBody: func() (io.ReadCloser, error) { return newBody(form), nil },
	}
}

// createCall describes a create: keyed when it carries an order id, which
// makes repeating it safe.
func (c *Client) createCall(op, orderID string, req interface{ Encode() string }) *call {
	s := unkeyedCreate
	if orderID != "" {
		s = keyedCreate
	}
	return c.newCall(op, vocab.PathPrefix+op, orderID, s, req.Encode())
}

// invoke carries one validated call from its request to its typed result:
// send (retries included), then the operation's decode of the accepted
// answer. A decode failure is dataError's.
func invoke[T any](ctx context.Context, c *Client, cl *call, decode func(env *wire.Envelope, resp *Response) (T, error)) (T, error) {
	octx, start := c.startCall(ctx, cl)
	v, err := invokeOnce(octx, c, cl, decode)
	c.endCall(octx, cl, start, err)
	return v, err
}

// invokeOnce is invoke between the observer's start and end of the call.
func invokeOnce[T any](ctx context.Context, c *Client, cl *call, decode func(env *wire.Envelope, resp *Response) (T, error)) (T, error) {
	ans, err := c.send(ctx, cl)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := decode(ans.env, ans.resp)
	if err != nil {
		e := dataError(cl.op, cl.orderID, &ans, err, c.filter)
		cl.stopReason = "unreadable data in a success answer"
		var zero T
		return zero, e
	}
	return v, nil
}

var errNoData = errors.New("no data in a success answer")

// needData returns the envelope's data, or an error when it has none.
func needData(env *wire.Envelope) ([]byte, error) {
	if env.Data == nil {
		return nil, errNoData
	}
	return env.Data, nil
}

// send runs the retry loop for cl and returns the accepted answer or the
// error the caller sees. It only coordinates: judge reads what each
// attempt means, retryVerdict decides whether to repeat it. Each attempt
// is begun by startAttempt and ended by one endAttempt: the observer's
// hooks (the client's log among them).
func (c *Client) send(ctx context.Context, cl *call) (answer, error) {
	start := c.clock.Now()
	var (
		ambiguous bool // an earlier attempt of a create may have taken effect
		lastCost  int
		lastErr   *APIError
	)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return answer{}, c.contextEnded(cl, lastErr, err)
		}
		wait, err := c.waitTurn(ctx)
		if err != nil {
			return answer{}, c.contextEnded(cl, lastErr, err)
		}
		actx, obs := c.startAttempt(ctx, cl, n, wait)
		a := c.transport.try(actx, cl.url, cl.body, cl.getBody)
		cl.attempts = n
		if a.resp != nil {
			a.resp.Attempts, a.resp.Duration = n, c.clock.Now().Sub(start)
			cl.httpStatus = a.resp.HTTPStatus
		}
		ans := judge(cl.safety, cl.shapes, &a, n, ambiguous)
		if ans.accepted {
			c.endAttempt(cl, obs, n, &a, nil, verdict{})
			c.budget.Refill(refill(n, lastCost))
			return ans, nil
		}
		ambiguous = ans.outcomeUnknown
		lastErr = attemptError(cl.op, cl.orderID, &ans, c.filter)
		if ra, ok := retry.ParseRetryAfter(ans.retryAfter, c.clock.Now()); ok {
			lastErr.RetryAfter = ra
		}
		if ctx.Err() != nil {
			c.endAttempt(cl, obs, n, &a, lastErr, verdict{})
			// The context ended during the attempt; judge already said
			// whether what went out may have taken effect.
			return answer{}, c.contextEnded(cl, lastErr, ctx.Err())
		}
		v := retryVerdict(c.retry, &ans, n, c.clock.Now(), c.rand)
		if v.retry && !c.budget.Acquire(v.cost) {
			v = verdict{reason: ReasonBudgetExhausted, limit: true}
		}
		c.endAttempt(cl, obs, n, &a, lastErr, v)
		if !v.retry {
			if v.limit {
				lastErr.Reason = v.reason
			}
			cl.stopReason = v.reason
			return answer{}, lastErr
		}
		lastCost = v.cost
		if err := c.clock.Sleep(ctx, v.delay); err != nil {
			return answer{}, c.contextEnded(cl, lastErr, err)
		}
	}
}

// refill is what a success returns to the retry budget: the cost of the
// retry that succeeded, or SuccessRefill after a first-try success.
func refill(n, lastCost int) int {
	if n == 1 {
		return retry.SuccessRefill
	}
	return lastCost
}

// contextEnded ends a call whose context ended (or whose rate limiter
// failed: limiterFailure's error), with contextError's error.
func (c *Client) contextEnded(cl *call, last *APIError, ctxErr error) error {
	cl.stopReason = reasonContextDone
	if errors.Is(ctxErr, errRateLimiter) {
		cl.stopReason = reasonLimiterFailed
	}
	return contextError(cl.op, cl.orderID, last, ctxErr)
}

// The call path's side of the Observer and RateLimiter seams. The client
// always has an observer (a no-op one when it was given neither a logger
// nor an Observer), so each hook is one call, made by one helper here; a
// client without a limiter makes no limiter call.

// info names cl for the observer.
func (c *Client) info(cl *call) CallInfo {
	return CallInfo{Op: cl.op, OrderID: cl.orderID, ServerAddress: c.serverAddress, ServerPort: c.serverPort, path: cl.path}
}

// waitTurn waits on the client's rate limiter, if any, and returns how long
// that took, for the observer. Its error is the context's, or the limiter's
// own wrapped by limiterFailure.
func (c *Client) waitTurn(ctx context.Context) (time.Duration, error) {
	if c.limiter == nil {
		return 0, nil
	}
	start := c.clock.Now()
	err := c.limiter.Wait(ctx)
	if err != nil {
		if lerr := limiterFailure(err); lerr != nil {
			return 0, lerr
		}
		return 0, err
	}
	return c.clock.Now().Sub(start), nil
}

// attemptObservation is one attempt as the observer sees it, between
// StartAttempt and EndAttempt.
type attemptObservation struct {
	ctx   context.Context
	start time.Time
	wait  time.Duration
}

// startAttempt tells the observer that attempt n of cl begins and returns
// the context to send it with.
func (c *Client) startAttempt(ctx context.Context, cl *call, n int, wait time.Duration) (context.Context, attemptObservation) {
	actx := c.observer.StartAttempt(ctx, c.info(cl), n)
	return actx, attemptObservation{ctx: actx, start: c.clock.Now(), wait: wait}
}

// endAttempt tells the observer how attempt n ended: failed with err (nil
// on success), and retried for v's reason when v.retry.
func (c *Client) endAttempt(cl *call, o attemptObservation, n int, a *attempt, err error, v verdict) {
	e := AttemptEnd{Attempt: n, Duration: c.clock.Now().Sub(o.start), RateLimitWait: o.wait, ErrorType: ErrorType(err),
		resp: a.resp, err: a.err}
	if a.resp != nil {
		e.HTTPStatus = a.resp.HTTPStatus
	}
	if v.retry {
		e.RetryReason, e.RetryDelay = v.reason, v.delay
	}
	c.observer.EndAttempt(o.ctx, c.info(cl), e)
}

// startCall tells the observer that cl begins and returns the call's
// context and start time.
func (c *Client) startCall(ctx context.Context, cl *call) (context.Context, time.Time) {
	return c.observer.StartCall(ctx, c.info(cl)), c.clock.Now()
}

// endCall tells the observer how cl ended: with err (nil on success); ctx
// is StartCall's.
func (c *Client) endCall(ctx context.Context, cl *call, start time.Time, err error) {
	c.observer.EndCall(ctx, c.info(cl), CallEnd{
		Attempts: cl.attempts, HTTPStatus: cl.httpStatus, Duration: c.clock.Now().Sub(start),
		Outcome: callOutcome(err, cl.stopReason), ErrorType: ErrorType(err), Reason: cl.stopReason,
		DroppedLinks: cl.dropped, err: err,
	})
}

// observeFinal reports that WaitForPayment, begun at start, saw orderID's
// final status st.
func (c *Client) observeFinal(ctx context.Context, orderID string, st *PaymentStatus, start time.Time) {
	c.observer.FinalState(ctx, FinalState{
		Source: "WaitForPayment", OrderID: orderID, Status: st.TxnStatus, Elapsed: c.clock.Now().Sub(start),
	})
}

// ObserveFinalState passes f to the client's Observer, with Source
// "reconcile" when f has none.
//
// Deprecated: use c.Observer().FinalState, which reaches the same
// Observer (set f.Source yourself). The reconcile package's Sweeper
// reports its final states there itself. ObserveFinalState will be
// removed in a minor release after 0.4.0, as VERSIONING.md describes.
func (c *Client) ObserveFinalState(ctx context.Context, f FinalState) {
	if f.Source == "" {
		f.Source = "reconcile"
	}
	c.Observer().FinalState(ctx, f)
}
