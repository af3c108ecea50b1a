package upicollectotel_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	upicollectotel "github.com/upicollect/upicollect-go/otel"
)

// TestDoPathsStayOutOfMetrics: Do's operation is the last element of its
// path, which may be an id; the metrics name every such call "other", and
// so do span names (the attempt's is the method alone), so that neither
// grows with the ids. The call span keeps the operation as given.
func TestDoPathsStayOutOfMetrics(t *testing.T) {
	e := newEnv(t)
	srv := newScripted(t, link, 200)
	c := e.client(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	const n = 40
	for i := 0; i < n; i++ {
		_, err := c.Do(ctx, fmt.Sprintf("/v1/payments/refund/ORD-%d", i), nil, nil)
		require.NoError(t, err)
	}
	_, err := c.CreatePaymentLink(ctx, &upicollect.LinkParams{Amount: upicollect.Rupees(10), Note: "n",
		Customer: upicollect.Customer{Name: "Ravi", Email: "ravi@example.com", Mobile: "9876543210"}})
	require.NoError(t, err)

	assert.Equal(t, map[string]int64{
		"upicollect.operation=other,upicollect.outcome=success":             n,
		"upicollect.operation=createPaymentLink,upicollect.outcome=success": 1,
	}, e.points(t, "upicollect.client.calls"))
	assert.Equal(t, map[string]int64{
		"http.response.status_code=200,upicollect.operation=other":             n,
		"http.response.status_code=200,upicollect.operation=createPaymentLink": 1,
	}, e.points(t, "upicollect.client.attempts"))
	assert.Equal(t, map[string]int64{
		"upicollect.operation=other,upicollect.outcome=success":             n,
		"upicollect.operation=createPaymentLink,upicollect.outcome=success": 1,
	}, e.points(t, "upicollect.client.call.duration"))

	calls, attempts := e.ended()
	require.Len(t, calls, n+1)
	names := map[string]int{}
	for _, s := range append(calls, attempts...) {
		names[s.Name()]++
	}
	assert.Equal(t, map[string]int{"other": n, "POST": n, "createPaymentLink": 1, "POST /v1/payments/createPaymentLink": 1}, names)
	assert.Equal(t, "ORD-0", attrOf(calls[0], upicollectotel.OperationKey).AsString(), "the span keeps Do's operation as given")
}

// TestDroppedAppLinks: an app link the client dropped from an intent is an
// event on the call span, naming the app and why, and a count by operation
// and app, an app the service is not known to name counted as "other".
func TestDroppedAppLinks(t *testing.T) {
	e := newEnv(t)
	answer := `{"status":true,"statusCode":200,"msg":"ok","data":{"intent":"upi://pay?pa=acme@okaxis&am=10.00&tr=ORD-1",` +
		`"amount":"10","orderId":"ORD-1","cred":"credpay://upi/pay?am=10.00","superapp":"super://pay?pa=acme@okaxis&tn=50%off"}}`
	srv := newScripted(t, answer, 200)
	c := e.client(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	in, err := c.CreatePaymentIntent(ctx, &upicollect.IntentParams{Amount: upicollect.Rupees(10), OrderID: "ORD-1",
		RedirectURL: "https://shop.example.com/r", Note: "n", Customer: upicollect.Customer{Name: "Ravi", Email: "ravi@example.com", Mobile: "9876543210"}})
	require.NoError(t, err)
	assert.Empty(t, in.AppLinks)

	calls, _ := e.ended()
	require.Len(t, calls, 1)
	var got []string
	for _, ev := range calls[0].Events() {
		require.Equal(t, upicollectotel.DroppedLinkEvent, ev.Name)
		var app, reason string
		for _, a := range ev.Attributes {
			switch a.Key {
			case upicollectotel.AppKey:
				app = a.Value.AsString()
			case upicollectotel.ReasonKey:
				reason = a.Value.AsString()
			}
		}
		got = append(got, app+": "+reason)
	}
	assert.Equal(t, []string{"cred: names no payee (pa)", "superapp: cannot be read as a UPI or app link"}, got)
	assert.Equal(t, map[string]int64{
		"upicollect.app=cred,upicollect.operation=createPaymentIntent":  1,
		"upicollect.app=other,upicollect.operation=createPaymentIntent": 1,
	}, e.points(t, "upicollect.client.app_links_dropped"))
}

// TestTypedNilObserverRefused: a nil *Observer in the interface would
// panic on the client's first call; NewClient refuses it.
func TestTypedNilObserverRefused(t *testing.T) {
	var o *upicollectotel.Observer
	_, err := upicollect.NewClient(creds, upicollect.WithBaseURL("http://127.0.0.1:1"), upicollect.WithObserver(o))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "WithObserver: nil observer")
}
