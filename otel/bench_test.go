package upicollectotel_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/upicollect/upicollect-go"
	upicollectotel "github.com/upicollect/upicollect-go/otel"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// inMemoryClient answers every status check from memory, so that a
// benchmark measures the SDK's work and the observer's, not the network.
func inMemoryClient(tb testing.TB, opts ...upicollect.Option) *upicollect.Client {
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(pending)), ContentLength: int64(len(pending)), Request: r,
		}, nil
	})}
	c, err := upicollect.NewClient(creds, append([]upicollect.Option{
		upicollect.WithBaseURL("http://127.0.0.1:1"), upicollect.WithHTTPClient(hc),
	}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// observerCases are the configurations BenchmarkObserver compares: no
// observer; the otel observer with a sampled SDK tracer (spans recorded,
// no exporter) and an SDK meter; the same with an unsampled tracer; and
// with the API's no-op providers.
func observerCases(tb testing.TB) []struct {
	name string
	opts []upicollect.Option
} {
	sampled := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
	unsampled := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tb.Cleanup(func() {
		_ = sampled.Shutdown(context.Background())
		_ = unsampled.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return []struct {
		name string
		opts []upicollect.Option
	}{
		{"none", nil},
		{"otel-sampled", []upicollect.Option{upicollect.WithObserver(upicollectotel.NewObserver(sampled, mp))}},
		{"otel-unsampled", []upicollect.Option{upicollect.WithObserver(upicollectotel.NewObserver(unsampled, mp))}},
		{"otel-noop", []upicollect.Option{upicollect.WithObserver(upicollectotel.NewObserver(noop.NewTracerProvider(), nil))}},
	}
}

// BenchmarkObserver measures a status check from memory with each
// configuration: the difference to "none" is the observer's cost per call
// (a call of one attempt: two spans).
func BenchmarkObserver(b *testing.B) {
	ctx := context.Background()
	for _, oc := range observerCases(b) {
		b.Run(oc.name, func(b *testing.B) {
			c := inMemoryClient(b, oc.opts...)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := c.CheckPaymentStatus(ctx, "ORD-1"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestObserverAllocations: the observer adds only what its spans need: a
// context per span with a tracer that records nothing (no-op or unsampled
// spans add their span too), and nothing for metrics, whose attribute sets
// are built once.
func TestObserverAllocations(t *testing.T) {
	ctx := context.Background()
	allocs := map[string]float64{}
	for _, oc := range observerCases(t) {
		c := inMemoryClient(t, oc.opts...)
		allocs[oc.name] = testing.AllocsPerRun(200, func() {
			if _, err := c.CheckPaymentStatus(ctx, "ORD-1"); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Logf("allocations per call of one attempt: %v", allocs)
	for name, most := range map[string]float64{"otel-noop": 2, "otel-unsampled": 4} {
		if extra := allocs[name] - allocs["none"]; extra > most {
			t.Errorf("%s adds %v allocations per call, want at most %v (two spans)", name, extra, most)
		}
	}
}
