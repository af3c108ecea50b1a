package upicollect_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/upicollect/upicollect-go"
)

// inMemoryStatusClient is a client whose transport answers every status
// check at once from memory, so that a benchmark measures the SDK's own
// work per call.
func inMemoryStatusClient(tb testing.TB, opts ...upicollect.Option) *upicollect.Client {
	tb.Helper()
	body := string(successBody(tb, opStatus))
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r,
		}, nil
	})}
	c, err := upicollect.NewClient(testCreds, append([]upicollect.Option{
		upicollect.WithBaseURL("http://127.0.0.1:1" + apiPrefix), upicollect.WithHTTPClient(hc),
	}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

type freeLimiter struct{}

func (freeLimiter) Wait(context.Context) error { return nil }

// seamCases are the seams' configurations the overhead benchmark and test
// compare: none, a no-op observer, a limiter that never waits.
var seamCases = []struct {
	name string
	opts []upicollect.Option
}{
	{"none", nil},
	{"nop-observer", []upicollect.Option{upicollect.WithObserver(upicollect.NopObserver{})}},
	{"free-limiter", []upicollect.Option{upicollect.WithRateLimiter(freeLimiter{})}},
}

// BenchmarkSeams measures a status check from memory with each seam: the
// difference to "none" is what the seam itself costs per call.
func BenchmarkSeams(b *testing.B) {
	ctx := context.Background()
	for _, sc := range seamCases {
		b.Run(sc.name, func(b *testing.B) {
			c := inMemoryStatusClient(b, sc.opts...)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := c.CheckPaymentStatus(ctx, testStatusOrder); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSeamsAllocateNothing: neither a no-op observer nor a limiter adds an
// allocation to a call, so the seams' call path allocates nothing of its
// own (a client without them takes the same path minus the interface calls).
func TestSeamsAllocateNothing(t *testing.T) {
	ctx := context.Background()
	allocs := map[string]float64{}
	for _, sc := range seamCases {
		c := inMemoryStatusClient(t, sc.opts...)
		allocs[sc.name] = testing.AllocsPerRun(200, func() {
			if _, err := c.CheckPaymentStatus(ctx, testStatusOrder); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Log(allocs)
	for _, sc := range seamCases {
		if allocs[sc.name] != allocs["none"] {
			t.Errorf("%s: %v allocations per call, without seams %v", sc.name, allocs[sc.name], allocs["none"])
		}
	}
}
