package sandbox

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/internal/vocab"
)

func TestEnvelopesGolden(t *testing.T) {
	tests := []struct {
		name   string
		code   int
		answer func(t *testing.T, s *Server) answer
	}{
		{"intent_success", 200, func(t *testing.T, s *Server) answer {
			return call(t, s, OpCreatePaymentIntent, intentForm(s))
		}},
		{"intent_with_order_id", 200, func(t *testing.T, s *Server) answer {
			return call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "shop-1001"))
		}},
		{"request_success", 200, func(t *testing.T, s *Server) answer {
			return call(t, s, OpCreatePaymentRequest, requestForm(s))
		}},
		{"link_success", 200, func(t *testing.T, s *Server) answer {
			return call(t, s, OpCreatePaymentLink, linkForm(s))
		}},
		{"duplicate_409", 409, func(t *testing.T, s *Server) answer {
			require.Equal(t, 200, call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "dup-1")).code)
			// Unique across intents and requests.
			return call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "dup-1"))
		}},
		{"missing_auth", 401, func(t *testing.T, s *Server) answer {
			return send(t, s, newReq(t, s, OpCreatePaymentLink, "application/x-www-form-urlencoded",
				strings.NewReader(linkForm(s).Encode())))
		}},
		{"invalid_credentials_401", 401, func(t *testing.T, s *Server) answer {
			req := newReq(t, s, OpCreatePaymentLink, "application/x-www-form-urlencoded",
				strings.NewReader(linkForm(s).Encode()))
			req.SetBasicAuth(s.Credentials().PublicKey, "sk_wrong")
			return send(t, s, req)
		}},
		{"invalid_amount_400", 400, func(t *testing.T, s *Server) answer {
			return call(t, s, OpCreatePaymentLink, with(linkForm(s), "amount", "1.5"))
		}},
		{"status_pending", 200, func(t *testing.T, s *Server) answer {
			return call(t, s, OpCheckPaymentStatus, statusForm(s, "no-such-order"))
		}},
		{"status_success", 200, func(t *testing.T, s *Server) answer {
			return paidStatus(t, s)
		}},
		{"status_fail", 200, func(t *testing.T, s *Server) answer {
			return settledStatus(t, s, StatusFail)
		}},
		{"status_reject", 200, func(t *testing.T, s *Server) answer {
			return settledStatus(t, s, StatusReject)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixed(t)
			a := tt.answer(t, s)
			assert.Equal(t, tt.code, a.code)
			assert.Equal(t, "application/json", a.header.Get("Content-Type"))
			golden(t, s, tt.name, a)
		})
	}
}

// paidStatus creates an intent, pays it and checks its status.
func paidStatus(t *testing.T, s *Server) answer {
	t.Helper()
	a := call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "shop-2002"))
	require.Equal(t, 200, a.code, "%s", a.body)
	utr, err := s.Pay("shop-2002")
	require.NoError(t, err)
	require.Regexp(t, `^[0-9]{12}$`, utr)
	return call(t, s, OpCheckPaymentStatus, statusForm(s, "shop-2002"))
}

func settledStatus(t *testing.T, s *Server, result string) answer {
	t.Helper()
	a := call(t, s, OpCreatePaymentRequest, with(requestForm(s), "order_id", "shop-3003"))
	require.Equal(t, 200, a.code, "%s", a.body)
	_, err := s.SettleWith("shop-3003", Settlement{Result: result})
	require.NoError(t, err)
	return call(t, s, OpCheckPaymentStatus, statusForm(s, "shop-3003"))
}

func TestIntentAnswer(t *testing.T) {
	s := fixed(t)
	d := call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", "a&b/c#1")).json(t)["data"].(map[string]any)
	q := "pa=sandbox.merchant@upicollect&pn=Sandbox%20Merchant&am=499.00&tr=a%26b%2Fc%231&tn=Order%20%2342%20%26%20more&cu=INR"
	assert.Equal(t, "upi://pay?"+q, d["intent"])
	assert.Equal(t, "phonepe://pay?"+q, d["phonepe"])
	assert.Equal(t, "paytmmp://pay?"+q, d["paytm"])
	assert.Equal(t, "tez://upi/pay?"+q, d["gpay"])
	assert.Equal(t, s.URL()+"/sandbox/qr/a&b%2Fc%231.png", d["dynamicQR"])
	assert.Equal(t, "2025-01-15 15:35:00", d["expiry"]) // 10:00 UTC + 5 min, in India
	assert.Equal(t, "499", d["amount"])
	u, err := url.Parse(d["intent"].(string))
	require.NoError(t, err)
	assert.Equal(t, "Order #42 & more", u.Query().Get("tn"))
	assert.Equal(t, "a&b/c#1", u.Query().Get("tr"))
}

