// Package upi reads and writes UPI deep links (upi://pay?pa=…&am=…). It is
// the one parser behind the public upilink package and the SDK's
// Intent.Verify, which cannot import each other.
package upi

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/upicollect/upicollect-go/internal/wire"
)

// Param is one query parameter: Key as written, Value decoded.
type Param struct{ Key, Value string }

// Link is a parsed link: its scheme, what stands between the scheme and the
// query ("pay", "upi/pay"), and its parameters in order.
type Link struct {
	Scheme string
	Target string
	Params []Param
}

// Error names the parameter (or "link") that could not be read.
type Error struct{ Param, Problem string }

func (e *Error) Error() string { return "upi link: " + e.Param + ": " + e.Problem }

// refused are schemes that are never a payment app's: a link with one of
// them would open a page or run script, not pay.
var refused = map[string]bool{
	"http": true, "https": true, "javascript": true, "data": true, "file": true,
	"about": true, "blob": true, "vbscript": true, "ftp": true, "mailto": true,
}

// Parse splits raw into scheme, target and decoded parameters. '+' and
// "%20" both read as a space. The link must carry a pa parameter.
func Parse(raw string) (*Link, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		scheme, rest, ok = strings.Cut(raw, ":")
	}
	scheme = strings.ToLower(scheme)
	if !ok || scheme == "" || !validScheme(scheme) {
		return nil, &Error{"link", "no scheme such as upi://"}
	}
	if refused[scheme] {
		return nil, &Error{"link", fmt.Sprintf("scheme %q is not a UPI app's", scheme)}
	}
	target, query, _ := strings.Cut(rest, "?")
	if i := strings.IndexByte(query, '#'); i >= 0 {
		query = query[:i]
	}
	l := &Link{Scheme: scheme, Target: target}
	for _, part := range strings.Split(query, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, &Error{k, "bad percent-encoding in the name"}
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, &Error{key, "bad percent-encoding"}
		}
		l.Params = append(l.Params, Param{key, val})
	}
	if l.Get("pa") == "" {
		return nil, &Error{"pa", "missing: a UPI link names its payee"}
	}
	return l, nil
}

// Get returns the first value of key, matched case-insensitively ("orgId"
// is orgid).
func (l *Link) Get(key string) string {
	for _, p := range l.Params {
		if strings.EqualFold(p.Key, key) {
			return p.Value
		}
	}
	return ""
}

func validScheme(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return true
}

// Amount reads an am or mam value in rupees into paise: at most two
// decimals, never rounded, never negative.
func Amount(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if _, frac, ok := strings.Cut(s, "."); ok && len(frac) > 2 {
		return 0, errors.New("more than two decimals")
	}
	if strings.ContainsAny(s, "eE+-") {
		return 0, errors.New("not a plain decimal amount")
	}
	paise, err := wire.ParseDecimalPaise(s)
	if err != nil {
		return 0, errors.New("not an amount")
	}
	return paise, nil
}

// Escape writes a value for a link: unreserved characters and '@' as they
// are, a space as %20 (some apps show '+' literally), everything else as
// %XX.
func Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '@':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
