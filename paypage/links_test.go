package paypage_test

import (
	"context"
	"flag"
	"fmt"
	"html"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/paypage"
	"github.com/upicollect/upicollect-go/sandbox"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// payQuery is the query of every good link in these tests.
const payQuery = "pa=acme@okaxis&pn=Acme&am=499.00&tr=ORD-1001&cu=INR"

// linkLines writes links one a line, tab-separated, as the golden file
// holds them.
func linkLines(links []paypage.Link) string {
	var b strings.Builder
	for _, l := range links {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", l.App, l.Name, l.URL)
	}
	return b.String()
}

// TestLinks: the links come in Links' documented order (the known
// apps, most used first; the other keys sorted; the generic link last),
// each named, and a link that does not read as a UPI link of an allowed
// scheme is left out, whoever built the Intent.
func TestLinks(t *testing.T) {
	t.Parallel()
	generic := "upi://pay?" + payQuery
	for _, tt := range []struct {
		name   string
		intent *upicollect.Intent
		want   []string // "app name url"
	}{
		{name: "nil intent", intent: nil, want: nil},
		{name: "no links", intent: &upicollect.Intent{}, want: []string{}},
		{name: "the generic link alone", intent: &upicollect.Intent{Link: generic},
			want: []string{"intent|Any UPI app|" + generic}},
		{name: "the live service's apps, in the answer's order", intent: &upicollect.Intent{Link: generic, AppLinks: map[string]string{
			"phonepe": "phonepe://pay?" + payQuery, "paytm": "paytmmp://pay?" + payQuery,
			"gpay": "tez://upi/pay?" + payQuery, "cred": "credpay://upi/pay?" + payQuery,
		}}, want: []string{
			"phonepe|PhonePe|phonepe://pay?" + payQuery,
			"gpay|Google Pay|tez://upi/pay?" + payQuery,
			"paytm|Paytm|paytmmp://pay?" + payQuery,
			"cred|CRED|credpay://upi/pay?" + payQuery,
			"intent|Any UPI app|" + generic,
		}},
		{name: "unknown keys after the known, sorted, named by key", intent: &upicollect.Intent{Link: generic, AppLinks: map[string]string{
			"app_b": "upi://pay?" + payQuery, "zeta": "zeta://pay?" + payQuery, "bhim": "upi://pay?" + payQuery + "&bhim",
			"app_a": "upi://pay?" + payQuery + "&a", "Gpay": "tez://upi/pay?" + payQuery,
		}}, want: []string{
			"bhim|BHIM|upi://pay?" + payQuery + "&bhim",
			"Gpay|Gpay|tez://upi/pay?" + payQuery,
			"app_a|app_a|upi://pay?" + payQuery + "&a",
			"app_b|app_b|upi://pay?" + payQuery,
			"zeta|zeta|zeta://pay?" + payQuery,
			"intent|Any UPI app|" + generic,
		}},
		{name: "links that are not UPI links left out", intent: &upicollect.Intent{Link: "javascript:alert(1)//?" + payQuery, AppLinks: map[string]string{
			"phonepe": "javascript:alert(1)//?" + payQuery,
			"gpay":    "https://evil.example/pay?" + payQuery,
			"paytm":   " paytmmp://pay?" + payQuery,
			"cred":    "credpay://upi/pay?pn=Acme&am=499.00", // no payee
			"bhim":    "data:text/html,<script>alert(1)</script>?" + payQuery,
			"app_a":   "intent://pay?" + payQuery + "#Intent;scheme=upi;end",
			"app_b":   "VBScript:msgbox?" + payQuery,
			"app_c":   "upi://pay?" + payQuery,
		}}, want: []string{"app_c|app_c|upi://pay?" + payQuery}},
		{name: "a generic link of an app's own scheme left out", intent: &upicollect.Intent{Link: "phonepe://pay?" + payQuery},
			want: []string{}},
		{name: "a generic link with spaces around it left out", intent: &upicollect.Intent{Link: generic + " "},
			want: []string{}},
		{name: "the upi: scheme in any case", intent: &upicollect.Intent{Link: "UPI://pay?" + payQuery},
			want: []string{"intent|Any UPI app|UPI://pay?" + payQuery}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			links := paypage.Links(tt.intent)
			if tt.want == nil {
				assert.Nil(t, links)
				return
			}
			got := make([]string, len(links))
			for i, l := range links {
				got[i] = l.App + "|" + l.Name + "|" + string(l.URL)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestLinksStable: the same intent gives the same slice every time,
// whatever order the map of app links iterates in.
func TestLinksStable(t *testing.T) {
	t.Parallel()
	in := &upicollect.Intent{Link: "upi://pay?" + payQuery, AppLinks: map[string]string{}}
	for _, k := range []string{"phonepe", "gpay", "paytm", "cred", "bhim", "app_a", "app_b", "app_c", "k1", "k2", "k3", "k4"} {
		in.AppLinks[k] = "upi://pay?" + payQuery + "&k=" + k
	}
	first := linkLines(paypage.Links(in))
	for range 50 {
		require.Equal(t, first, linkLines(paypage.Links(in)))
	}
}

// TestLinksGolden: the links of a sandbox intent with every app the SDK
// knows and three it does not, as testdata/links.golden holds them
// (go test -run TestLinksGolden -update rewrites it).
func TestLinksGolden(t *testing.T) {
	t.Parallel()
	in := &upicollect.Intent{
		Link: "upi://pay?pa=chai@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_golden&tn=Masala%20chai%20kit&cu=INR",
		AppLinks: map[string]string{
			"phonepe": "phonepe://pay?pa=chai@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_golden&tn=Masala%20chai%20kit&cu=INR",
			"paytm":   "paytmmp://pay?pa=chai@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_golden&tn=Masala%20chai%20kit&cu=INR",
			"gpay":    "tez://upi/pay?pa=chai@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_golden&tn=Masala%20chai%20kit&cu=INR",
			"cred":    "credpay://upi/pay?pa=chai@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_golden&tn=Masala%20chai%20kit&cu=INR",
			"bhim":    "upi://pay?pa=chai@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_golden&tn=Masala%20chai%20kit&cu=INR&mode=04",
			"app_c":   "upi://pay?pa=chai@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_golden&cu=INR&app=c",
			"app_a":   "upi://pay?pa=chai@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_golden&cu=INR&app=a",
			"app_b":   "upi://pay?pa=chai@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_golden&cu=INR&app=b",
		},
	}
	require.NoError(t, in.Verify(&upicollect.IntentParams{Amount: upicollect.Rupees(499), OrderID: "ord_golden"}))
	got := linkLines(paypage.Links(in))
	path := filepath.Join("testdata", "links.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test -run %s -update", t.Name())
	assert.Equal(t, string(want), got)
}

// payPage is a page as a shop writes it with html/template.
var payPage = template.Must(template.New("pay").Parse(
	`{{range .Links}}<a href="{{.URL}}">{{.Name}}</a>{{end}}<img src="{{.QR.DataURL}}"><a href="{{.Plain}}">plain</a>`))

// TestLinksInHTMLTemplate: html/template keeps the links and the QR's
// data URL in href and src, escaped for the attribute (& as &amp;), where
// it blanks the same link given as a string.
func TestLinksInHTMLTemplate(t *testing.T) {
	t.Parallel()
	s := sandbox.Start(t, sandbox.WithVariant(sandbox.VariantQRBase64))
	in, err := s.Client().CreatePaymentIntent(context.Background(), &upicollect.IntentParams{
		Amount: upicollect.Rupees(499), OrderID: "ORD-T1", RedirectURL: "https://shop.example/return",
		Note: "Tea & cake", Customer: upicollect.Customer{Name: "Ravi", Email: "ravi@example.com", Mobile: "9876543210"},
	})
	require.NoError(t, err)
	qr, err := paypage.QR(in, 0)
	require.NoError(t, err)
	require.Equal(t, paypage.FromImage, qr.Source)
	links := paypage.Links(in)
	require.Len(t, links, 5)

	var b strings.Builder
	require.NoError(t, payPage.Execute(&b, map[string]any{"Links": links, "QR": qr, "Plain": in.Link}))
	page := b.String()
	assert.Contains(t, page, "&amp;pn=", "escaped for the attribute")
	shown := html.UnescapeString(page) // what the browser reads
	for _, l := range links {
		assert.Contains(t, shown, `<a href="`+string(l.URL)+`">`+l.Name+`</a>`)
	}
	assert.Contains(t, shown, `<img src="`+string(qr.DataURL())+`">`)
	assert.Equal(t, 1, strings.Count(page, "#ZgotmplZ"), "only the plain string is blanked")
	assert.Contains(t, page, `<a href="#ZgotmplZ">plain</a>`)
}