func TestGeneratedOrderIDs(t *testing.T) {
	s := Start(t)
	seen := map[string]bool{}
	for range 20 {
		d := call(t, s, OpCreatePaymentRequest, requestForm(s)).json(t)["data"].(map[string]any)
		id := d["orderId"].(string)
		assert.Regexp(t, `^utz_[0-9a-f]{13}$`, id, "like the live service's ids")
		assert.Equal(t, url.PathEscape(id), id)
		assert.False(t, seen[id], "duplicate id %s", id)
		seen[id] = true
		assert.Equal(t, s.URL()+"/sandbox/pay/"+id, d["payment_url"])
	}
	assert.Equal(t, 20, len(s.Orders()))
}

func TestValidation(t *testing.T) {
	s := fixed(t)
	tests := []struct {
		name       string
		op         string
		form       url.Values
		code       int
		msg        string
		strictOnly bool // refused only under Strict; accepted and ignored by default
	}{
		{"amount zero", OpCreatePaymentLink, with(linkForm(s), "amount", "0"), 400, "amount must be", false},
		{"amount two decimals", OpCreatePaymentIntent, with(intentForm(s), "amount", "499.00"), 200, "", false},
		{"amount one decimal", OpCreatePaymentIntent, with(intentForm(s), "amount", "499.0"), 200, "", false},
		{"amount fraction", OpCreatePaymentIntent, with(intentForm(s), "amount", "499.50"), 400, "amount must be a whole number of rupees", false},
		{"amount paisa", OpCreatePaymentLink, with(linkForm(s), "amount", "1.01"), 400, "amount must be a whole number of rupees", false},
		{"amount over max", OpCreatePaymentRequest, with(requestForm(s), "amount", "100001"), 400, "amount must be", false},
		{"amount over max decimals", OpCreatePaymentRequest, with(requestForm(s), "amount", "100000.01"), 400, "amount must be", false},
		{"amount max", OpCreatePaymentRequest, with(requestForm(s), "amount", "100000"), 200, "", false},
		{"amount negative", OpCreatePaymentLink, with(linkForm(s), "amount", "-5"), 400, "amount must be", false},
		{"amount text", OpCreatePaymentLink, with(linkForm(s), "amount", "ten"), 400, "amount must be", false},
		{"amount comma", OpCreatePaymentLink, with(linkForm(s), "amount", "1,000"), 400, "amount must be", false},
		{"amount missing", OpCreatePaymentLink, without(linkForm(s), "amount"), 400, "amount is required", false},
		{"mid missing", OpCreatePaymentLink, without(linkForm(s), "mid"), 400, "mid is required", false},
		{"mid wrong", OpCreatePaymentLink, with(linkForm(s), "mid", "OTHER"), 401, "Invalid mid", false},
		{"redirect relative", OpCreatePaymentIntent, with(intentForm(s), "redirect_url", "/done"), 400, "redirect_url must be", false},
		{"redirect ftp", OpCreatePaymentIntent, with(intentForm(s), "redirect_url", "ftp://x.example/"), 400, "redirect_url must be", false},
		{"redirect missing", OpCreatePaymentIntent, without(intentForm(s), "redirect_url"), 400, "redirect_url is required", false},
		{"vpa no bank", OpCreatePaymentRequest, with(requestForm(s), "vpa", "ravi"), 400, "vpa must", false},
		{"vpa space", OpCreatePaymentRequest, with(requestForm(s), "vpa", "ravi kumar@oksbi"), 400, "vpa must", false},
		{"note blank", OpCreatePaymentLink, with(linkForm(s), "note", "  "), 400, "note must not be empty", false},
		{"name blank", OpCreatePaymentLink, with(linkForm(s), "customer_name", ""), 400, "customer_name must not be empty", false},
		{"email bad", OpCreatePaymentLink, with(linkForm(s), "customer_email", "Ravi <ravi@example.com>"), 400, "customer_email must", false},
		{"email no tld", OpCreatePaymentLink, with(linkForm(s), "customer_email", "ravi@localhost"), 400, "customer_email must", false},
		{"mobile prefixed", OpCreatePaymentIntent, with(intentForm(s), "customer_mobile", "+919876543210"), 400, "customer_mobile must", false},
		{"mobile short", OpCreatePaymentLink, with(linkForm(s), "customer_mobile", "98765"), 400, "customer_mobile must", false},
		{"order_id empty", OpCreatePaymentIntent, with(intentForm(s), "order_id", ""), 400, "order_id must be", false},
		{"order_id space", OpCreatePaymentIntent, with(intentForm(s), "order_id", "a b\t"), 400, "order_id must be", false},
		{"order_id too long", OpCreatePaymentRequest, with(requestForm(s), "order_id", strings.Repeat("x", 101)), 400, "order_id must be", false},
		{"status no order", OpCheckPaymentStatus, without(statusForm(s, "x"), "order_id"), 400, "order_id is required", false},
		{"link order_id", OpCreatePaymentLink, with(linkForm(s), "order_id", "x1"), 400, "order_id is not accepted by createPaymentLink", true},
		{"intent vpa", OpCreatePaymentIntent, with(intentForm(s), "vpa", "a@b"), 400, "vpa is not accepted by createPaymentIntent", true},
		{"request redirect", OpCreatePaymentRequest, with(requestForm(s), "redirect_url", "https://x.example"), 400, "redirect_url is not accepted", true},
		{"status extra", OpCheckPaymentStatus, with(statusForm(s, "x"), "amount", "1"), 400, "amount is not accepted by checkPaymentStatus", true},
		{"unknown field", OpCreatePaymentLink, with(linkForm(s), "woo_order_id", "7"), 400, "woo_order_id is not accepted", true},
	}
	for _, strict := range []bool{false, true} {
		opts := []Option{}
		if strict {
			opts = append(opts, Strict())
		}
		srv := fixed(t, opts...)
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/strict=%v", tt.name, strict), func(t *testing.T) {
				code := tt.code
				if tt.strictOnly && !strict {
					code = 200
				}
				a := call(t, srv, tt.op, tt.form)
				assert.Equal(t, code, a.code, "%s", a.body)
				m := a.json(t)
				if code != 200 {
					assert.Equal(t, false, m["status"])
					assert.EqualValues(t, code, m["statusCode"])
					assert.Contains(t, m["msg"], tt.msg)
					assert.NotContains(t, m, "data")
				}
			})
		}
	}
	// An ignored order_id does not name the link's order.
	o := s.Orders()
	assert.Empty(t, o, "forms were built from s; orders went to the servers above")
}

