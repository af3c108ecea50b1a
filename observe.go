package upicollect

import (
	"context"
	"net/url"
	"strconv"
	"time"
)

// The call path's side of the Observer and RateLimiter seams. Every helper
// here is called only when the client has an observer (or a limiter), so a
// client without them makes no observation work, allocation or interface
// call.

// info names cl for the observer.
func (c *Client) info(cl *call) CallInfo {
	return CallInfo{Op: cl.op, OrderID: cl.orderID, ServerAddress: c.serverAddress, ServerPort: c.serverPort}
}

// serverOf is the host and port of the base URL u, for CallInfo.
func serverOf(u *url.URL) (string, int) {
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		port = 443
		if u.Scheme == "http" {
			port = 80
		}
	}
	return u.Hostname(), port
}

// waitTurn waits on the client's rate limiter, if any, and returns how long
// that took when an observer wants to know (0 otherwise). Its error is the
// context's, or the limiter's own wrapped by limiterFailure.
func (c *Client) waitTurn(ctx context.Context) (time.Duration, error) {
	if c.limiter == nil {
		return 0, nil
	}
	var start time.Time
	if c.observer != nil {
		start = c.clock.Now()
	}
	err := c.limiter.Wait(ctx)
	if err != nil {
		if lerr := limiterFailure(err); lerr != nil {
			return 0, lerr
		}
		return 0, err
	}
	if c.observer == nil {
		return 0, nil
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
	e := AttemptEnd{Attempt: n, Duration: c.clock.Now().Sub(o.start), RateLimitWait: o.wait, ErrorType: ErrorType(err)}
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
	})
}

// observeFinal reports that WaitForPayment, begun at start, saw orderID's
// final status st.
func (c *Client) observeFinal(ctx context.Context, orderID string, st *PaymentStatus, start time.Time) {
	c.observer.FinalState(ctx, FinalState{
		Source: "WaitForPayment", OrderID: orderID, Status: st.TxnStatus, Elapsed: c.clock.Now().Sub(start),
	})
}
