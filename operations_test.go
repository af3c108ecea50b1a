package upicollect_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

// TestOperationsSendExactRequests checks, over loopback HTTP, what each
// operation puts on the wire: method, path below the base URL's prefix,
// headers, and the exact form body.
func TestOperationsSendExactRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		op    string
		input func() createInput
		want  url.Values
	}{
		{
			name:  "intent with order id",
			op:    opIntent,
			input: validInput,
			want: url.Values{
				"mid": {testMID}, "amount": {"499"}, "order_id": {testOrderID},
				"redirect_url": {testRedirect}, "note": {testNote},
				"customer_name": {testName}, "customer_email": {testEmail}, "customer_mobile": {testMobileSent},
			},
		},
		{
			name: "intent without order id, amount at the maximum",
			op:   opIntent,
			input: func() createInput {
				in := validInput()
				in.OrderID = ""
				in.Amount = upicollect.Rupees(100000)
				in.Customer.Mobile = "09876543210"
				return in
			},
			want: url.Values{
				"mid": {testMID}, "amount": {"100000"}, "order_id": {anyNewOrderID},
				"redirect_url": {testRedirect}, "note": {testNote},
				"customer_name": {testName}, "customer_email": {testEmail}, "customer_mobile": {testMobileSent},
			},
		},
		{
			name:  "request with order id",
			op:    opRequest,
			input: validInput,
			want: url.Values{
				"mid": {testMID}, "amount": {"499"}, "order_id": {testOrderID}, "vpa": {testVPA},
				"note": {testNote}, "customer_name": {testName}, "customer_email": {testEmail},
				"customer_mobile": {testMobileSent},
			},
		},
		{
			name: "request without order id, amount at the minimum",
			op:   opRequest,
			input: func() createInput {
				in := validInput()
				in.OrderID = ""
				in.Amount = upicollect.Rupees(1)
				in.Customer.Mobile = "919876543210"
				return in
			},
			want: url.Values{
				"mid": {testMID}, "amount": {"1"}, "order_id": {anyNewOrderID}, "vpa": {testVPA},
				"note": {testNote}, "customer_name": {testName}, "customer_email": {testEmail},
				"customer_mobile": {testMobileSent},
			},
		},
		{
			name:  "link",
			op:    opLink,
			input: validInput,
			want: url.Values{
				"mid": {testMID}, "amount": {"499"}, "note": {testNote},
				"customer_name": {testName}, "customer_email": {testEmail}, "customer_mobile": {testMobileSent},
			},
		},
		{
			name: "status",
			op:   opStatus,
			input: func() createInput {
				in := validInput()
				in.OrderID = testStatusOrder
				return in
			},
			want: url.Values{"mid": {testMID}, "order_id": {testStatusOrder}},
		},
		{
			name: "note and name with characters that need escaping",
			op:   opLink,
			input: func() createInput {
				in := validInput()
				in.Note = "Tea & biscuits = 2 × ₹10; 100% sure?"
				in.Customer.Name = "Zoë D'Souza+Co"
				in.Customer.Email = "zoe+shop@example.co.in"
				in.Customer.Mobile = "98765 43210"
				return in
			},
			want: url.Values{
				"mid": {testMID}, "amount": {"499"}, "note": {"Tea & biscuits = 2 × ₹10; 100% sure?"},
				"customer_name": {"Zoë D'Souza+Co"}, "customer_email": {"zoe+shop@example.co.in"},
				"customer_mobile": {testMobileSent},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, bySuccess(t))
			c, _ := newClient(t, srv.BaseURL())
			res, resp, err := tt.input().call(context.Background(), c, tt.op)
			require.NoError(t, err)
			require.NotNil(t, res)
			require.NotNil(t, resp)

			require.Equal(t, 1, srv.Count())
			got := srv.Last(t)
			assert.Equal(t, http.MethodPost, got.Method)
			assert.Equal(t, apiPrefix+"/v1/payments/"+tt.op, got.Path)
			assert.Empty(t, got.RawQuery, "parameters go in the body, never the query")
			assert.Equal(t, "application/x-www-form-urlencoded", got.Header.Get("Content-Type"))
			assert.Equal(t, []string{"application/json"}, got.Header.Values("Accept"))
			assert.Equal(t, basicAuth(testPublic, testSecret), got.Header.Get("Authorization"))
			assert.Equal(t, "Basic cHViOnNlY3JldA==", got.Header.Get("Authorization"))
			assert.True(t, strings.HasPrefix(got.Header.Get("User-Agent"), "upicollect-go/"+upicollect.Version+" "),
				"User-Agent %q", got.Header.Get("User-Agent"))
			require.NoError(t, got.FormErr)
			want := tt.want
			if want.Get("order_id") == anyNewOrderID {
				// Without an OrderID the client sets one from NewOrderID.
				sent := got.Form.Get("order_id")
				assert.Regexp(t, newOrderIDPattern, sent)
				want = cloneValues(want)
				want.Set("order_id", sent)
			}
			assert.Equal(t, want, got.Form)
		})
	}
}