func TestBodyEncodings(t *testing.T) {
	s := fixed(t)
	creds := s.Credentials()
	multipartBody := func(fields map[string]string, file bool) (string, *bytes.Buffer) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for k, v := range fields {
			require.NoError(t, mw.WriteField(k, v))
		}
		if file {
			fw, err := mw.CreateFormFile("note", "n.txt")
			require.NoError(t, err)
			_, _ = fw.Write([]byte("x"))
		}
		require.NoError(t, mw.Close())
		return mw.FormDataContentType(), &buf
	}
	linkFields := map[string]string{"mid": creds.MID, "amount": "10", "note": "n", "customer_name": "R",
		"customer_email": "r@example.com", "customer_mobile": "9876543210"}
	mpType, mpBody := multipartBody(linkFields, false)
	fileType, fileBody := multipartBody(map[string]string{"mid": creds.MID}, true)
	tests := []struct {
		name        string
		contentType string
		body        string
		code        int
		msg         string
	}{
		{"json numbers", "application/json",
			`{"mid":"` + creds.MID + `","amount":499,"note":"n","customer_name":"R","customer_email":"r@example.com","customer_mobile":"9876543210"}`, 200, ""},
		{"json strings", "application/json; charset=utf-8",
			`{"mid":"` + creds.MID + `","amount":"499","note":"n","customer_name":"R","customer_email":"r@example.com","customer_mobile":"9876543210"}`, 200, ""},
		{"json sniffed", "",
			`{"mid":"` + creds.MID + `","amount":"5","note":"n","customer_name":"R","customer_email":"r@example.com","customer_mobile":"9876543210"}`, 200, ""},
		{"json decimal", "application/json", `{"mid":"` + creds.MID + `","amount":499.5}`, 400, "amount must be"},
		{"json nested", "application/json", `{"mid":{"a":1}}`, 400, "mid must be a string or a number"},
		{"json bool", "application/json", `{"mid":true}`, 400, "mid must be a string or a number"},
		{"json dup", "application/json", `{"mid":"a","mid":"b"}`, 400, "mid must be given once"},
		{"json array", "application/json", `["mid"]`, 400, "body must be a JSON object"},
		{"json trailing", "application/json", `{"mid":"a"} {}`, 400, "body must hold one JSON object"},
		{"json broken", "application/json", `{"mid":"a"`, 400, "not valid JSON"},
		{"json broken value", "application/json", `{"mid":}`, 400, "not valid JSON"},
		{"form dup", "application/x-www-form-urlencoded", "mid=a&mid=b", 400, "mid must be given once"},
		{"form broken", "application/x-www-form-urlencoded", "mid=%zz", 400, "not valid form encoding"},
		{"multipart", mpType, mpBody.String(), 200, ""},
		{"multipart file", fileType, fileBody.String(), 400, "note must not be a file"},
		{"multipart no boundary", "multipart/form-data", "x", 400, "without boundary"},
		{"multipart broken", "multipart/form-data; boundary=zz", "garbage", 400, "not valid multipart"},
		{"xml", "text/xml", "<a/>", 415, "Content-Type must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := newReq(t, s, OpCreatePaymentLink, tt.contentType, strings.NewReader(tt.body))
			req.SetBasicAuth(creds.PublicKey, creds.SecretKey)
			a := send(t, s, req)
			assert.Equal(t, tt.code, a.code, "%s", a.body)
			if tt.msg != "" {
				assert.Contains(t, a.json(t)["msg"], tt.msg)
			}
		})
	}
}

