package upicollect

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/upicollect/upicollect-go/internal/retry"
	"github.com/upicollect/upicollect-go/internal/wire"
)

// attempt is what one try produced.
type attempt struct {
	resp      *Response      // nil when no answer arrived
	env       *wire.Envelope // the accepted answer
	fail      *wire.Failure  // the answer, when it is not one to decode
	err       error          // transport error, body-read error included
	neverSent bool           // the request provably never reached the service
	timedOut  bool           // the per-attempt timeout fired
}

// send runs the retry loop for cl and returns the accepted answer or the
// error the caller sees. It only coordinates: decide makes every decision.
func (c *Client) send(ctx context.Context, cl *call) (answer, error) {
	start := c.clock.Now()
	var (
		ambiguous bool // an earlier attempt of a create may have taken effect
		lastCost  int
		lastErr   *APIError
	)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return answer{}, c.giveUp(ctx, cl, n-1, ambiguous, lastErr, err)
		}
		if err := c.limiter.Wait(ctx); err != nil {
			return answer{}, c.giveUp(ctx, cl, n-1, ambiguous, lastErr, err)
		}
		a := c.try(ctx, cl)
		if a.resp != nil {
			a.resp.Attempts, a.resp.Duration = n, c.clock.Now().Sub(start)
		}
		c.logAttempt(ctx, cl, n, &a)
		if a.env != nil {
			c.budget.Release(refill(n, lastCost))
			return answer{env: a.env, resp: a.resp}, nil
		}
		v := decide(cl.safety, c.retry, a.outcome(n), ambiguous, c.clock.Now(), c.rand)
		ambiguous = v.ambiguous
		lastErr = cl.failure(&a, ambiguous)
		if ctx.Err() != nil {
			// The context ended during the attempt; decide already judged
			// whether what went out may have taken effect.
			return answer{}, c.giveUp(ctx, cl, n, ambiguous, lastErr, ctx.Err())
		}
		if v.retry && !c.budget.Acquire(v.cost) {
			v = verdict{reason: ReasonBudgetExhausted, limit: true}
		}
		if !v.retry {
			return answer{}, c.stop(ctx, cl, n, lastErr, v)
		}
		lastCost = v.cost
		c.logRetry(ctx, cl, n, v)
		if err := c.clock.Sleep(ctx, v.delay); err != nil {
			return answer{}, c.giveUp(ctx, cl, n, ambiguous, lastErr, err)
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

// try makes one attempt: a POST with its own timeout, the body read through
// the cap and checked by wire.Check.
func (c *Client) try(ctx context.Context, cl *call) attempt {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.sender.send(actx, cl.url, cl.body, cl.getBody)
	if err != nil {
		return attempt{err: err, neverSent: neverSent(err), timedOut: ctx.Err() == nil && actx.Err() != nil}
	}
	defer res.Body.Close()
	resp := &Response{HTTPStatus: res.StatusCode, Header: res.Header}
	body, err := readBody(res.Body, res.ContentLength, maxBodyBytes)
	// A proxy or a service that echoes the request's Authorization header
	// must not pass it into a message, a result or Response.Body. A
	// credential is a long random string: replacing it cannot change what
	// the rest of the answer says.
	body = c.filter.Bytes(body)
	resp.Body = body
	switch {
	case err != nil:
		return attempt{resp: resp, err: err, timedOut: ctx.Err() == nil && actx.Err() != nil}
	case len(body) > maxBodyBytes:
		resp.Body = body[:maxBodyBytes]
		return attempt{resp: resp, fail: &wire.Failure{Code: res.StatusCode, Kind: wire.KindOf(res.StatusCode),
			Unreadable: fmt.Sprintf("body exceeds %d bytes", maxBodyBytes)}}
	}
	env, fail := wire.Check(cl.op, res.StatusCode, body)
	if fail != nil && res.StatusCode >= 300 && res.StatusCode < 400 {
		fail.Unreadable = redirectDetail(res)
	}
	return attempt{resp: resp, env: env, fail: fail}
}

// outcome is what the retry decision needs to know of a failed attempt.
func (a *attempt) outcome(n int) outcome {
	o := outcome{attempt: n, neverSent: a.resp == nil && a.neverSent, timedOut: a.timedOut}
	if a.err != nil {
		o.errText = shortErr(a.err)
	}
	if a.fail != nil {
		o.answered, o.code, o.unreadable = true, a.fail.Code, a.fail.Unreadable != ""
		o.retryAfter = a.resp.Header.Get("Retry-After")
	}
	return o
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

// failure is the error a failed attempt gives the caller; ambiguous marks a
// create whose outcome is unknown.
func (cl *call) failure(a *attempt, ambiguous bool) *APIError {
	e := &APIError{Op: cl.op, OrderID: cl.orderID, Response: a.resp, cause: a.err}
	if a.resp != nil {
		e.HTTPStatus = a.resp.HTTPStatus
	}
	switch f := a.fail; {
	case a.resp != nil && a.err != nil:
		e.detail = "reading the body"
	case f != nil && f.Unreadable != "":
		e.kinds = kindUnexpected | kindOf(f.Kind)
		e.detail = f.Unreadable
		if a.resp.HTTPStatus < 300 || a.resp.HTTPStatus >= 400 {
			e.detail += ": " + bodySnippet(cl.filter, a.resp.Body)
		}
	case f != nil:
		e.kinds = kindOf(f.Kind)
		e.Message, e.StatusCode = message(cl.filter, f.Msg), f.StatusCode
		if f.Kind == wire.KindInvalid && wire.KindOf(f.Code) == wire.KindNone {
			e.detail = "the service refused the call"
		}
	}
	if ambiguous { // never so for the status check: decide says so
		e.markOutcomeUnknown()
	}
	return e
}

// kindOf maps the protocol's failure kinds to the sentinels.
func kindOf(k wire.Kind) kind {
	switch k {
	case wire.KindUnauthorized:
		return kindUnauthorized
	case wire.KindDuplicate:
		return kindDuplicate
	case wire.KindInvalid:
		return kindInvalid
	case wire.KindNotFound:
		return kindNotFound
	case wire.KindRateLimited:
		return kindRateLimited
	case wire.KindServer:
		return kindServer
	}
	return 0
}

// markOutcomeUnknown makes e ErrOutcomeUnknown: a 409 after an ambiguous
// attempt is no longer a duplicate.
func (e *APIError) markOutcomeUnknown() {
	if e.kinds&kindDuplicate != 0 {
		e.detail = "the order id exists, perhaps from an earlier attempt of this call; check its status"
	}
	e.kinds = (e.kinds &^ kindDuplicate) | kindOutcomeUnknown
}

// shortErr is the last part of a transport error ("connection refused"),
// for a log record or a retry reason; the whole error is in the call's.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}

// stop ends a call whose last attempt failed and is not retried.
func (c *Client) stop(ctx context.Context, cl *call, n int, err *APIError, v verdict) error {
	if v.limit {
		err.Reason = v.reason
	}
	c.logGiveUp(ctx, cl, n, err, v.reason)
	return err
}

// giveUp builds the error for a call that ended because its context did
// (during an attempt, a backoff or a rate-limit wait): the last attempt's
// error, or a bare one when none was made, with the context's error as its
// cause, and ErrOutcomeUnknown for a create that may have gone out.
func (c *Client) giveUp(ctx context.Context, cl *call, attempts int, ambiguous bool, last *APIError, ctxErr error) error {
	e := &APIError{Op: cl.op, OrderID: cl.orderID}
	if last != nil {
		cp := *last
		e = &cp
	}
	e.cause = ctxErr
	if ambiguous { // never so for the status check: decide says so
		e.markOutcomeUnknown()
	}
	c.logGiveUp(ctx, cl, attempts, e, "context done")
	return e
}
