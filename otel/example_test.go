package upicollectotel_test

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/upicollect/upicollect-go"
	upicollectotel "github.com/upicollect/upicollect-go/otel"
	"github.com/upicollect/upicollect-go/sandbox"
)

// newClient is docs/reliability.md's "Telemetry" setup: spans and metrics go to the
// providers the application installed with otel.SetTracerProvider and
// otel.SetMeterProvider.
func newClient(creds upicollect.Credentials, baseURL string) (*upicollect.Client, error) {
	return upicollect.NewClient(creds,
		upicollect.WithBaseURL(baseURL),
		upicollect.WithObserver(upicollectotel.NewObserver(otel.GetTracerProvider(), otel.GetMeterProvider())))
}

// A status check against a sandbox, traced: one span for the call, one for
// its attempt.
func Example() {
	spans := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)))

	sb := sandbox.New()
	defer sb.Close()
	client, err := newClient(sb.Credentials(), sb.URL())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.CloseIdleConnections()
	if _, err := client.CheckPaymentStatus(context.Background(), "order-1001"); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range spans.Ended() {
		fmt.Println(s.SpanKind(), s.Name())
	}
	// Output:
	// client POST /v1/payments/checkPaymentStatus
	// internal checkPaymentStatus
}