func TestAuthAndRouting(t *testing.T) {
	s := fixed(t)
	creds := s.Credentials()
	body := linkForm(s).Encode()
	tests := []struct {
		name   string
		method string
		path   string
		auth   string
		code   int
		key    string
		msg    string
	}{
		{"missing auth", "POST", "/v1/payments/createPaymentLink", "", 401, "message", "Authorization header is required"},
		{"not basic", "POST", "/v1/payments/createPaymentLink", "Bearer x", 401, "msg", "Invalid credentials"},
		{"wrong public key", "POST", "/v1/payments/createPaymentLink", basic("pk_x", creds.SecretKey), 401, "msg", "Invalid credentials"},
		{"swapped keys", "POST", "/v1/payments/createPaymentLink", basic(creds.SecretKey, creds.PublicKey), 401, "msg", "Invalid credentials"},
		{"get", "GET", "/v1/payments/createPaymentLink", basic(creds.PublicKey, creds.SecretKey), 405, "msg", "Method not allowed"},
		{"put", "PUT", "/v1/payments/checkPaymentStatus", basic(creds.PublicKey, creds.SecretKey), 405, "msg", "Method not allowed"},
		{"unknown op", "POST", "/v1/payments/refund", basic(creds.PublicKey, creds.SecretKey), 404, "msg", "Unknown operation refund"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, s.URL()+tt.path, strings.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			a := send(t, s, req)
			assert.Equal(t, tt.code, a.code)
			m := a.json(t)
			assert.Equal(t, tt.msg, strings.SplitN(m[tt.key].(string), ";", 2)[0])
			if tt.code == 405 {
				assert.Equal(t, "POST", a.header.Get("Allow"))
			}
		})
	}
	assert.Zero(t, len(s.Orders()))
}

func basic(user, pass string) string {
	r, _ := http.NewRequest("GET", "http://x", nil)
	r.SetBasicAuth(user, pass)
	return r.Header.Get("Authorization")
}

func TestBodyTooLarge(t *testing.T) {
	s := fixed(t)
	a := call(t, s, OpCreatePaymentLink, with(linkForm(s), "note", strings.Repeat("n", maxBodySize)))
	assert.Equal(t, 413, a.code)
	assert.Equal(t, "Request body too large", a.json(t)["msg"])
}

