package wire

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-querystring/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encoder is a wire request: its hand-written Encode must equal
// go-querystring's encoding of its tags.
type encoder interface{ Encode() string }

// TestRequestEncode: every request's hand-written encoding is
// go-querystring's, for plain, escaped, empty and omitted values.
func TestRequestEncode(t *testing.T) {
	t.Parallel()
	odd := "m i&d=/?#%+é\x00\xff~._-"
	for _, r := range []encoder{
		&StatusRequest{MID: "MID123", OrderID: "ORD-1"},
		&StatusRequest{MID: odd, OrderID: "ORD/1?#%+é"},
		&StatusRequest{},
		&IntentRequest{MID: "MID1", Amount: 499, OrderID: "ORD-1", RedirectURL: "https://shop.example/r?a=1&b=2",
			Note: "Order 1", CustomerName: "Ravi Kumar", CustomerEmail: "ravi+1@example.com", CustomerMobile: "9876543210"},
		&IntentRequest{MID: odd, Amount: -9223372036854775808, Note: odd},
		&IntentRequest{},
		&PaymentRequestRequest{MID: "MID1", Amount: 100000, OrderID: "O", VPA: "ravi@okaxis", Note: "n",
			CustomerName: "R", CustomerEmail: "r@x.in", CustomerMobile: "9876543210"},
		&PaymentRequestRequest{VPA: odd, Amount: 9223372036854775807},
		&PaymentRequestRequest{},
		&LinkRequest{MID: "MID1", Amount: 1, Note: "Invoice 42", CustomerName: "Ravi Kumar",
			CustomerEmail: "ravi@example.com", CustomerMobile: "9876543210"},
		&LinkRequest{CustomerName: odd},
		&LinkRequest{},
	} {
		v, err := query.Values(r)
		require.NoError(t, err)
		assert.Equal(t, v.Encode(), r.Encode(), "%#v", r)
	}
}

// FuzzRequestEncode holds every hand-written encoding equal to
// go-querystring's.
func FuzzRequestEncode(f *testing.F) {
	f.Add("MID", "ORD-1", "Ravi Kumar", "https://a.example/?x=1", int64(499))
	f.Add("", "", "", "", int64(0))
	f.Fuzz(func(t *testing.T, mid, order, text, link string, amount int64) {
		for _, r := range []encoder{
			&StatusRequest{MID: mid, OrderID: order},
			&IntentRequest{MID: mid, Amount: amount, OrderID: order, RedirectURL: link, Note: text,
				CustomerName: text, CustomerEmail: link, CustomerMobile: order},
			&PaymentRequestRequest{MID: mid, Amount: amount, OrderID: order, VPA: link, Note: text,
				CustomerName: text, CustomerEmail: link, CustomerMobile: order},
			&LinkRequest{MID: mid, Amount: amount, Note: text, CustomerName: text, CustomerEmail: link, CustomerMobile: order},
		} {
			v, err := query.Values(r)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := r.Encode(), v.Encode(); got != want {
				t.Fatalf("%T: %q != %q", r, got, want)
			}
		}
	})
}

// TestUnreservedBoundaries: the characters on each side of every range that
// url.QueryEscape leaves as they are.
func TestUnreservedBoundaries(t *testing.T) {
	t.Parallel()
	const edges = "`az{@AZ[/09:-_.~ !*'()"
	for i := 0; i < len(edges); i++ {
		c := edges[i]
		assert.Equal(t, url.QueryEscape(string(c)) == string(c), unreserved(c), "%q", c)
	}
}

// TestRequestEncodeSizesOnce: each body is built in one allocation, its
// size known before the first byte is written, whatever the field lengths.
func TestRequestEncodeSizesOnce(t *testing.T) {
	if raceEnabled() {
		t.Skip("allocation counts vary under -race")
	}
	// "aaé" escapes to twice its length: the most the size allows for.
	long := strings.Repeat("aaé", 75)
	for _, r := range []encoder{
		&StatusRequest{MID: long, OrderID: long},
		&IntentRequest{MID: long, OrderID: long, RedirectURL: long, Note: long, CustomerName: long, CustomerEmail: long, CustomerMobile: long},
		&PaymentRequestRequest{MID: long, OrderID: long, VPA: long, Note: long, CustomerName: long, CustomerEmail: long, CustomerMobile: long},
		&LinkRequest{MID: long, Note: long, CustomerName: long, CustomerEmail: long, CustomerMobile: long},
	} {
		assert.Equal(t, 1.0, testing.AllocsPerRun(20, func() { _ = r.Encode() }), "%T", r)
	}
}
