package upi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckLinks: a hosted page's address must be an absolute http(s) URL;
// a link an app opens must be upi: or an app's own scheme, never a web,
// script, file or intent: link (moved from internal/wire, where https
// links still passed as app links).
func TestCheckLinks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s       string
		web, ok bool // web: CheckWebURL passes; ok: CheckAppLink passes
	}{
		{"https://pay.example.com/l/1?pa=a@b", true, false},
		{"http://127.0.0.1:8080/pay", true, false},
		{"HTTPS://pay.example.com/", true, false},
		{"https:///nohost", false, false},
		{"//pay.example.com/x", false, false},
		{"/relative", false, false},
		{"", false, false},
		{"upi://pay?pa=a@b", false, true},
		{"upi:pay?pa=a@b", false, true},
		{"UPI://pay?pa=a@b", false, true},
		{"phonepe://pay?pa=a@b", false, true},
		{"tez://upi/pay?pa=a@b", false, true},
		{"upi://pay?pn=nobody", false, false},
		{"intent://pay?pa=a@b#Intent;scheme=upi;S.browser_fallback_url=https%3A%2F%2Fevil.example;end", false, false},
		{"javascript:alert(1)//?pa=a@b", false, false},
		{"JavaScript:alert(1)//?pa=a@b", false, false},
		{" upi://pay?pa=a@b", false, false},
		{"upi://pay?pa=a@b ", false, false},
		{"vbscript:msgbox(1)?pa=a@b", false, false},
		{"data:text/html,<script>alert(1)</script>?pa=a@b", false, false},
		{"file:///etc/passwd?pa=a@b", false, false},
		{"about:blank?pa=a@b", false, false},
		{"blob:https://x/1?pa=a@b", false, false},
		{"filesystem:https://x/1?pa=a@b", false, false},
		{"ftp://x.example/f?pa=a@b", false, false},
		{"https://x.example/\x00", false, false},
	} {
		assert.Equal(t, tt.web, CheckWebURL("payment_link", tt.s) == nil, "web %q", tt.s)
		assert.Equal(t, tt.ok, CheckAppLink("intent", tt.s) == nil, "app %q", tt.s)
	}
	at := "javascript:" + strings.Repeat("x", 64-len("javascript:"))
	assert.NotContains(t, CheckWebURL("payment_link", at).Error(), "…", "64 bytes are quoted whole")
	assert.Contains(t, CheckWebURL("payment_link", at+"y").Error(), `x"…`, "a longer value is cut at 64")
	assert.EqualError(t, CheckAppLink("b", "appb://pay "), `b "appb://pay " is not a UPI or app link`)
	assert.EqualError(t, CheckAppLink("a", "\x1b[31mjavascript:x"), `a "\x1b[31mjavascript:x" is not a UPI or app link`)
}

func TestQuote(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `"a\nb"`, Quote("a\nb"))
	assert.Equal(t, `"`+strings.Repeat("x", 64)+`"…`, Quote(strings.Repeat("x", 65)))
	long := strings.Repeat("x", 63) + "€"
	assert.Equal(t, `"`+strings.Repeat("x", 63)+`"…`, Quote(long), "a rune is not split")
	assert.Equal(t, "am", PlainOrQuote("am"))
	assert.Equal(t, `"a\x1bm"`, PlainOrQuote("a\x1bm"))
	assert.Equal(t, `"a m"`, PlainOrQuote("a m"))
}

