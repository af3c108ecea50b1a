package upicollect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/upicollect/upicollect-go/internal/retry"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// safety says what repeating a request may do, which decides what is retried.
type safety int

const (
	// readOnly calls (the status check) change nothing: repeat on any
	// transient failure.
	readOnly safety = iota
	// keyedCreate calls carry an order_id: the service refuses a second
	// order with it, so a repeat after an ambiguous failure is safe, and a 409
	// then means "an earlier attempt may have created it".
	keyedCreate
	// unkeyedCreate calls could create a second order if repeated: repeat
	// only when the request provably never left, or on 429.
	unkeyedCreate
)

// call is one operation call as the transport sees it.
type call struct {
	op      string
	path    string // below the base URL, starting with "/"
	form    url.Values
	safety  safety
	orderID string
	// accept reports whether a failure envelope is in fact an answer for
	// this operation (the status check's PENDING, for one).
	accept func(env *wire.Envelope, httpStatus int) bool
}

// answer is a decoded, accepted envelope and the response it came in.
type answer struct {
	env  *wire.Envelope
	resp *Response
	// c and cl let an operation that cannot read the envelope's data
	// report and log that failure like any other (see unexpected).
	c  *Client
	cl *call
}

// attempt is what one try produced.
type attempt struct {
	resp      *Response // nil when no answer arrived
	env       *wire.Envelope
	err       error // transport error, body-read error included
	readErr   string
	neverSent bool // the request provably never reached the service
	timedOut  bool // the per-attempt timeout fired
}

// send runs c's retry loop for cl and returns the accepted answer or the
// error the caller sees.
func (c *Client) send(ctx context.Context, cl *call) (*answer, error) {
	start := c.clock.Now()
	var (
		ambiguous bool // an earlier attempt may have taken effect
		lastCost  int
		lastErr   error
	)
	if err := ctx.Err(); err != nil {
		// Nothing was sent: not an unknown outcome, even for a create.
		return nil, c.giveUp(cl, 0, false, nil, err)
	}
	for n := 1; ; n++ {
		if err := c.limiter.Wait(ctx); err != nil {
			return nil, c.giveUp(cl, n-1, ambiguous, lastErr, err)
		}
		a := c.try(ctx, cl)
		if a.resp != nil {
			a.resp.Attempts = n
			a.resp.Duration = c.clock.Now().Sub(start)
		}
		c.logAttempt(cl, n, a)

		if a.err == nil && a.env != nil && (a.env.Status || (cl.accept != nil && cl.accept(a.env, a.resp.HTTPStatus))) {
			if n == 1 {
				c.budget.Release(retry.SuccessRefill)
			} else {
				c.budget.Release(lastCost)
			}
			return &answer{env: a.env, resp: a.resp, c: c, cl: cl}, nil
		}

		code, callErr := c.failure(cl, a)
		retryable, amb, cost, why := classifyRetry(cl.safety, a, code)
		if ctx.Err() != nil {
			// The caller's context ended during the attempt: whatever went out
			// may have taken effect.
			return nil, c.giveUp(cl, n, ambiguous || (cl.safety != readOnly && !a.neverSent), callErr, ctx.Err())
		}
		if amb {
			ambiguous = true
		}
		if ambiguous && cl.safety != readOnly {
			callErr = outcomeUnknown(cl, callErr, nil)
		}
		lastErr = callErr
		if !retryable {
			c.logGiveUp(cl, n, callErr, "not retryable")
			return nil, callErr
		}
		if n >= c.retry.MaxAttempts {
			c.logGiveUp(cl, n, callErr, "attempts exhausted")
			return nil, callErr
		}
		delay := retry.Backoff(n, c.retry.BaseDelay, c.retry.MaxDelay, c.rand)
		if a.resp != nil && (code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable) {
			if ra, ok := retry.ParseRetryAfter(a.resp.Header.Get("Retry-After"), c.clock.Now()); ok {
				if ra > c.retry.MaxRetryAfter {
					c.logGiveUp(cl, n, callErr, fmt.Sprintf("Retry-After %v exceeds %v", ra, c.retry.MaxRetryAfter))
					return nil, callErr
				}
				delay = max(delay, ra)
			}
		}
		if !c.budget.Acquire(cost) {
			c.logGiveUp(cl, n, callErr, "retry budget exhausted")
			return nil, callErr
		}
		lastCost = cost
		c.logger.LogAttrs(ctx, slog.LevelWarn, "upicollect: retrying",
			slog.String("op", cl.op), slog.Int("attempt", n), slog.String("reason", why),
			slog.Duration("delay", delay), slog.String("order_id", cl.orderID))
		if err := c.clock.Sleep(ctx, delay); err != nil {
			return nil, c.giveUp(cl, n, ambiguous, callErr, err)
		}
	}
}

