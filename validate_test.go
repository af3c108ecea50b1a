package upicollect_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

var createOps = []string{opIntent, opRequest, opLink}

// TestValidation runs every rule of the validation table against each create
// operation that takes the field. An invalid case must name exactly the
// wire fields at fault and send nothing; a valid case must send the
// normalised value.
func TestValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		ops    []string // the operations the case applies to; nil = every create
		mutate func(*createInput)
		fields []string // wire names of the fields at fault; nil = valid
		mobile string   // for a valid case: the customer_mobile sent
	}{
		// amount: whole rupees, 1..100000
		{name: "amount 1 rupee", mutate: func(in *createInput) { in.Amount = upicollect.Rupees(1) }},
		{name: "amount 100000 rupees", mutate: func(in *createInput) { in.Amount = upicollect.Rupees(100000) }},
		{name: "amount 1.50", mutate: func(in *createInput) { in.Amount = 150 }, fields: []string{"amount"}},
		{name: "amount 0.01", mutate: func(in *createInput) { in.Amount = 1 }, fields: []string{"amount"}},
		{name: "amount 0", mutate: func(in *createInput) { in.Amount = 0 }, fields: []string{"amount"}},
		{name: "amount -1", mutate: func(in *createInput) { in.Amount = upicollect.Rupees(-1) }, fields: []string{"amount"}},
		{name: "amount 100001", mutate: func(in *createInput) { in.Amount = upicollect.Rupees(100001) }, fields: []string{"amount"}},
		{name: "amount 100000.50", mutate: func(in *createInput) { in.Amount = upicollect.Rupees(100000) + 50 }, fields: []string{"amount"}},
		{name: "amount overflowing to 499", mutate: func(in *createInput) { in.Amount = upicollect.Rupees(1<<62 + 499) }, fields: []string{"amount"}},
		{name: "amount MaxInt64/100 rupees", mutate: func(in *createInput) { in.Amount = upicollect.Rupees(math.MaxInt64 / 100) }, fields: []string{"amount"}},
		{name: "amount MinInt64 rupees", mutate: func(in *createInput) { in.Amount = upicollect.Rupees(math.MinInt64) }, fields: []string{"amount"}},

		// order_id: optional, no whitespace or control characters
		{name: "order_id empty", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "" }},
		{name: "order_id from NewOrderID", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = upicollect.NewOrderID() }},
		{name: "order_id unicode", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD-आदेश-1" }},
		{name: "order_id space", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD 1" }, fields: []string{"order_id"}},
		{name: "order_id leading space", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = " ORD1" }, fields: []string{"order_id"}},
		{name: "order_id tab", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\t1" }, fields: []string{"order_id"}},
		{name: "order_id newline", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD1\n" }, fields: []string{"order_id"}},
		{name: "order_id NUL", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\x001" }, fields: []string{"order_id"}},
		{name: "order_id DEL", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\x7f1" }, fields: []string{"order_id"}},
		{name: "order_id no-break space", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\u00a01" }, fields: []string{"order_id"}},
		{name: "order_id at the cap", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = strings.Repeat("A", upicollect.MaxOrderIDLen) }},
		{name: "order_id one byte over the cap", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = strings.Repeat("A", upicollect.MaxOrderIDLen+1) }, fields: []string{"order_id"}},
		{name: "order_id of 1 MB", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = strings.Repeat("A", 1<<20) }, fields: []string{"order_id"}},
		{name: "order_id invalid UTF-8", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\xff1" }, fields: []string{"order_id"}},
		{name: "order_id cut UTF-8", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD-\xe0\xa4" }, fields: []string{"order_id"}},
		{name: "order_id replacement character", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\ufffd1" }, fields: []string{"order_id"}},
		{name: "order_id zero-width space", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\u200b1" }, fields: []string{"order_id"}},
		{name: "order_id zero-width joiner", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\u200d1" }, fields: []string{"order_id"}},
		{name: "order_id bidi override", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\u202e1" }, fields: []string{"order_id"}},
		{name: "order_id left-to-right mark", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\u200e1" }, fields: []string{"order_id"}},
		{name: "order_id byte order mark", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "\ufeffORD1" }, fields: []string{"order_id"}},
		{name: "order_id soft hyphen", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\u00ad1" }, fields: []string{"order_id"}},
		{name: "order_id line separator", ops: []string{opIntent, opRequest}, mutate: func(in *createInput) { in.OrderID = "ORD\u20281" }, fields: []string{"order_id"}},

		// redirect_url: absolute http or https
		{name: "redirect_url http", ops: []string{opIntent}, mutate: func(in *createInput) { in.RedirectURL = "http://shop.example.com/back" }},
		{name: "redirect_url empty", ops: []string{opIntent}, mutate: func(in *createInput) { in.RedirectURL = "" }, fields: []string{"redirect_url"}},
		{name: "redirect_url relative", ops: []string{opIntent}, mutate: func(in *createInput) { in.RedirectURL = "/return" }, fields: []string{"redirect_url"}},
		{name: "redirect_url scheme-relative", ops: []string{opIntent}, mutate: func(in *createInput) { in.RedirectURL = "//shop.example.com/return" }, fields: []string{"redirect_url"}},
		{name: "redirect_url ftp", ops: []string{opIntent}, mutate: func(in *createInput) { in.RedirectURL = "ftp://shop.example.com/return" }, fields: []string{"redirect_url"}},
		{name: "redirect_url javascript", ops: []string{opIntent}, mutate: func(in *createInput) { in.RedirectURL = "javascript:alert(1)" }, fields: []string{"redirect_url"}},
		{name: "redirect_url no host", ops: []string{opIntent}, mutate: func(in *createInput) { in.RedirectURL = "https:///return" }, fields: []string{"redirect_url"}},
		{name: "redirect_url malformed", ops: []string{opIntent}, mutate: func(in *createInput) { in.RedirectURL = "https://shop example.com/" }, fields: []string{"redirect_url"}},
		{name: "redirect_url at the cap", ops: []string{opIntent}, mutate: func(in *createInput) {
			in.RedirectURL = ofLen("https://shop.example.com/", upicollect.MaxRedirectURLLen, "")
		}},
		{name: "redirect_url one byte over the cap", ops: []string{opIntent}, mutate: func(in *createInput) {
			in.RedirectURL = ofLen("https://shop.example.com/", upicollect.MaxRedirectURLLen+1, "")
		}, fields: []string{"redirect_url"}},

		// vpa: <handle>@<bank_handle>
		{name: "vpa with . - _", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "ravi.kumar-1_x@ok-hdfc.bank2" }},
		{name: "vpa digits", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "9876543210@ybl" }},
		{name: "vpa empty", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "" }, fields: []string{"vpa"}},
		{name: "vpa no @", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "ravi.kumar" }, fields: []string{"vpa"}},
		{name: "vpa no handle", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "@oksbi" }, fields: []string{"vpa"}},
		{name: "vpa no bank", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "ravi@" }, fields: []string{"vpa"}},
		{name: "vpa two @", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "ravi@ok@sbi" }, fields: []string{"vpa"}},
		{name: "vpa space", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "ravi kumar@oksbi" }, fields: []string{"vpa"}},
		{name: "vpa underscore in bank", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "ravi@ok_sbi" }, fields: []string{"vpa"}},
		{name: "vpa plus in handle", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "ravi+1@oksbi" }, fields: []string{"vpa"}},
		{name: "vpa non-ASCII", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "रवि@oksbi" }, fields: []string{"vpa"}},
		{name: "vpa with z and Z", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "zZ9@ybz" }},
		{name: "vpa upper case", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = "Ravi.KUMAR@OKSBI" }},
		{name: "vpa at the cap", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = ofLen("", upicollect.MaxVPALen, "@oksbi") }},
		{name: "vpa one byte over the cap", ops: []string{opRequest}, mutate: func(in *createInput) { in.VPA = ofLen("", upicollect.MaxVPALen+1, "@oksbi") }, fields: []string{"vpa"}},

		// note, customer_name: non-empty
		{name: "note empty", mutate: func(in *createInput) { in.Note = "" }, fields: []string{"note"}},
		{name: "note blank", mutate: func(in *createInput) { in.Note = " \t " }, fields: []string{"note"}},
		{name: "name empty", mutate: func(in *createInput) { in.Customer.Name = "" }, fields: []string{"customer_name"}},
		{name: "name blank", mutate: func(in *createInput) { in.Customer.Name = "   " }, fields: []string{"customer_name"}},
		{name: "note at the cap, multi-byte", mutate: func(in *createInput) { in.Note = strings.Repeat("न", upicollect.MaxNoteLen) }},
		{name: "note at the cap, 4-byte characters", mutate: func(in *createInput) { in.Note = strings.Repeat("😀", upicollect.MaxNoteLen) }},
		{name: "note one character over the cap", mutate: func(in *createInput) { in.Note = strings.Repeat("न", upicollect.MaxNoteLen+1) }, fields: []string{"note"}},
		{name: "note of 1 MB", mutate: func(in *createInput) { in.Note = strings.Repeat("n", 1<<20) }, fields: []string{"note"}},
		{name: "note invalid UTF-8", mutate: func(in *createInput) { in.Note = "Order \xff" }, fields: []string{"note"}},
		{name: "note with a newline", mutate: func(in *createInput) { in.Note = "Order\r\nX-Forged: 1" }, fields: []string{"note"}},
		{name: "note with Indic joiners", mutate: func(in *createInput) { in.Note = "क्\u200dष" }},
		{name: "name at the cap", mutate: func(in *createInput) { in.Customer.Name = strings.Repeat("R", upicollect.MaxCustomerNameLen) }},
		{name: "name one character over the cap", mutate: func(in *createInput) { in.Customer.Name = strings.Repeat("R", upicollect.MaxCustomerNameLen+1) }, fields: []string{"customer_name"}},
		{name: "name invalid UTF-8", mutate: func(in *createInput) { in.Customer.Name = "Ravi \xc3" }, fields: []string{"customer_name"}},
		{name: "name starting with a control character", mutate: func(in *createInput) { in.Customer.Name = "\x1bRavi" }, fields: []string{"customer_name"}},
		{name: "name with a NUL", mutate: func(in *createInput) { in.Customer.Name = "Ravi\x00" }, fields: []string{"customer_name"}},

		// customer_email: a plain address
		{name: "email subdomain and plus", mutate: func(in *createInput) { in.Customer.Email = "ravi+shop@mail.example.co.in" }},
		{name: "email empty", mutate: func(in *createInput) { in.Customer.Email = "" }, fields: []string{"customer_email"}},
		{name: "email no @", mutate: func(in *createInput) { in.Customer.Email = "ravi.example.com" }, fields: []string{"customer_email"}},
		{name: "email no local part", mutate: func(in *createInput) { in.Customer.Email = "@example.com" }, fields: []string{"customer_email"}},
		{name: "email no domain", mutate: func(in *createInput) { in.Customer.Email = "ravi@" }, fields: []string{"customer_email"}},
		{name: "email no domain dot", mutate: func(in *createInput) { in.Customer.Email = "ravi@localhost" }, fields: []string{"customer_email"}},
		{name: "email display name", mutate: func(in *createInput) { in.Customer.Email = "Ravi <ravi@example.com>" }, fields: []string{"customer_email"}},
		{name: "email two @", mutate: func(in *createInput) { in.Customer.Email = "ravi@@example.com" }, fields: []string{"customer_email"}},
		{name: "email leading dot", mutate: func(in *createInput) { in.Customer.Email = ".ravi@example.com" }, fields: []string{"customer_email"}},
		{name: "email double dot", mutate: func(in *createInput) { in.Customer.Email = "ra..vi@example.com" }, fields: []string{"customer_email"}},
		{name: "email numeric tld", mutate: func(in *createInput) { in.Customer.Email = "ravi@example.c0m" }, fields: []string{"customer_email"}},
		{name: "email one-letter tld", mutate: func(in *createInput) { in.Customer.Email = "ravi@example.c" }, fields: []string{"customer_email"}},
		{name: "email hyphen label", mutate: func(in *createInput) { in.Customer.Email = "ravi@-example.com" }, fields: []string{"customer_email"}},
		{name: "email empty label", mutate: func(in *createInput) { in.Customer.Email = "ravi@example..com" }, fields: []string{"customer_email"}},
		{name: "email space", mutate: func(in *createInput) { in.Customer.Email = "ravi kumar@example.com" }, fields: []string{"customer_email"}},
		{name: "email too long", mutate: func(in *createInput) { in.Customer.Email = strings.Repeat("a", 250) + "@x.in" }, fields: []string{"customer_email"}},
		{name: "email at the cap", mutate: func(in *createInput) { in.Customer.Email = ofLen("", upicollect.MaxEmailLen, "@example.com") }},
		{name: "email one byte over the cap", mutate: func(in *createInput) { in.Customer.Email = ofLen("", upicollect.MaxEmailLen+1, "@example.com") }, fields: []string{"customer_email"}},

		// customer_mobile: 10 digits after normalisation
		{name: "mobile plain", mutate: func(in *createInput) { in.Customer.Mobile = "9876543210" }, mobile: "9876543210"},
		{name: "mobile +91 spaces hyphen", mutate: func(in *createInput) { in.Customer.Mobile = "+91 98765-43210" }, mobile: "9876543210"},
		{name: "mobile +91 starting 91", mutate: func(in *createInput) { in.Customer.Mobile = "+91 91234 56789" }, mobile: "9123456789"},
		{name: "mobile leading 0", mutate: func(in *createInput) { in.Customer.Mobile = "09876543210" }, mobile: "9876543210"},
		{name: "mobile leading 91", mutate: func(in *createInput) { in.Customer.Mobile = "919876543210" }, mobile: "9876543210"},
		{name: "mobile 10 digits starting 91", mutate: func(in *createInput) { in.Customer.Mobile = "9198765432" }, mobile: "9198765432"},
		{name: "mobile 10 digits starting 0", mutate: func(in *createInput) { in.Customer.Mobile = "0987654321" }, mobile: "0987654321"},
		{name: "mobile empty", mutate: func(in *createInput) { in.Customer.Mobile = "" }, fields: []string{"customer_mobile"}},
		{name: "mobile 9 digits", mutate: func(in *createInput) { in.Customer.Mobile = "987654321" }, fields: []string{"customer_mobile"}},
		{name: "mobile 11 digits", mutate: func(in *createInput) { in.Customer.Mobile = "98765432101" }, fields: []string{"customer_mobile"}},
		{name: "mobile letters", mutate: func(in *createInput) { in.Customer.Mobile = "98765abcde" }, fields: []string{"customer_mobile"}},
		{name: "mobile other country", mutate: func(in *createInput) { in.Customer.Mobile = "+1 9876543210" }, fields: []string{"customer_mobile"}},
		{name: "mobile +91 short", mutate: func(in *createInput) { in.Customer.Mobile = "+91 987654321" }, fields: []string{"customer_mobile"}},
		{name: "mobile dots", mutate: func(in *createInput) { in.Customer.Mobile = "98765.43210" }, fields: []string{"customer_mobile"}},

		// all problems at once, in field order
		{
			name: "every field wrong",
			mutate: func(in *createInput) {
				*in = createInput{Amount: 150, OrderID: "bad id", RedirectURL: "/x", VPA: "x", Customer: upicollect.Customer{Email: "x", Mobile: "123"}}
			},
			fields: []string{"amount", "order_id", "redirect_url", "vpa", "note", "customer_name", "customer_email", "customer_mobile"},
		},
		{
			name:   "zero params",
			mutate: func(in *createInput) { *in = createInput{} },
			fields: []string{"amount", "redirect_url", "vpa", "note", "customer_name", "customer_email", "customer_mobile"},
		},
	}
	// Fields each operation takes; a case's fields are filtered by these.
	accepts := map[string]map[string]bool{
		opIntent:  {"amount": true, "order_id": true, "redirect_url": true, "note": true, "customer_name": true, "customer_email": true, "customer_mobile": true},
		opRequest: {"amount": true, "order_id": true, "vpa": true, "note": true, "customer_name": true, "customer_email": true, "customer_mobile": true},
		opLink:    {"amount": true, "note": true, "customer_name": true, "customer_email": true, "customer_mobile": true},
	}
	for _, tt := range tests {
		ops := tt.ops
		if ops == nil {
			ops = createOps
		}
		for _, op := range ops {
			t.Run(op+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				srv := newTestServer(t, bySuccess(t))
				c, _ := newClient(t, srv.BaseURL())
				in := validInput()
				tt.mutate(&in)
				_, _, err := in.call(context.Background(), c, op)

				var want []string
				for _, f := range tt.fields {
					if accepts[op][f] {
						want = append(want, f)
					}
				}
				if want == nil {
					require.NoError(t, err)
					require.Equal(t, 1, srv.Count())
					if tt.mobile != "" {
						assert.Equal(t, tt.mobile, srv.Last(t).Form.Get("customer_mobile"))
					}
					assert.Equal(t, strconv.FormatInt(in.Amount.Paise()/100, 10), srv.Last(t).Form.Get("amount"), "whole rupees are sent")
					return
				}
				require.Error(t, err)
				assertSentinels(t, err, upicollect.ErrValidation)
				var ve *upicollect.ValidationError
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, op, ve.Op)
				var got []string
				for _, f := range ve.Fields {
					got = append(got, f.Field)
					assert.NotEmpty(t, f.Problem)
					assert.Contains(t, err.Error(), f.Field+": "+f.Problem)
				}
				assert.Equal(t, want, got)
				fe, ok := ve.Field(want[0])
				assert.True(t, ok)
				assert.Equal(t, want[0], fe.Field)
				_, ok = ve.Field("no_such_field")
				assert.False(t, ok)
				var ae *upicollect.APIError
				assert.False(t, errors.As(err, &ae), "a validation error is not an APIError")
				assert.Equal(t, 0, srv.Count(), "no request may be sent when validation fails")
			})
		}
	}
}

