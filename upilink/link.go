// Package upilink reads, writes and checks UPI deep links
// (upi://pay?pa=…&am=…, and the app schemes that payment intents carry such
// as phonepe://pay and tez://upi/pay), and draws them as QR codes.
//
// Parse reads a link as payers' apps do; String writes the canonical form
// that those apps read correctly; Lint lists what is legal but known to fail
// in the field. Amounts are upicollect.Money, exact to the paisa: an amount
// with more than two decimals is an error, never rounded.
package upilink

import (
	"errors"
	"net/url"
	"sort"
	"strings"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/upi"
)

// Link is a parsed UPI deep link.
type Link struct {
	// Scheme is "upi", or an app's own ("phonepe", "paytmmp", "tez", ...).
	Scheme string
	// Target is what stands between "scheme://" and the query: "pay" for
	// upi://pay, "upi/pay" for tez://upi/pay. Empty means "pay".
	Target       string
	PayeeVPA     string           // pa
	PayeeName    string           // pn
	Amount       upicollect.Money // am; 0 when absent
	MinAmount    upicollect.Money // mam; 0 when absent
	Currency     string           // cu
	TxnRef       string           // tr
	TxnID        string           // tid
	Note         string           // tn
	MerchantCode string           // mc
	Mode         string           // mode
	Purpose      string           // purpose
	OrgID        string           // orgid
	Sign         string           // sign
	URL          string           // url
	// Extra holds every other parameter, kept under its name as written.
	Extra url.Values

	// names are the problems with the parameter names Parse read (a
	// repeat, a case or percent variant), for Lint.
	names []upi.Problem
}

// ParseError names the parameter of a link that could not be read ("link"
// for the link as a whole).
type ParseError struct{ Param, Problem string }

// Error formats the problem as "upilink: param: problem", a parameter name
// that is not plain quoted and escaped.
func (e *ParseError) Error() string {
	return "upilink: " + upi.PlainOrQuote(e.Param) + ": " + e.Problem
}

// fields maps each known parameter, lower-case, to its field.
func (l *Link) fields() []struct {
	key string
	val *string
} {
	return []struct {
		key string
		val *string
	}{
		{"pa", &l.PayeeVPA}, {"pn", &l.PayeeName}, {"cu", &l.Currency}, {"tr", &l.TxnRef},
		{"tid", &l.TxnID}, {"tn", &l.Note}, {"mc", &l.MerchantCode}, {"mode", &l.Mode},
		{"purpose", &l.Purpose}, {"orgid", &l.OrgID}, {"sign", &l.Sign}, {"url", &l.URL},
	}
}

// Parse reads a UPI link. Parameter names match case-insensitively (orgId is
// orgid); '+' and "%20" both read as a space; "%40" in pa reads as '@'. When
// a parameter repeats, the first value counts, as in most apps (Lint reports
// the repeat). Links longer than a QR code holds (2953 bytes), links whose
// scheme is a web, script or intent: scheme (http, https, javascript, data,
// intent, ...) and links without pa are refused. Errors quote at most 64
// bytes of the link, escaped.
func Parse(link string) (*Link, error) {
	raw, err := upi.Parse(link)
	if err != nil {
		var e *upi.Error
		if errors.As(err, &e) {
			return nil, &ParseError{e.Param, e.Problem}
		}
		return nil, err
	}
	l := &Link{Scheme: raw.Scheme, Target: raw.Target, names: upi.NameProblems(raw.Params)}
	seen := map[string]bool{}
	for _, p := range raw.Params {
		key := strings.ToLower(p.Key)
		if seen[key] {
			continue
		}
		seen[key] = true
		if key == "am" || key == "mam" {
			paise, err := upi.Amount(p.Value)
			if err != nil {
				return nil, &ParseError{key, err.Error() + ": " + upi.Quote(p.Value)}
			}
			if key == "am" {
				l.Amount = upicollect.Money(paise)
			} else {
				l.MinAmount = upicollect.Money(paise)
			}
			continue
		}
		if f := l.field(key); f != nil {
			*f = p.Value
			continue
		}
		if l.Extra == nil {
			l.Extra = url.Values{}
		}
		l.Extra[p.Key] = append(l.Extra[p.Key], p.Value)
	}
	return l, nil
}

func (l *Link) field(key string) *string {
	for _, f := range l.fields() {
		if f.key == key {
			return f.val
		}
	}
	return nil
}

// String writes the canonical link: parameters in the order pa, pn, am,
// mam, cu, tr, tid, tn, mc, mode, purpose, orgid, sign, url, then Extra by
// name; empty ones left out; spaces as %20 (some apps show '+' literally);
// '@' unescaped (some banks' apps fail on %40); '&', '=', '#', '%', '+' and
// every non-ASCII byte percent-encoded; amounts with exactly two decimals.
func (l *Link) String() string {
	var b strings.Builder
	b.WriteString(l.Scheme)
	b.WriteString("://")
	if l.Target == "" {
		b.WriteString("pay")
	} else {
		b.WriteString(l.Target)
	}
	sep := byte('?')
	add := func(key, val string) {
		if val == "" {
			return
		}
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(upi.Escape(key))
		b.WriteByte('=')
		b.WriteString(upi.Escape(val))
	}
	add("pa", l.PayeeVPA)
	add("pn", l.PayeeName)
	if l.Amount != 0 {
		add("am", l.Amount.String())
	}
	if l.MinAmount != 0 {
		add("mam", l.MinAmount.String())
	}
	for _, f := range l.fields()[2:] {
		add(f.key, *f.val)
	}
	keys := make([]string, 0, len(l.Extra))
	for k := range l.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range l.Extra[k] {
			add(k, v)
		}
	}
	return b.String()
}