// try makes one attempt: a POST with its own timeout, the body read through
// the cap.
func (c *Client) try(ctx context.Context, cl *call) attempt {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint(cl.path), strings.NewReader(cl.form.Encode()))
	if err != nil {
		return attempt{err: err, neverSent: true}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Authorization", c.auth.authorization())

	res, err := c.http.Do(req)
	if err != nil {
		return attempt{err: err, neverSent: neverSent(err), timedOut: ctx.Err() == nil && actx.Err() != nil}
	}
	defer res.Body.Close()
	resp := &Response{HTTPStatus: res.StatusCode, Header: res.Header}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBodyBytes+1))
	if err != nil {
		resp.Body = body
		return attempt{resp: resp, err: err, timedOut: ctx.Err() == nil && actx.Err() != nil}
	}
	if len(body) > maxBodyBytes {
		resp.Body = body[:maxBodyBytes]
		return attempt{resp: resp, readErr: fmt.Sprintf("body exceeds %d bytes", maxBodyBytes)}
	}
	resp.Body = body
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		return attempt{resp: resp, readErr: redirectDetail(res)}
	}
	env, err := wire.DecodeEnvelope(body)
	if err != nil {
		return attempt{resp: resp, readErr: err.Error() + ": " + snippet(body)}
	}
	return attempt{resp: resp, env: env}
}

func redirectDetail(res *http.Response) string {
	loc, err := res.Location()
	if err != nil {
		return "redirect not followed (no valid Location)"
	}
	return fmt.Sprintf("redirect to host %q not followed: check the base URL", loc.Host)
}

