package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/bench/internal/results"
	"github.com/upicollect/upicollect-go/sandbox"
)

// runWaiters starts n WaitForPayment calls on one pending order of an
// in-process sandbox, served through a counting http.Server, and measures
// their memory while all wait, the server's request rate and the start-up
// burst; then pays the order and lets them finish.
func runWaiters(n int, poll time.Duration, limited bool, rate float64, burst int) (results.Waiters, error) {
	w := results.Waiters{RateLimit: "none", Waiters: n, PollInterval: poll.String()}
	// A bounded request log, so that the sandbox's own records do not
	// count as the waiters' memory.
	sb := sandbox.New(sandbox.WithRequestLog(64, 0))
	defer sb.Close()
	var conns, requests, serverErrors atomic.Int64
	hs := &http.Server{
		Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			sb.ServeHTTP(rw, r)
		}),
		ErrorLog: log.New(countWriter{&serverErrors}, "", 0),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return w, err
	}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()

	opts := []upicollect.Option{upicollect.WithBaseURL("http://" + ln.Addr().String())}
	if limited {
		w.RateLimit = fmt.Sprintf("%g/s burst %d", rate, burst)
		opts = append(opts, upicollect.WithRateLimit(rate, burst))
	}
	c, err := upicollect.NewClient(sb.Credentials(), opts...)
	if err != nil {
		return w, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in, err := c.CreatePaymentIntent(ctx, &upicollect.IntentParams{
		Amount: upicollect.Rupees(499), OrderID: upicollect.NewOrderID(),
		RedirectURL: "https://shop.example.com/return", Note: "load",
		Customer: upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "9876543210"},
	})
	if err != nil {
		return w, err
	}

	base := memInUse()
	conns0, req0 := conns.Load(), requests.Load()
	type outcome struct {
		paid bool
		err  error
	}
	done := make(chan outcome, n)
	start := time.Now()
	for i := 0; i < n; i++ {
		go func() {
			st, err := c.WaitForPayment(ctx, in.OrderID, upicollect.WithPollInterval(poll, poll))
			done <- outcome{paid: err == nil && st.Paid(), err: err}
		}()
	}
	// The first interval: every waiter's first poll.
	sleepUntil(start.Add(poll))
	w.StartupBurst = requests.Load() - req0
	reqAfterFirst := requests.Load()
	// In the second interval the waiters sleep between polls (or wait for
	// a token) and a few poll: the least of five samples is the cost of
	// waiting.
	low := mem{heap: ^uint64(0) / 2, stack: ^uint64(0) / 2}
	for i := 1; i <= 5; i++ {
		sleepUntil(start.Add(poll + time.Duration(i)*poll/6))
		if m := memInUse(); m.heap+m.stack < low.heap+low.stack {
			low = m
		}
	}
	heap, stack, spans := low.minus(base)
	w.HeapPerWaiter, w.StackPerWaiter = float64(heap)/float64(n), float64(stack)/float64(n)
	w.HeapSpansPerWaiter = float64(spans) / float64(n)
	w.BytesPerWaiter = w.HeapPerWaiter + w.StackPerWaiter
	sleepUntil(start.Add(2 * poll))
	w.RequestsPerSecond = float64(requests.Load()-reqAfterFirst) / poll.Seconds()

	if _, err := sb.Pay(in.OrderID); err != nil {
		return w, err
	}
	grace := time.NewTimer(poll + 2*time.Second)
	defer grace.Stop()
	for ended := 0; ended < n; ended++ {
		var o outcome
		select {
		case o = <-done:
		case <-grace.C:
			cancel() // the rest see the cancellation at once
			o = <-done
		}
		switch {
		case o.paid:
			w.Paid++
		case !errors.Is(o.err, context.Canceled):
			w.Errors++
		}
	}
	w.ConnsOpened = conns.Load() - conns0
	w.AcceptErrors = serverErrors.Load()
	return w, nil
}

// countWriter counts the lines the server would log.
type countWriter struct{ n *atomic.Int64 }

func (c countWriter) Write(p []byte) (int, error) {
	c.n.Add(int64(bytes.Count(p, []byte("\n"))))
	return len(p), nil
}

// mem is the memory in use after a collection: live heap objects, stacks,
// and heap spans (live objects and the free slots among them).
type mem struct{ heap, stack, spans uint64 }

// memInUse is the memory in use after a collection.
func memInUse() mem {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return mem{heap: ms.HeapAlloc, stack: ms.StackInuse, spans: ms.HeapInuse}
}

func (m mem) minus(base mem) (heap, stack, spans int64) {
	return int64(m.heap) - int64(base.heap), int64(m.stack) - int64(base.stack), int64(m.spans) - int64(base.spans)
}

func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }
