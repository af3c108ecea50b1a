package upicollect_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/sandbox"
)

func TestIntentVerify(t *testing.T) {
	p := &upicollect.IntentParams{Amount: upicollect.Rupees(499), OrderID: "ord_1"}
	good := "upi://pay?pa=shop@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_1&cu=INR"
	tests := []struct {
		name   string
		intent upicollect.Intent
		params *upicollect.IntentParams
		want   []upicollect.LinkMismatch
		text   string // the whole Error(), when set
	}{
		{name: "all links agree", intent: upicollect.Intent{Link: good, AppLinks: map[string]string{
			"phonepe": "phonepe://pay?pa=shop@okaxis&am=499&tr=ord_1",
			"gpay":    "tez://upi/pay?pa=shop%40okaxis&am=499.0&tr=ord_1",
		}}, params: p},
		{name: "no order id asked: tr not checked", intent: upicollect.Intent{Link: "upi://pay?pa=a@b&am=499.00&tr=utz_1"},
			params: &upicollect.IntentParams{Amount: upicollect.Rupees(499)}},
		{name: "wrong amount in an app link", intent: upicollect.Intent{Link: good, AppLinks: map[string]string{
			"paytm": "paytmmp://pay?pa=shop@okaxis&am=4999.00&tr=ord_1",
		}}, params: p, want: []upicollect.LinkMismatch{{Link: "paytm", Param: "am", Want: "499.00", Got: "4999.00"}}},
		{name: "other order and no amount", intent: upicollect.Intent{Link: "upi://pay?pa=shop@okaxis&tr=ord_2"}, params: p,
			want: []upicollect.LinkMismatch{
				{Link: "intent", Param: "am", Want: "499.00"},
				{Link: "intent", Param: "tr", Want: "ord_1", Got: "ord_2"},
			},
			text: `upicollect: intent links do not match the request: intent am: want "499.00", got none; intent tr: want "ord_1", got "ord_2"`},
		{name: "fraction of a paisa", intent: upicollect.Intent{Link: "upi://pay?pa=s@o&am=499.001&tr=ord_1"}, params: p,
			want: []upicollect.LinkMismatch{{Link: "intent", Param: "am", Want: "499.00", Got: "499.001"}}},
		{name: "not a UPI link", intent: upicollect.Intent{Link: "javascript:alert(1)"}, params: p,
			want: []upicollect.LinkMismatch{{Link: "intent", Param: "link", Want: "a UPI link", Got: `upi link: link: scheme "javascript" is not a UPI app's`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.intent.Verify(tt.params)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var ve *upicollect.VerifyError
			require.True(t, errors.As(err, &ve), "%v", err)
			assert.Equal(t, tt.want, ve.Mismatches)
			assert.Contains(t, err.Error(), "intent links do not match")
			if tt.text != "" {
				assert.Equal(t, tt.text, err.Error())
			}
		})
	}
	var nilIntent *upicollect.Intent
	assert.Error(t, nilIntent.Verify(p))
	assert.Error(t, (&upicollect.Intent{Link: good}).Verify(nil))
}

func TestIntentVerifyAgainstSandbox(t *testing.T) {
	// The sandbox's links are the shapes the live service sends.
	sb := sandbox.Start(t, sandbox.Strict())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := &upicollect.IntentParams{
		Amount: upicollect.Rupees(250), OrderID: upicollect.NewOrderID(), RedirectURL: "https://shop.example/return",
		Note: "Verify", Customer: upicollect.Customer{Name: "Asha", Email: "asha@example.com", Mobile: "9876543210"},
	}
	in, err := sb.Client().CreatePaymentIntent(ctx, p)
	require.NoError(t, err)
	require.NotEmpty(t, in.AppLinks)
	assert.NoError(t, in.Verify(p))
}
