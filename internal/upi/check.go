package upi

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/upicollect/upicollect-go/internal/vocab"
)

// MaxLen is the longest link accepted: the most bytes a QR code holds
// (version 40, level L, byte mode). A longer link cannot be shown as a QR
// code, and parsing is refused before it costs memory.
const MaxLen = 2953

// refusedSchemes are never a UPI app's: a link with one of them would open a
// page, run script, read local data or, as Android's intent: does, fall back
// to the web.
var refusedSchemes = map[string]bool{
	"http": true, "https": true, "javascript": true, "vbscript": true, "data": true, "file": true,
	"about": true, "blob": true, "filesystem": true, "ftp": true, "mailto": true, "intent": true,
	"content": true, "market": true, "tel": true, "sms": true, "ws": true, "wss": true,
}

// Scheme checks a link's lower-case scheme: upi, or an app's own (phonepe,
// paytmmp, tez, credpay, ...), never a web, script, file or intent: scheme.
func Scheme(scheme string) error {
	if refusedSchemes[scheme] {
		return &Error{"link", fmt.Sprintf("scheme %q is not a UPI app's", scheme)}
	}
	return nil
}

// CheckAppLink checks a link a UPI app opens: upi: or the app's own scheme,
// as Parse reads it, with nothing around it.
func CheckAppLink(field, s string) error {
	if s != strings.TrimSpace(s) {
		return appLinkError(field, s)
	}
	if _, err := Parse(s); err != nil {
		return appLinkError(field, s)
	}
	return nil
}

func appLinkError(field, s string) error {
	return fmt.Errorf("%s %s is not a UPI or app link", field, Quote(s))
}

// CheckWebURL checks a hosted page's address (payment_link, payment_url):
// an absolute http or https URL with a host.
func CheckWebURL(field, s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %s is not an absolute http(s) URL", field, Quote(s))
	}
	return nil
}

// quoteLen bounds how much of a value an error quotes.
const quoteLen = 64

// Quote quotes at most the first 64 bytes of s for an error, control
// characters and invalid UTF-8 escaped, with "…" when it was cut.
func Quote(s string) string {
	if len(s) <= quoteLen {
		return strconv.Quote(s)
	}
	cut := s[:quoteLen]
	for !utf8.ValidString(cut) && len(cut) > quoteLen-utf8.UTFMax {
		cut = cut[:len(cut)-1]
	}
	return strconv.Quote(cut) + "…"
}