// ofLen returns prefix + 'a's + suffix, n bytes in all.
func ofLen(prefix string, n int, suffix string) string {
	return prefix + strings.Repeat("a", n-len(prefix)-len(suffix)) + suffix
}

// TestValidationStatusOrderIDAtTheCap: the status check takes an order id
// of MaxOrderIDLen bytes.
func TestValidationStatusOrderIDAtTheCap(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, bySuccess(t))
	c, _ := newClient(t, srv.BaseURL())
	id := strings.Repeat("A", upicollect.MaxOrderIDLen)
	_, err := c.CheckPaymentStatus(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, id, srv.Last(t).Form.Get("order_id"))
}

// TestValidationCaps: the caps are the documented values, and a request
// with every field at its cap stays far below the 1 MiB body cap.
func TestValidationCaps(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 100, upicollect.MaxOrderIDLen)
	assert.Equal(t, 255, upicollect.MaxNoteLen)
	assert.Equal(t, 100, upicollect.MaxCustomerNameLen)
	assert.Equal(t, 254, upicollect.MaxEmailLen)
	assert.Equal(t, 255, upicollect.MaxVPALen)
	assert.Equal(t, 2048, upicollect.MaxRedirectURLLen)

	srv := newTestServer(t, bySuccess(t))
	c, _ := newClient(t, srv.BaseURL())
	// Characters that URL-encode at their longest: 3 bytes, 9 once escaped.
	_, err := c.CreatePaymentIntent(context.Background(), &upicollect.IntentParams{
		Amount:      upicollect.Rupees(1),
		OrderID:     strings.Repeat("%", upicollect.MaxOrderIDLen),
		RedirectURL: ofLen("https://shop.example.com/", upicollect.MaxRedirectURLLen, ""),
		Note:        strings.Repeat("न", upicollect.MaxNoteLen),
		Customer: upicollect.Customer{
			Name:   strings.Repeat("न", upicollect.MaxCustomerNameLen),
			Email:  ofLen("", upicollect.MaxEmailLen, "@example.com"),
			Mobile: "9876543210",
		},
	})
	require.NoError(t, err)
	assert.Less(t, len(srv.Last(t).Body), 16<<10, "a request at every cap is a few kilobytes")
}

