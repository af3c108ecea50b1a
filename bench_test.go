package upicollect_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/wire"
	"github.com/upicollect/upicollect-go/sandbox"
)

// BenchmarkCheckPaymentStatus measures a whole status check through the SDK
// over loopback HTTP against the sandbox: encoding, the request, the
// sandbox's work and decoding.
func BenchmarkCheckPaymentStatus(b *testing.B) {
	sb := sandbox.Start(b, sandbox.Strict())
	c := sb.Client()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.CheckPaymentStatus(ctx, "ord_bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCreatePaymentIntent measures a validated create through the SDK
// against the sandbox, a new order each time.
func BenchmarkCreatePaymentIntent(b *testing.B) {
	sb := sandbox.Start(b, sandbox.Strict())
	c := sb.Client()
	ctx := context.Background()
	p := upicollect.IntentParams{
		Amount: upicollect.Rupees(499), RedirectURL: "https://shop.example.com/r", Note: "bench",
		Customer: upicollect.Customer{Name: "Ravi", Email: "ravi@example.com", Mobile: "+91 98765 43210"},
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := p
		q.OrderID = upicollect.NewOrderID()
		if _, err := c.CreatePaymentIntent(ctx, &q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeEnvelope measures reading the live service's richest
// status answer, without I/O.
func BenchmarkDecodeEnvelope(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("testdata", "responses", "status_success_data_status.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		env, err := wire.DecodeEnvelope(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := wire.DecodeStatusData(env.Data); err != nil {
			b.Fatal(err)
		}
	}
}