// anyNewOrderID in a wanted form stands for an order id the client made
// with NewOrderID, which matches newOrderIDPattern.
const (
	anyNewOrderID     = "<NewOrderID>"
	newOrderIDPattern = `^ord_[a-z2-7]{26}$`
)

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

func TestUserAgentProduct(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, bySuccess(t))
	c, _ := newClient(t, srv.BaseURL(), upicollect.WithUserAgent("  acme-checkout/2.1 "))
	_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.NoError(t, err)
	ua := srv.Last(t).Header.Get("User-Agent")
	assert.True(t, strings.HasPrefix(ua, "upicollect-go/"+upicollect.Version+" (go"), ua)
	assert.True(t, strings.HasSuffix(ua, ") acme-checkout/2.1"), ua)
}

// TestBaseURLTrailingSlash checks that a base URL ending in "/" does not
// make a double slash.
func TestBaseURLTrailingSlash(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, bySuccess(t))
	c, _ := newClient(t, srv.BaseURL()+"/")
	assert.Equal(t, srv.BaseURL(), c.BaseURL())
	assert.Equal(t, testMID, c.MID())
	_, err := c.CheckPaymentStatus(context.Background(), testStatusOrder)
	require.NoError(t, err)
	assert.Equal(t, apiPrefix+"/v1/payments/checkPaymentStatus", srv.Last(t).Path)
}

// TestDoOpName: Do names its errors after the path's last segment.
func TestDoOpName(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t, "http://127.0.0.1:1")
	for path, want := range map[string]string{"//evil": "evil", "/a/../refund": "refund", "/x?y=1": "x?y=1", "refund": "refund"} {
		_, err := c.Do(context.Background(), path, nil, nil)
		var ve *upicollect.ValidationError
		require.ErrorAs(t, err, &ve, path)
		assert.Equal(t, want, ve.Op, path)
	}
}

// TestDoOpNameEscaped: Do's operation, the end of the caller's path, is
// escaped in its errors' text: a CR LF in it cannot forge a line of a log
// or a header-like line, and a long one is cut. The field keeps it as given.
func TestDoOpNameEscaped(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, always(http.StatusBadRequest, []byte(`{"status":false,"statusCode":400,"msg":"no"}`)))
	c, _ := newClient(t, srv.BaseURL())
	for path, want := range map[string]string{
		"/v1/a\r\nX-Injected: 1": `upicollect: "a\r\nX-Injected: 1": invalid parameters: path: `,
		"/v1/a\"b\x00":           `upicollect: "a\"b\x00": invalid parameters: path: `,
		"refund":                 "upicollect: refund: invalid parameters: path: ",
	} {
		_, err := c.Do(context.Background(), path, nil, nil)
		var ve *upicollect.ValidationError
		require.ErrorAs(t, err, &ve, path)
		assert.True(t, strings.HasPrefix(err.Error(), want), "%q", err.Error())
		assert.NotContains(t, err.Error(), "\n")
		assert.Equal(t, path[strings.LastIndex(path, "/")+1:], ve.Op)
	}
	// An operation that passed validation is escaped in an *APIError too.
	_, err := c.Do(context.Background(), "/v1/refund%0D%0AX:1", nil, nil)
	var ae *upicollect.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "refund%0D%0AX:1", ae.Op)
	_, err = c.Do(context.Background(), "/v1/"+strings.Repeat("é", 40), nil, nil)
	require.ErrorAs(t, err, &ae)
	assert.True(t, strings.HasPrefix(err.Error(), `upicollect: "`+strings.Repeat("é", 32)+`"…: `), err.Error())
}
