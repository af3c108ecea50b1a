// Package upi reads, writes and checks UPI deep links (upi://pay?pa=…&am=…):
// the one parser and the one link-safety policy behind the public upilink
// package, the SDK's decoding of an intent and Intent.Verify (which cannot
// import each other).
package upi

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/upicollect/upicollect-go/internal/wire"
)

// Param is one query parameter: Key and Value decoded, Raw the key as
// written.
type Param struct{ Key, Value, Raw string }

// Link is a parsed link: its scheme, what stands between the scheme and the
// query ("pay", "upi/pay"), and its parameters in order.
type Link struct {
	Scheme string
	Target string
	Params []Param
}

// Error names the parameter (or "link") that could not be read.
type Error struct{ Param, Problem string }

// errNoPayee is parse's error for a link without a pa: the one thing
// wrong with a link that reads otherwise.
var errNoPayee = &Error{"pa", "missing: a UPI link names its payee"}

// Error formats the problem as "upi link: param: problem", the parameter's
// name escaped and cut when it is not plain.
func (e *Error) Error() string { return "upi link: " + PlainOrQuote(e.Param) + ": " + e.Problem }

// Parse splits raw into scheme, target and decoded parameters. '+' and
// "%20" both read as a space. The link must carry a pa parameter, and its
// scheme must be one a UPI app may own (see Scheme).
func Parse(raw string) (*Link, error) {
	scheme, target, params, err := parse(raw, nil, true)
	if err != nil {
		return nil, err
	}
	return &Link{Scheme: scheme, Target: target, Params: params}, nil
}

// parse is Parse, appending the parameters to params: a caller's buffer,
// so that checking a link need not allocate them. Without decode, values
// are kept as written (their escapes checked): value decodes one when it
// is needed.
func parse(raw string, params []Param, decode bool) (scheme, target string, _ []Param, _ error) {
	if len(raw) > MaxLen {
		return "", "", nil, &Error{"link", fmt.Sprintf("longer than %d bytes, more than any QR code holds", MaxLen)}
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		scheme, rest, ok = strings.Cut(raw, ":")
	}
	scheme = strings.ToLower(scheme)
	if !ok || scheme == "" || !validScheme(scheme) {
		return "", "", nil, &Error{"link", "no scheme such as upi://"}
	}
	if err := Scheme(scheme); err != nil {
		return "", "", nil, err
	}
	target, query, _ := strings.Cut(rest, "?")
	if i := strings.IndexByte(query, '#'); i >= 0 {
		query = query[:i]
	}
	for query != "" {
		var part string
		part, query, _ = strings.Cut(query, "&")
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return "", "", nil, &Error{k, "bad percent-encoding in the name"}
		}
		val := v
		if decode {
			val, err = url.QueryUnescape(v)
		} else if !validEscapes(v) {
			err = url.EscapeError(v)
		}
		if err != nil {
			return "", "", nil, &Error{key, "bad percent-encoding"}
		}
		params = append(params, Param{Key: key, Value: val, Raw: k})
	}
	if get(params, "pa") == "" {
		return "", "", nil, errNoPayee
	}
	return scheme, target, params, nil
}

// Get returns the first value of key, matched case-insensitively ("orgId"
// is orgid).
func (l *Link) Get(key string) string { return get(l.Params, key) }

func get(params []Param, key string) string {
	for _, p := range params {
		if strings.EqualFold(p.Key, key) {
			return p.Value
		}
	}
	return ""
}

// validEscapes reports whether every '%' in s starts a %XX escape.
func validEscapes(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !ishex(s[i+1]) || !ishex(s[i+2])) {
			return false
		}
	}
	return true
}

func ishex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// value is the decoded value of key in params kept as written.
func value(params []Param, key string) string {
	v, _ := url.QueryUnescape(get(params, key)) // parse checked its escapes
	return v
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
