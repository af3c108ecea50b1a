package upicollect_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// TestCreatesRefuseAnotherOrdersAnswer: a payment request's or order
// request's answer that names another order than the one sent is refused
// as the intent's and the status check's are (ErrUnexpectedResponse and
// ErrOutcomeUnknown, naming the order sent); one that names no order is the
// sent order's, as the live service may answer.
func TestCreatesRefuseAnotherOrdersAnswer(t *testing.T) {
	t.Parallel()
	const sent = "ORD-7001"
	const page = `"payment_url":"https://pay.example.com/p/1"`
	tests := []struct {
		name, data string
		create     func(context.Context, *upicollect.Client) (string, error)
		wantErr    bool
	}{
		{"payment request, another order", `{"orderId":"ORD-9999",` + page + `}`, createRequest, true},
		{"payment request, another order as order_id", `{"order_id":"ORD-9999",` + page + `}`, createRequest, true},
		{"payment request, no order", `{` + page + `}`, createRequest, false},
		{"payment request, the order sent", `{"orderId":"ORD-7001",` + page + `}`, createRequest, false},
		{"order request, another order", `{"orderId":"ORD-9999",` + page + `}`, createOrder, true},
		{"order request, another order as order_id", `{"order_id":"ORD-9999",` + page + `}`, createOrder, true},
		{"order request, no order", `{` + page + `}`, createOrder, false},
		{"order request, the order sent", `{"orderId":"ORD-7001",` + page + `}`, createOrder, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, always(http.StatusOK, []byte(`{"status":true,"statusCode":200,"msg":"ok","data":`+tt.data+`}`)))
			c, _ := newClient(t, srv.BaseURL())
			got, err := tt.create(context.Background(), c)
			assert.Equal(t, 1, srv.Count(), "a refused success is not retried")
			if !tt.wantErr {
				require.NoError(t, err)
				assert.Equal(t, sent, got)
				return
			}
			assertSentinels(t, err, upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown)
			var ae *upicollect.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, sent, ae.OrderID)
			assert.Contains(t, err.Error(), `the answer names order "ORD-9999", not "ORD-7001"`)
		})
	}
}

func createRequest(ctx context.Context, c *upicollect.Client) (string, error) {
	in := validInput()
	in.OrderID = "ORD-7001"
	r, err := c.CreatePaymentRequest(ctx, in.request())
	if err != nil {
		return "", err
	}
	return r.OrderID, nil
}

func createOrder(ctx context.Context, c *upicollect.Client) (string, error) {
	p := orderParams()
	p.OrderID = "ORD-7001"
	r, err := c.CreateOrderRequest(ctx, p)
	if err != nil {
		return "", err
	}
	return r.OrderID, nil
}
