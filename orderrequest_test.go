package upicollect_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// orderRequestAnswer is createOrderRequest's success as the vendor
// documents it.
const orderRequestAnswer = `{"status":true,"statusCode":200,"msg":"Order request created successfully",` +
	`"data":{"orderId":"%s","payment_url":"https:\/\/upitz.com\/checkout\/payment\/abc123"}}`

func orderParams() *upicollect.OrderRequestParams {
	return &upicollect.OrderRequestParams{
		Amount:      upicollect.Rupees(123),
		OrderID:     "utz_6540c1f2a3b4d",
		RedirectURL: "https://shop.example.com/wc-api/WC_Gateway/?order_id=1042&txn_id=utz_6540c1f2a3b4d",
		Note:        "Order #1042",
		Customer:    upicollect.Customer{Name: "Ravi Kumar", Email: "ravi@example.com", Mobile: "+91 98765-43210"},
	}
}

// answerOrder answers createOrderRequest with the documented success for
// the order_id the request carried.
func answerOrder(w http.ResponseWriter, r *http.Request, _ int) {
	_ = r.ParseForm()
	respond(w, 200, []byte(strings.ReplaceAll(orderRequestAnswer, "%s", r.PostForm.Get("order_id"))))
}

func TestCreateOrderRequestSendsTheIntentFields(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerOrder)
	c, _ := newClient(t, srv.BaseURL())
	p := orderParams()
	or, err := c.CreateOrderRequest(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, "utz_6540c1f2a3b4d", or.OrderID)
	assert.Equal(t, "https://upitz.com/checkout/payment/abc123", or.PaymentURL)
	assert.Equal(t, "Order request created successfully", or.Message)
	require.NotNil(t, or.Response)
	assert.Equal(t, 1, or.Response.Attempts)

	req := srv.Last(t)
	assert.Equal(t, http.MethodPost, req.Method)
	assert.Equal(t, apiPrefix+"/v1/payments/createOrderRequest", req.Path)
	assert.Equal(t, "application/x-www-form-urlencoded", req.Header.Get("Content-Type"))
	assert.Equal(t, basicAuth(testPublic, testSecret), req.Header.Get("Authorization"))
	assert.Equal(t, url.Values{
		"mid": {testMID}, "amount": {"123"}, "order_id": {"utz_6540c1f2a3b4d"},
		"redirect_url": {p.RedirectURL}, "note": {"Order #1042"}, "customer_name": {"Ravi Kumar"},
		"customer_email": {"ravi@example.com"}, "customer_mobile": {"9876543210"},
	}, req.Form)
}

func TestCreateOrderRequestValidatesAsAnIntent(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerOrder)
	c, _ := newClient(t, srv.BaseURL())
	_, err := c.CreateOrderRequest(context.Background(), nil)
	require.ErrorIs(t, err, upicollect.ErrValidation)

	_, err = c.CreateOrderRequest(context.Background(), &upicollect.OrderRequestParams{
		Amount: 150, OrderID: "bad id", RedirectURL: "ftp://x", Customer: upicollect.Customer{Mobile: "12"},
	})
	var verr *upicollect.ValidationError
	require.ErrorAs(t, err, &verr)
	assert.Equal(t, "createOrderRequest", verr.Op)
	var fields []string
	for _, f := range verr.Fields {
		fields = append(fields, f.Field)
	}
	assert.ElementsMatch(t, []string{"amount", "order_id", "redirect_url", "note", "customer_name",
		"customer_email", "customer_mobile"}, fields)
	assert.Zero(t, srv.Count(), "nothing is sent")
}

// TestCreateOrderRequestWithoutOrderID: the client sets an order id from
// NewOrderID before the first attempt, sends the same one on every retry,
// and names it in the result; the caller's params are not changed.
func TestCreateOrderRequestWithoutOrderID(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			respond(w, 503, failBody(t, 503))
			return
		}
		answerOrder(w, r, n)
	})
	c, clk := newClient(t, srv.BaseURL())
	p := orderParams()
	p.OrderID = ""
	or, err := c.CreateOrderRequest(context.Background(), p)
	require.NoError(t, err)
	assert.Empty(t, p.OrderID, "the params are not changed")
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "a keyed create is retried after a 503")
	sent := reqs[0].Form.Get("order_id")
	assert.Regexp(t, newOrderIDPattern, sent)
	assert.Equal(t, sent, reqs[1].Form.Get("order_id"), "one order id for every attempt")
	assert.Equal(t, sent, or.OrderID)
	assert.Equal(t, 2, or.Response.Attempts)
	assert.Len(t, clk.Sleeps(), 1)
}

