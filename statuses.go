package upicollect

import (
	"context"
	"errors"
	"iter"
	"sync"
)

// BatchOption configures CheckPaymentStatuses.
type BatchOption func(*batchSettings)

type batchSettings struct {
	concurrency int
}

// DefaultConcurrency is how many status checks CheckPaymentStatuses runs at
// once unless WithConcurrency says otherwise.
const DefaultConcurrency = 8

// WithConcurrency sets how many status checks run at once (default
// DefaultConcurrency); n below 1 keeps the default. The client's
// WithRateLimit and WithMaxConns still bound what is sent: more concurrency
// than they allow only makes checks wait for their turn.
func WithConcurrency(n int) BatchOption {
	return func(b *batchSettings) {
		if n >= 1 {
			b.concurrency = n
		}
	}
}

// OrderIDOf returns the order a pair yielded by CheckPaymentStatuses is
// about: the status's OrderID, or else the OrderID of the *APIError the
// error is (every error the batch yields is one). It returns "" for a pair
// with neither, which the batch never yields.
func OrderIDOf(st *PaymentStatus, err error) string {
	if st != nil {
		return st.OrderID
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.OrderID
	}
	return ""
}

// checked is one order's outcome as the batch hands it over.
type checked struct {
	status *PaymentStatus
	err    error
}

// CheckPaymentStatuses checks the status of every order in orderIDs, at most
// WithConcurrency at once, and yields each result as it completes: in
// completion order, not input order. Each yielded pair has exactly one of
// its values set: a *PaymentStatus, or an *APIError whose OrderID names the
// order (an order id that fails validation too: the error then also
// matches ErrValidation and wraps the *ValidationError); OrderIDOf reads
// the order of either.
//
// API: POST /v1/payments/checkPaymentStatus, once per order
//
// Each check is an ordinary CheckPaymentStatus: it waits for the client's
// rate limiter, is retried as that call is, and spends the client's retry
// budget, so a batch cannot flood the service or starve other calls of
// retries. orderIDs is read from one goroutine of the batch, never more
// than the free workers ahead, so memory stays bounded however long the
// input is.
//
// Breaking out of the loop cancels the checks in flight and returns once
// every goroutine of the batch has ended. When ctx ends, no further order is
// read; the checks in flight end with errors matching ctx.Err(), which are
// yielded, and the sequence ends. Orders not yet read are not reported:
// check ctx.Err() after the loop to know whether every order was checked. A
// sequence that can block for long (a terminal) delays the end until it
// yields again; make it watch ctx too. A panic in orderIDs, which the batch
// reads on a goroutine of its own, is raised again on the caller's
// goroutine, with the same value, once the checks in flight have ended (and
// their results were yielded, unless the caller left the loop).
func (c *Client) CheckPaymentStatuses(ctx context.Context, orderIDs iter.Seq[string], opts ...BatchOption) iter.Seq2[*PaymentStatus, error] {
	c.mustInit()
	b := batchSettings{concurrency: DefaultConcurrency}
	for _, o := range opts {
		if o != nil {
			o(&b)
		}
	}
	return func(yield func(*PaymentStatus, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		// stop is closed when the caller leaves the loop (a break, or a
		// panic in its body): workers then drop their results instead of
		// waiting for a reader that is gone.
		stop := make(chan struct{})
		results := make(chan checked)
		fed := new(feedPanic)
		go c.feedChecks(ctx, orderIDs, b.concurrency, results, stop, fed)
		// left says the loop ended (or the caller broke out of it) rather
		// than its body panicking: a panic of the caller's own is not
		// replaced by the feeder's.
		left := false
		defer func() {
			// Cancel before stop: a worker can free its slot only once stop
			// is closed, and the feeder must then see ctx ended, not a free
			// slot to launch one more check with.
			cancel()
			close(stop)
			for range results { // until every worker and the feeder ended
			}
			// results is closed after the feeder recorded a panic, so fed
			// is read safely here.
			if left && fed.panicked {
				panic(fed.value)
			}
		}()
		for r := range results {
			if !yield(r.status, r.err) {
				left = true
				return
			}
		}
		left = true
	}
}

// feedPanic is a panic of the caller's sequence, recovered on the
// feeder's goroutine to be raised again on the caller's.
type feedPanic struct {
	panicked bool
	value    any
}

// feedChecks reads order ids, runs a check for each on at most n workers,
// and closes results when the input is done (or ctx ended) and every
// worker has delivered or dropped its result. A panic of orderIDs is
// recorded in fed before results is closed: it runs on this goroutine,
// where nobody could recover it, and the caller raises it again on its own.
func (c *Client) feedChecks(ctx context.Context, orderIDs iter.Seq[string], n int, results chan<- checked, stop <-chan struct{}, fed *feedPanic) {
	var workers sync.WaitGroup
	defer func() {
		if p := recover(); p != nil {
			fed.panicked, fed.value = true, p
		}
		workers.Wait()
		close(results)
	}()
	slots := make(chan struct{}, n)
	for id := range orderIDs {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		if ctx.Err() != nil { // ended while a slot was free too: select may pick either
			<-slots
			return
		}
		workers.Add(1)
		go func() {
			defer workers.Done()
			defer func() { <-slots }()
			st, err := c.CheckPaymentStatus(ctx, id)
			select {
			case results <- checked{st, namedOrderError(id, err)}:
			case <-stop:
			}
		}()
	}
}
