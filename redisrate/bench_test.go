package redisrate_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/upicollect/upicollect-go/redisrate"
	"github.com/upicollect/upicollect-go/redisrate/redistest"
)

// BenchmarkWaitAt50msRoundTrip: 64 callers of one process wait on a limit
// of 200 requests a second (bursts of 1, so that no burst flatters the
// figure) on a Redis 50ms of round trip away (a proxy delays each way by
// 25ms). It reports the requests a second let through and their share of
// the limit ("limit-%"); one caller asking Redis at a time would let
// through one request per round trip, under 20 a second. Run with a fixed
// count, such as -benchtime=600x (three seconds at the limit).
func BenchmarkWaitAt50msRoundTrip(b *testing.B) {
	const (
		perSecond = 200
		callers   = 64
	)
	_, rdb := proxied(b, redistest.Start(b), 25*time.Millisecond)
	l := redisrate.New(rdb, "bench-"+time.Now().Format("150405.000000"), perSecond, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := l.Wait(ctx); err != nil { // the connection and the script's load
		b.Fatal(err)
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for g := 0; g < callers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if err := l.Wait(ctx); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d waits failed", n)
	}
	rate := float64(b.N) / elapsed.Seconds()
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(100*rate/perSecond, "limit-%")
}