func TestValidationNilParams(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, bySuccess(t))
	c, _ := newClient(t, srv.BaseURL())
	ctx := context.Background()
	_, err1 := c.CreatePaymentIntent(ctx, nil)
	_, err2 := c.CreatePaymentRequest(ctx, nil)
	_, err3 := c.CreatePaymentLink(ctx, nil)
	for i, err := range []error{err1, err2, err3} {
		assertSentinels(t, err, upicollect.ErrValidation)
		var ve *upicollect.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, createOps[i], ve.Op)
		assert.Equal(t, []upicollect.FieldError{{Field: "params", Problem: "is nil"}}, ve.Fields)
	}
	assert.Equal(t, 0, srv.Count())
}

func TestValidationStatusOrderID(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", " ", "ORD 1", "ORD\n1", "ORD\x00", "\tORD", "ORD\xff", "ORD\u200b1", "ORD\u202e1",
		strings.Repeat("A", upicollect.MaxOrderIDLen+1)} {
		t.Run(fmt.Sprintf("%.20q", id), func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, bySuccess(t))
			c, _ := newClient(t, srv.BaseURL())
			st, err := c.CheckPaymentStatus(context.Background(), id)
			assert.Nil(t, st)
			assertSentinels(t, err, upicollect.ErrValidation)
			var ve *upicollect.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, opStatus, ve.Op)
			require.Len(t, ve.Fields, 1)
			assert.Equal(t, "order_id", ve.Fields[0].Field)
			// WaitForPayment stops at once on a validation error.
			st, err = c.WaitForPayment(context.Background(), id)
			assert.Nil(t, st)
			assert.ErrorIs(t, err, upicollect.ErrValidation)
			assert.Equal(t, 0, srv.Count())
		})
	}
}

func TestValidationErrorFormat(t *testing.T) {
	t.Parallel()
	e := &upicollect.ValidationError{Fields: []upicollect.FieldError{{"amount", "bad"}, {"vpa", "worse"}}}
	assert.Equal(t, "upicollect: invalid parameters: amount: bad; vpa: worse", e.Error())
	e.Op = opRequest
	assert.Equal(t, "upicollect: createPaymentRequest: invalid parameters: amount: bad; vpa: worse", e.Error())
	assert.Equal(t, "vpa: worse", e.Fields[1].Error())
	assert.ErrorIs(t, e, upicollect.ErrValidation)
	assert.NotErrorIs(t, e, upicollect.ErrInvalidRequest)
}