func TestParseBounds(t *testing.T) {
	t.Parallel()
	ok := "upi://pay?pa=a@b&tn=" + strings.Repeat("x", MaxLen-len("upi://pay?pa=a@b&tn="))
	_, err := Parse(ok)
	require.NoError(t, err)
	_, err = Parse(ok + "x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "longer than 2953 bytes")
	_, err = Parse("upi://pay?pa=a@b&\x1b[2J%zz=1")
	assert.EqualError(t, err, `upi link: "\x1b[2J%zz": bad percent-encoding in the name`)
	l, err := Parse("upi://pay?pa=a@b&%61m=1&AM=2")
	require.NoError(t, err)
	assert.Equal(t, []Param{{"pa", "a@b", "pa"}, {"am", "1", "%61m"}, {"AM", "2", "AM"}}, l.Params)
}

func TestCheckIntent(t *testing.T) {
	t.Parallel()
	const good = "upi://pay?pa=shop@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_1&cu=INR"
	want := Want{Paise: 49900, OrderID: "ord_1"}
	tests := []struct {
		name    string
		generic string
		apps    map[string]string
		qr      string
		want    []Mismatch
	}{
		{name: "all agree", generic: good, apps: map[string]string{
			"phonepe": "phonepe://pay?pa=shop@okaxis&am=499&tr=ord_1",
			"gpay":    "tez://upi/pay?pa=SHOP%40okaxis&am=499.0&tr=ord_1&mam=499",
		}, qr: good},
		{name: "a QR that is not a link is opaque", generic: good, qr: "data:image/png;base64,iVBOR"},
		{name: "an https QR is opaque", generic: good, qr: "https://qr.example/1.png"},
		{name: "another payee in an app link", generic: good, apps: map[string]string{"paytm": "paytmmp://pay?pa=thief@ybl&am=499&tr=ord_1"},
			want: []Mismatch{{"paytm", "pa", "shop@okaxis", "thief@ybl"}}},
		{name: "another payee in the QR", generic: good, qr: "upi://pay?pa=thief@ybl&am=499&tr=ord_1",
			want: []Mismatch{{"dynamicQR", "pa", "shop@okaxis", "thief@ybl"}}},
		{name: "the QR must be upi:", generic: good, qr: "UPI://pay?pa=shop@okaxis&am=499&tr=ord_1"},
		{name: "an https app link", generic: good, apps: map[string]string{"phonepe": "https://evil.example/pay?pa=shop@okaxis&am=499&tr=ord_1"},
			want: []Mismatch{{"phonepe", "link", "a UPI link", `upi link: link: scheme "https" is not a UPI app's`}}},
		{name: "an intent: fallback", generic: good, apps: map[string]string{"gpay": "intent://pay?pa=shop@okaxis&am=499&tr=ord_1#Intent;S.browser_fallback_url=https://evil.example;end"},
			want: []Mismatch{{"gpay", "link", "a UPI link", `upi link: link: scheme "intent" is not a UPI app's`}}},
		{name: "the generic link with an app scheme", generic: "phonepe://pay?pa=shop@okaxis&am=499&tr=ord_1",
			want: []Mismatch{{"intent", "link", "a upi: link", "phonepe:"}}},
		{name: "foreign currency", generic: good + "x",
			want: []Mismatch{{"intent", "cu", "INR", "INRx"}}},
		{name: "mam above am", generic: "upi://pay?pa=shop@okaxis&am=499&mam=500&tr=ord_1",
			want: []Mismatch{{"intent", "mam", "at most 499", "500"}}},
		{name: "mam unreadable", generic: "upi://pay?pa=shop@okaxis&am=499&mam=x&tr=ord_1",
			want: []Mismatch{{"intent", "mam", "an amount", "x"}}},
		{name: "a second am", generic: good + "&am=1",
			want: []Mismatch{{"intent", "am", "one am", "am and am"}}},
		{name: "a case variant", generic: good + "&AM=1",
			want: []Mismatch{{"intent", "am", "one am", "am and AM"}}},
		{name: "a percent variant first", generic: "upi://pay?pa=shop@okaxis&%61m=1&am=499&tr=ord_1",
			want: []Mismatch{{"intent", "am", "a plain name", "%61m"}, {"intent", "am", "one am", "%61m and am"}, {"intent", "am", "499.00", "1"}}},
		{name: "no generic link", generic: "",
			want: []Mismatch{{"intent", "link", "a UPI link", "upi link: link: no scheme such as upi://"}}},
		{name: "wrong order and amount", generic: "upi://pay?pa=shop@okaxis&am=4999&tr=ord_2",
			want: []Mismatch{{"intent", "am", "499.00", "4999"}, {"intent", "tr", "ord_1", "ord_2"}}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, CheckIntent(tt.generic, tt.apps, tt.qr, want), tt.name)
	}
	assert.Nil(t, CheckIntent("upi://pay?pa=a@b&am=1&tr=x", nil, "", Want{Paise: 100}), "no order id: tr not checked")
}

func TestCheckIntentAllocations(t *testing.T) {
	const l = "upi://pay?pa=shop@okaxis&pn=Chai%20Shop&am=499.00&tr=ord_1&cu=INR"
	apps := map[string]string{"phonepe": "phonepe" + l[3:], "paytm": "paytmmp" + l[3:], "gpay": "tez://upi/pay" + l[9:], "cred": "credpay://upi/pay" + l[9:]}
	n := testing.AllocsPerRun(100, func() {
		if ms := CheckIntent(l, apps, "https://x/qr.png", Want{Paise: 49900, OrderID: "ord_1"}); ms != nil {
			t.Fatal(ms)
		}
	})
	// The names slice; each link's parameters are decoded into a buffer on
	// the stack, and a plain "%20" in pn costs one string.
	assert.LessOrEqual(t, n, 7.0)
}

func TestProblems(t *testing.T) {
	t.Parallel()
	assert.Nil(t, CurrencyProblem(""))
	assert.Nil(t, CurrencyProblem("inr"))
	assert.Equal(t, &Problem{"cu", "INR", "USD"}, CurrencyProblem("USD"))
	assert.Nil(t, MinAmountProblem("", ""))
	assert.Nil(t, MinAmountProblem("10", "10"))
	assert.Nil(t, MinAmountProblem("x", "10"), "a bad am is am's problem")
	assert.Equal(t, &Problem{"mam", "at most 10", "10.01"}, MinAmountProblem("10", "10.01"))
	assert.Nil(t, MinAmountProblem("", "1"), "a missing am is am's problem")
	assert.Nil(t, NameProblems([]Param{{"pa", "x", "pa"}, {"orgId", "1", "orgId"}}))
	assert.Equal(t, []Problem{{"t n", "a plain name", "t+n"}}, NameProblems([]Param{{"t n", "x", "t+n"}}))
}

// TestEdges pins the character classes and bounds the link checks turn on
// (mutation testing found them unpinned).
func TestEdges(t *testing.T) {
	t.Parallel()
	for c, want := range map[byte]bool{'0': true, '9': true, 'a': true, 'f': true, 'A': true, 'F': true,
		'/': false, ':': false, '`': false, 'g': false, '@': false, 'G': false} {
		assert.Equal(t, want, ishex(c), "%q", c)
	}
	for s, want := range map[string]bool{"": true, "a": true, "%41": true, "%4f%4F": true, "%": false, "%4": false,
		"a%4": false, "%zz": false, "%g1": false, "x%1g": false} {
		assert.Equal(t, want, validEscapes(s), "%q", s)
	}
	for s, want := range map[string]bool{"a": true, "a0": true, "a9": true, "a+b.c-d": true, "a/": false,
		"a:": false, "0a": false, "": true, "A": false, "a@": false} {
		assert.Equal(t, want, validScheme(s), "%q", s)
	}
	assert.Equal(t, "azAZ09-._~@", Escape("azAZ09-._~@"))
	assert.Equal(t, "%60%7B%5B%2F%3A", Escape("`{[/:"))
	_, err := Parse("upi://pay?#&pa=a@b")
	assert.Error(t, err, "what follows '#' is no parameter")
	assert.Equal(t, []Mismatch{{"dynamicQR", "link", "a UPI link", `upi link: pa: missing: a UPI link names its payee`}},
		CheckIntent("upi://pay?pa=a@b&am=1", nil, "upi:", Want{Paise: 100}))
	plain := strings.Repeat("x", 64)
	assert.Equal(t, plain, PlainOrQuote(plain))
	assert.Equal(t, `"a\x7f"`, PlainOrQuote("a\x7f"))
	assert.Equal(t, `"`+strings.Repeat(`\xff`, 60)+`"…`, Quote(strings.Repeat("\xff", 70)),
		"invalid UTF-8 is cut at most a rune's length short")
}

// TestUnusable: a link that cannot be read, or names no payee, pays nobody
// and may be dropped; one that names a payee, or has a web, script or
// intent: scheme, is for CheckIntent to judge.
func TestUnusable(t *testing.T) {
	t.Parallel()
	const unreadable, noPayee = "cannot be read as a UPI or app link", "names no payee (pa)"
	for _, tt := range []struct{ link, want string }{
		{"", unreadable},
		{"cred", unreadable},
		{"://pay?pa=a@b", unreadable},
		{"upi://pay?pa=a@b&%zz=1", unreadable},
		{"upi://pay?pa=a%zz@b", unreadable},
		{"upi://pay?pa=a@b&am=" + strings.Repeat("1", MaxLen), unreadable},
		{"credpay://upi/pay?am=499&tr=ORD-1", noPayee},
		{"upi://pay?pa=&am=499", noPayee},
		{"upi://pay", noPayee},
		{"upi://pay?pa=acme@okaxis&am=499", ""},
		{"credpay://upi/pay?PA=acme@okaxis", ""},
		{"upi://pay?pa=evil@ybl&am=1", ""},
		{"https://evil.example/pay?pa=acme@okaxis", ""},
		{"JavaScript:alert(1)", ""},
		{"intent://pay#Intent;end", ""},
	} {
		assert.Equal(t, tt.want, Unusable(tt.link), "%q", tt.link)
	}
}