// TestCreateOrderRequestErrorsNameTheOrder: an ambiguous failure of a
// create without OrderID is ErrOutcomeUnknown naming the order the client
// set, so the caller knows which order to check.
func TestCreateOrderRequestErrorsNameTheOrder(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, script(t, 500))
	c, _ := newClient(t, srv.BaseURL())
	p := orderParams()
	p.OrderID = ""
	_, err := c.CreateOrderRequest(context.Background(), p)
	assertSentinels(t, err, upicollect.ErrServer, upicollect.ErrOutcomeUnknown)
	var ae *upicollect.APIError
	require.ErrorAs(t, err, &ae)
	sent := srv.Requests()[0].Form.Get("order_id")
	assert.Equal(t, sent, ae.OrderID)
	assert.Equal(t, "createOrderRequest", ae.Op)
	assert.Contains(t, err.Error(), `outcome unknown for order "`+sent+`"`)
	assert.Equal(t, 3, srv.Count(), "retried: the order id makes it safe")
}

// TestCreateOrderRequestAnswers: the answer's payment_url must be an
// absolute http(s) URL; one without it, or with another scheme, is
// ErrUnexpectedResponse and ErrOutcomeUnknown (the order may exist).
func TestCreateOrderRequestAnswers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, body string
		wantURL    string
		wantOrder  string
		is         []error
	}{
		{name: "documented", body: `{"status":true,"statusCode":200,"msg":"ok","data":{"orderId":"utz_x1","payment_url":"https://upitz.com/checkout/payment/1"}}`,
			wantURL: "https://upitz.com/checkout/payment/1", wantOrder: "utz_x1"},
		{name: "order_id key and string statusCode", body: `{"status":true,"statusCode":"200","msg":"ok","data":{"order_id":"utz_x2","payment_url":"http://127.0.0.1:8787/checkout/utz_x2"}}`,
			wantURL: "http://127.0.0.1:8787/checkout/utz_x2", wantOrder: "utz_x2"},
		{name: "no orderId: the one sent", body: `{"status":true,"statusCode":200,"msg":"ok","data":{"payment_url":"https://upitz.com/p/2"}}`,
			wantURL: "https://upitz.com/p/2", wantOrder: "utz_6540c1f2a3b4d"},
		{name: "no payment_url", body: `{"status":true,"statusCode":200,"msg":"ok","data":{"orderId":"utz_x3"}}`,
			is: []error{upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown}},
		{name: "javascript payment_url", body: `{"status":true,"statusCode":200,"msg":"ok","data":{"orderId":"utz_x4","payment_url":"javascript:alert(1)"}}`,
			is: []error{upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown}},
		{name: "relative payment_url", body: `{"status":true,"statusCode":200,"msg":"ok","data":{"payment_url":"/checkout/1"}}`,
			is: []error{upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown}},
		{name: "data not an object", body: `{"status":true,"statusCode":200,"msg":"ok","data":"payment_url=https://upitz.com/p/3"}`,
			is: []error{upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown}},
		{name: "no data", body: `{"status":true,"statusCode":200,"msg":"ok"}`,
			is: []error{upicollect.ErrUnexpectedResponse, upicollect.ErrOutcomeUnknown}},
		{name: "duplicate", body: `{"status":false,"statusCode":409,"msg":"Order ID already exists"}`,
			is: []error{upicollect.ErrDuplicateOrderID}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, always(200, []byte(tt.body)))
			c, _ := newClient(t, srv.BaseURL())
			p := orderParams()
			if tt.wantOrder != "" {
				p.OrderID = tt.wantOrder // the answer names the order sent
			}
			or, err := c.CreateOrderRequest(context.Background(), p)
			if tt.is != nil {
				assertSentinels(t, err, tt.is...)
				var ae *upicollect.APIError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, "utz_6540c1f2a3b4d", ae.OrderID)
				assert.Nil(t, or)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantURL, or.PaymentURL)
			assert.Equal(t, tt.wantOrder, or.OrderID)
		})
	}
}

// TestCreateOrderRequestContext: the context bounds the call; a deadline
// that passes mid-request is ErrOutcomeUnknown and DeadlineExceeded.
func TestCreateOrderRequestContext(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, script(t, -1))
	c, _ := newClient(t, srv.BaseURL())
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.CreateOrderRequest(ctx, orderParams())
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), err)
	assertSentinels(t, err, upicollect.ErrOutcomeUnknown)
	assert.Equal(t, 1, srv.Count())
}