// PlainOrQuote is s when it is a short run of printable ASCII, else
// Quote(s): for a name in an error.
func PlainOrQuote(s string) string {
	if len(s) > quoteLen {
		return Quote(s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f || s[i] == '"' {
			return Quote(s)
		}
	}
	return s
}

// Want is what an intent's links must carry.
type Want struct {
	Paise   int64  // am, in paise
	OrderID string // tr, when not empty
}

// Mismatch is one way a link is unsafe or not what was asked. Link names
// the link ("intent", an app's key, "dynamicQR"); Param is the parameter,
// or "link" for the link as a whole.
type Mismatch struct{ Link, Param, Want, Got string }

// CheckIntent checks an intent's links: the generic link (named "intent"),
// the per-app links by key, and the dynamic QR when it is a upi: link (else
// it is opaque: QR text or image data). Each must be a UPI link (the
// generic one and the QR with scheme upi, an app link with upi or the app's
// own), name each parameter once (no repeat, no case or percent variant),
// carry want's amount as am (mam no higher, cu INR when set) and want's
// order id as tr when set; all must name one payee, the generic link's. The
// mismatches come link by link in name order.
func CheckIntent(generic string, apps map[string]string, dynamicQR string, want Want) []Mismatch {
	names := make([]string, 0, len(apps)+2)
	names = append(names, "intent")
	for k := range apps {
		names = append(names, k)
	}
	qr := HasUPIScheme(dynamicQR)
	if qr {
		names = append(names, "dynamicQR")
	}
	slices.Sort(names)
	link := func(name string) string {
		switch name {
		case "intent":
			return generic
		case "dynamicQR":
			if qr {
				return dynamicQR
			}
		}
		return apps[name]
	}
	payee := payeeOf(generic)
	var ms []Mismatch
	for _, name := range names {
		ms = checkLink(ms, name, link(name), name == "intent" || name == "dynamicQR" && qr, want, payee)
	}
	return ms
}

// checkLink appends to ms what is wrong with one link; upiOnly refuses an
// app's own scheme.
func checkLink(ms []Mismatch, name, raw string, upiOnly bool, want Want, payee string) []Mismatch {
	var buf [24]Param
	scheme, _, params, err := parse(raw, buf[:0], false)
	if err != nil {
		return append(ms, Mismatch{Link: name, Param: "link", Want: "a UPI link", Got: err.Error()})
	}
	if upiOnly && scheme != "upi" {
		return append(ms, Mismatch{Link: name, Param: "link", Want: "a upi: link", Got: scheme + ":"})
	}
	for _, p := range NameProblems(params) {
		ms = append(ms, Mismatch{Link: name, Param: p.Param, Want: p.Want, Got: p.Got})
	}
	am := value(params, "am")
	paise, err := Amount(am)
	if err != nil || am == "" || paise != want.Paise {
		ms = append(ms, Mismatch{Link: name, Param: "am", Want: vocab.FormatRupees(want.Paise), Got: am})
	}
	if p := MinAmountProblem(am, value(params, "mam")); p != nil {
		ms = append(ms, Mismatch{Link: name, Param: p.Param, Want: p.Want, Got: p.Got})
	}
	if p := CurrencyProblem(value(params, "cu")); p != nil {
		ms = append(ms, Mismatch{Link: name, Param: p.Param, Want: p.Want, Got: p.Got})
	}
	if tr := value(params, "tr"); want.OrderID != "" && tr != want.OrderID {
		ms = append(ms, Mismatch{Link: name, Param: "tr", Want: want.OrderID, Got: tr})
	}
	if pa := value(params, "pa"); payee != "" && !strings.EqualFold(pa, payee) {
		ms = append(ms, Mismatch{Link: name, Param: "pa", Want: payee, Got: pa})
	}
	return ms
}

// Unusable says why an app's own link no app could pay with: it cannot
// be read as a link, or names no payee (pa). Such a link cannot pay
// another payee, amount or order either, so it can be dropped without
// refusing the links around it. It is "" for a link that names a payee,
// and for one with a web, script or intent: scheme (a sign the answer was
// tampered with, not a malformed link): CheckIntent must judge those.
func Unusable(raw string) string {
	var buf [24]Param
	_, _, _, err := parse(raw, buf[:0], false)
	switch {
	case err == nil, refusedScheme(raw):
		return ""
	case err == errNoPayee:
		return "names no payee (pa)" // parse's last check: all else is readable
	}
	return "cannot be read as a UPI or app link"
}

// refusedScheme reports whether raw begins with a scheme Scheme refuses.
func refusedScheme(raw string) bool {
	scheme, _, ok := strings.Cut(raw, ":")
	return ok && refusedSchemes[strings.ToLower(scheme)]
}

// payeeOf is the pa of a link, "" when it cannot be read.
func payeeOf(raw string) string {
	var buf [24]Param
	_, _, params, err := parse(raw, buf[:0], false)
	if err != nil {
		return ""
	}
	return value(params, "pa")
}

// HasUPIScheme reports whether s begins with the upi: scheme, in any case:
// a dynamic QR that does is a link CheckIntent checks, any other is opaque.
func HasUPIScheme(s string) bool { return len(s) >= 4 && strings.EqualFold(s[:4], "upi:") }

// Problem is something wrong with one parameter of a link.
type Problem struct{ Param, Want, Got string }

// NameProblems lists the parameters whose name repeats, also as a case or
// percent variant (am and AM, am and %61m), and the names written with
// escapes at all: an app that reads the other one, or does not decode a
// name, pays what the link did not seem to say.
func NameProblems(params []Param) []Problem {
	var ps []Problem
	for i, p := range params {
		if strings.ContainsAny(p.Raw, "%+") {
			ps = append(ps, Problem{Param: strings.ToLower(p.Key), Want: "a plain name", Got: p.Raw})
		}
		for _, q := range params[:i] {
			if strings.EqualFold(p.Key, q.Key) {
				ps = append(ps, Problem{Param: strings.ToLower(p.Key), Want: "one " + strings.ToLower(p.Key), Got: q.Raw + " and " + p.Raw})
				break
			}
		}
	}
	return ps
}

// CurrencyProblem reports a cu other than INR (UPI settles rupees only); an
// absent cu means INR.
func CurrencyProblem(cu string) *Problem {
	if cu == "" || strings.EqualFold(cu, "INR") {
		return nil
	}
	return &Problem{Param: "cu", Want: "INR", Got: cu}
}

// MinAmountProblem reports a mam (the least the payer may pay) that is not
// an amount, or is above am.
func MinAmountProblem(am, mam string) *Problem {
	if mam == "" {
		return nil
	}
	m, err := Amount(mam)
	if err != nil {
		return &Problem{Param: "mam", Want: "an amount", Got: mam}
	}
	if a, err := Amount(am); am == "" || err != nil || m <= a {
		return nil // a missing or bad am is am's problem
	}
	return &Problem{Param: "mam", Want: "at most " + am, Got: mam}
}
