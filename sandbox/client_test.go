package sandbox

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

func credentials(mid, pk, sk string) upicollect.Credentials {
	return upicollect.Credentials{MID: mid, PublicKey: pk, SecretKey: sk}
}

var sdkCustomer = upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "+91 98765-43210"}

// TestSDKAgainstEveryShape runs the SDK client through the sandbox in each
// real-world shape: the SDK must read them all.
func TestSDKAgainstEveryShape(t *testing.T) {
	shapes := [][]string{
		{},
		{VariantStatusInData},
		{VariantStatusBare},
		{VariantStringStatusCode, VariantStringAmounts, VariantQRBase64},
		{VariantStatusInData, VariantStringAmounts, VariantNotFound404},
		{VariantFailedStatusTrue, VariantFailuresHTTP200, VariantRequestISOExpiry, VariantFractionalAmounts},
	}
	for _, v := range shapes {
		t.Run(strings.Join(append([]string{"default"}, v...), "+"), func(t *testing.T) {
			s := Start(t, WithVariant(v...))
			c := s.Client()
			ctx := context.Background()
			in, err := c.CreatePaymentIntent(ctx, &upicollect.IntentParams{
				Amount: upicollect.Rupees(499), RedirectURL: "https://shop.example/done", Note: "n", Customer: sdkCustomer,
			})
			require.NoError(t, err)
			assert.Equal(t, upicollect.Rupees(499), in.Amount)
			assert.Contains(t, in.AppLinks, "phonepe")
			assert.False(t, in.ExpiresAt.IsZero())

			st, err := c.CheckPaymentStatus(ctx, in.OrderID)
			require.NoError(t, err)
			assert.Equal(t, upicollect.TxnPending, st.TxnStatus)

			utr, err := s.Pay(in.OrderID)
			require.NoError(t, err)
			st, err = c.CheckPaymentStatus(ctx, in.OrderID)
			require.NoError(t, err)
			assert.True(t, st.Paid())
			assert.Equal(t, upicollect.Rupees(499), st.Amount)
			assert.Contains(t, []string{st.UTR, st.TransactionID}, utr)

			// A decimal paid amount (1.08) in this shape.
			link0, err := c.CreatePaymentLink(ctx, &upicollect.LinkParams{Amount: upicollect.Rupees(2), Note: "n", Customer: sdkCustomer})
			require.NoError(t, err)
			id := link0.URL[strings.LastIndexByte(link0.URL, '/')+1:]
			_, err = s.SettleWith(id, Settlement{Result: StatusSuccess, PaidPaise: 108})
			require.NoError(t, err)
			st, err = c.CheckPaymentStatus(ctx, id)
			require.NoError(t, err)
			assert.True(t, st.Paid())
			assert.Equal(t, upicollect.Money(108), st.Amount)

			req, err := c.CreatePaymentRequest(ctx, &upicollect.RequestParams{
				Amount: upicollect.Rupees(5), VPA: "ravi@oksbi", Note: "n", Customer: sdkCustomer,
			})
			require.NoError(t, err)
			assert.Equal(t, s.URL()+pagePrefix+req.OrderID, req.PaymentURL)
			link, err := c.CreatePaymentLink(ctx, &upicollect.LinkParams{Amount: upicollect.Rupees(5), Note: "n", Customer: sdkCustomer})
			require.NoError(t, err)
			assert.Regexp(t, `^`+regexp.QuoteMeta(s.URL()+pagePrefix)+`utz_[0-9a-f]{13}$`, link.URL)
			assert.Equal(t, 4, len(s.Orders()))
		})
	}
}

func TestClientPanicsOnBadOption(t *testing.T) {
	s := Start(t)
	assert.Panics(t, func() { s.Client(upicollect.WithBaseURL("")) })
}