func TestWithCredentials(t *testing.T) {
	s := Start(t, WithCredentials(credentials("M1", "pk_1", "sk_1")))
	c := s.Credentials()
	assert.Equal(t, credentials("M1", "pk_1", "sk_1"), c)
	assert.Equal(t, 200, call(t, s, OpCreatePaymentLink, linkForm(s)).code)

	d := Start(t) // defaults
	assert.Equal(t, DefaultMID, d.Credentials().MID)
	assert.Regexp(t, `^pk_sandbox_[0-9a-f]{16}$`, d.Credentials().PublicKey)
	assert.Regexp(t, `^sk_sandbox_[0-9a-f]{32}$`, d.Credentials().SecretKey)
}

func TestSettleRules(t *testing.T) {
	clock := newFakeClock()
	s := Start(t, WithClock(clock.Now), WithIntentTTL(time.Minute))
	for _, id := range []string{"i1", "i2", "i3"} {
		require.Equal(t, 200, call(t, s, OpCreatePaymentIntent, with(intentForm(s), "order_id", id)).code)
	}
	_, err := s.SettleWith("i1", Settlement{Result: "MAYBE"})
	assert.ErrorIs(t, err, ErrInvalidResult)
	_, err = s.SettleWith("i1", Settlement{Result: StatusSuccess, UTR: "not a utr!"})
	assert.ErrorIs(t, err, ErrInvalidUTR)
	_, err = s.SettleWith("nope", Settlement{Result: StatusSuccess})
	assert.ErrorIs(t, err, ErrOrderNotFound)
	o, err := s.SettleWith("i1", Settlement{Result: StatusSuccess, UTR: "AXIS0001"})
	require.NoError(t, err)
	assert.Equal(t, "AXIS0001", o.UTR)
	assert.Equal(t, t0, o.SettledAt)
	_, err = s.Pay("i1")
	assert.ErrorIs(t, err, ErrOrderSettled)

	clock.Advance(time.Minute + time.Second)
	_, err = s.Pay("i2")
	assert.ErrorIs(t, err, ErrIntentExpired)
	o, err = s.SettleWith("i2", Settlement{Result: StatusReject})
	require.NoError(t, err, "an expired intent can still be rejected")
	assert.Empty(t, o.UTR)

	orders := s.Orders()
	require.Len(t, orders, 3)
	assert.Equal(t, []string{"i1", "i2", "i3"}, []string{orders[0].OrderID, orders[1].OrderID, orders[2].OrderID})
	assert.Equal(t, []string{StatusSuccess, StatusReject, StatusPending}, []string{orders[0].Status, orders[1].Status, orders[2].Status})
	o, ok := s.Order("i3")
	require.True(t, ok)
	assert.Equal(t, Order{
		OrderID: "i3", Kind: KindIntent, MID: DefaultMID, AmountPaise: 49900, Amount: "499.00",
		Note: "Order #42 & more", Customer: Customer{"Ravi Kumar", "ravi@example.com", "9876543210"},
		RedirectURL: "https://shop.example/done", Status: StatusPending, CreatedAt: t0,
		ExpiresAt: t0.Add(time.Minute), seq: o.seq,
	}, o)
	_, ok = s.Order("nope")
	assert.False(t, ok)
}

func TestRupees(t *testing.T) {
	for paise, want := range map[int64][2]string{49900: {"499.00", "499"}, 108: {"1.08", "1.08"}, 150: {"1.50", "1.5"}, 5: {"0.05", "0.05"}} {
		assert.Equal(t, want[0], vocab.FormatRupees(paise))
		assert.Equal(t, want[1], rupeesNumber(paise))
	}
}

// TestVocabulary holds the exported operation names, written out for the
// documentation, equal to the vocabulary the SDK uses.
func TestVocabulary(t *testing.T) {
	assert.Equal(t, vocab.OpCreatePaymentIntent, OpCreatePaymentIntent)
	assert.Equal(t, vocab.OpCreatePaymentRequest, OpCreatePaymentRequest)
	assert.Equal(t, vocab.OpCreatePaymentLink, OpCreatePaymentLink)
	assert.Equal(t, vocab.OpCheckPaymentStatus, OpCheckPaymentStatus)
	assert.Equal(t, vocab.OpCreateOrderRequest, OpCreateOrderRequest)
	assert.Len(t, opFields, 5, "every operation has a name above")
}
