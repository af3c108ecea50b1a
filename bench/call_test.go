package bench_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/upicollect/upicollect-go/bench/internal/harness"
)

var (
	serverOnce sync.Once
	server     *harness.Server
	serverErr  error
)

// fixedServer starts the fixed-answer server on first use; TestMain stops it.
func fixedServer(tb testing.TB) *harness.Server {
	tb.Helper()
	serverOnce.Do(func() { server, serverErr = harness.StartServer() })
	if serverErr != nil {
		tb.Fatal(serverErr)
	}
	return server
}

func TestMain(m *testing.M) {
	code := m.Run()
	if server != nil {
		server.Close()
	}
	os.Exit(code)
}

// TestEveryCallerSucceeds: each implementation's call of each operation
// succeeds against the fixed server, so the benchmarks compare working code.
func TestEveryCallerSucceeds(t *testing.T) {
	srv := fixedServer(t)
	before, err := srv.Stats()
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, impl := range harness.Impls {
		c, err := harness.NewCaller(impl, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range harness.Ops {
			if err := c.Call(context.Background(), op); err != nil {
				t.Errorf("%s %s: %v", impl, op, err)
			}
			calls++
		}
		c.CloseIdleConnections()
	}
	after, err := srv.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if got := after.Requests - before.Requests; got != int64(calls) {
		t.Errorf("the server answered %d requests, want %d", got, calls)
	}
	if after.ConnsOpened <= before.ConnsOpened {
		t.Error("the server counted no connections")
	}
}

// TestInMemorySDK: the SDK over the in-memory transport decodes every answer.
func TestInMemorySDK(t *testing.T) {
	c, err := harness.NewInMemorySDK()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range harness.Ops {
		if err := c.Call(context.Background(), op); err != nil {
			t.Errorf("%s: %v", op, err)
		}
	}
}

// BenchmarkCall measures one call of each operation by each implementation
// against the fixed server in its own process. Sub-benchmarks run in turn
// within each round, so -count=N gives N interleaved rounds.
func BenchmarkCall(b *testing.B) {
	srv := fixedServer(b)
	ctx := context.Background()
	for _, op := range harness.Ops {
		for _, impl := range harness.Impls {
			b.Run(fmt.Sprintf("%s/%s", op, impl), func(b *testing.B) {
				c, err := harness.NewCaller(impl, srv.URL)
				if err != nil {
					b.Fatal(err)
				}
				defer c.CloseIdleConnections()
				if err := c.Call(ctx, op); err != nil { // connect outside the timing
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := c.Call(ctx, op); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkEncodeDecode measures the SDK's own work on a call, with no
// network: an in-memory transport answers as the fixed server does.
func BenchmarkEncodeDecode(b *testing.B) {
	c, err := harness.NewInMemorySDK()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, op := range harness.Ops {
		b.Run(string(op), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := c.Call(ctx, op); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