// neverSent reports whether err proves the request never reached the
// service: it failed to resolve or to connect.
func neverSent(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// failure turns a failed attempt into the status code that decides retries
// (0 when no answer arrived) and the error the caller would see.
func (c *Client) failure(cl *call, a attempt) (int, error) {
	if a.resp == nil {
		return 0, opError(cl.op, a.err)
	}
	e := &APIError{Op: cl.op, HTTPStatus: a.resp.HTTPStatus, OrderID: cl.orderID, Response: a.resp}
	switch {
	case a.err != nil:
		e.cause = a.err
		e.detail = "reading the body"
		return 0, e
	case a.env == nil:
		e.kinds = kindUnexpected | kindForCode(a.resp.HTTPStatus)
		e.detail = a.readErr
		return a.resp.HTTPStatus, e
	}
	env := a.env
	e.Message = env.Msg
	if env.HasStatusCode {
		e.StatusCode = env.StatusCode
	}
	code := effectiveCode(env, a.resp.HTTPStatus)
	if env.MessageKey && !env.HasStatusCode {
		// {status:false, message:"…"}: the missing-Authorization answer.
		e.kinds = kindUnauthorized
		return code, e
	}
	e.kinds = kindForCode(code)
	if e.kinds == 0 {
		e.detail = "the service refused the call"
	}
	return code, e
}

// effectiveCode is the body's statusCode when it says something, the HTTP
// status otherwise: the body decides, the status fills in.
func effectiveCode(env *wire.Envelope, httpStatus int) int {
	if env.HasStatusCode && env.StatusCode != 0 && env.StatusCode != http.StatusOK {
		return env.StatusCode
	}
	return httpStatus
}

func kindForCode(code int) kind {
	switch {
	case code == 401 || code == 403:
		return kindUnauthorized
	case code == 404:
		return kindNotFound
	case code == 409:
		return kindDuplicate
	case code == 429:
		return kindRateLimited
	case code >= 500 && code <= 599:
		return kindServer
	case code >= 400 && code <= 499:
		return kindInvalid
	}
	return 0
}

// classifyRetry says whether a failed attempt may be retried for the call's
// safety, whether it was ambiguous (may have taken effect), what a retry
// costs from the budget, and why, for the log.
func classifyRetry(s safety, a attempt, code int) (retryable, ambiguous bool, cost int, why string) {
	switch {
	case a.resp == nil && a.neverSent:
		return true, false, retry.RetryCost, "not sent: " + shortErr(a.err)
	case a.resp == nil || a.err != nil:
		cost, why = retry.RetryCost, "transport: "+shortErr(a.err)
		if a.timedOut {
			cost, why = retry.TimeoutCost, "attempt timed out"
		}
		return s != unkeyedCreate, s != readOnly, cost, why
	case code == http.StatusTooManyRequests:
		return true, false, retry.RetryCost, "rate limited (429)"
	case code == 500 || code == 502 || code == 503 || code == 504:
		return s != unkeyedCreate, s != readOnly, retry.RetryCost, fmt.Sprintf("server error (%d)", code)
	case a.env == nil && a.resp.HTTPStatus >= 200 && a.resp.HTTPStatus < 300:
		// An unreadable success: a create may well have happened.
		return false, s != readOnly, 0, ""
	}
	return false, false, 0, ""
}

func shortErr(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && len(s) > 80 {
		s = s[i+2:]
	}
	return s
}

// outcomeUnknown marks err as ErrOutcomeUnknown for the call's order: a 409
// after an ambiguous attempt is no longer a duplicate. A non-nil cause (the
// context's error, when that ended the call) replaces the error's own.
func outcomeUnknown(cl *call, err, cause error) error {
	var ae *APIError
	if !errors.As(err, &ae) {
		if cause == nil {
			cause = err
		}
		return &APIError{Op: cl.op, OrderID: cl.orderID, kinds: kindOutcomeUnknown, cause: cause}
	}
	cp := *ae
	cp.kinds = (cp.kinds &^ kindDuplicate) | kindOutcomeUnknown
	cp.OrderID = cl.orderID
	if ae.kinds&kindDuplicate != 0 {
		cp.detail = "the order id exists, perhaps from an earlier attempt of this call; check its status"
	}
	if cause != nil {
		cp.cause = cause
	}
	return &cp
}

// giveUp builds the error for a call that ended because its context did
// (during an attempt, a backoff or a rate-limit wait). It matches the
// context's error and, for a create that may have gone out, ErrOutcomeUnknown.
func (c *Client) giveUp(cl *call, attempts int, ambiguous bool, last, ctxErr error) error {
	var err error
	switch {
	case ambiguous:
		err = outcomeUnknown(cl, last, ctxErr)
	case last != nil && !errors.Is(last, ctxErr):
		err = fmt.Errorf("upicollect: %s: %w (last attempt: %w)", cl.op, ctxErr, last)
	case last != nil:
		err = last
	default:
		err = opError(cl.op, ctxErr)
	}
	c.logGiveUp(cl, attempts, err, "context done")
	return err
}

func (c *Client) logAttempt(cl *call, n int, a attempt) {
	if !c.logger.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("op", cl.op), slog.String("path", cl.path), slog.Int("attempt", n),
		slog.String("order_id", cl.orderID),
	}
	if a.resp != nil {
		attrs = append(attrs, slog.Int("http_status", a.resp.HTTPStatus), slog.Duration("duration", a.resp.Duration))
	}
	if a.err != nil {
		attrs = append(attrs, slog.String("error", shortErr(a.err)))
	}
	c.logger.LogAttrs(context.Background(), slog.LevelDebug, "upicollect: attempt", attrs...)
}

func (c *Client) logGiveUp(cl *call, n int, err error, why string) {
	c.logger.LogAttrs(context.Background(), slog.LevelError, "upicollect: call failed",
		slog.String("op", cl.op), slog.Int("attempts", n), slog.String("reason", why),
		slog.String("order_id", cl.orderID), slog.String("error", err.Error()))
}
