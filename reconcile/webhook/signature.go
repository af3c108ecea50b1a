package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader is the header that carries a delivery's signature:
//
//	Upicollect-Signature: t=1772359330,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd
//
// t is the time of signing in Unix seconds; each v1 is the lower-case hex
// HMAC-SHA256, keyed with a secret, of the bytes "<t>.<body>" (t as
// written in the header, a full stop, the body as sent). A sender that is
// moving to a new secret signs with both and sends two v1 values; a
// receiver accepts the delivery when any of them matches its secret. How a
// receiver reads the header (its other spellings, repeats, whitespace and
// case) is the package documentation's Signature section.
const SignatureHeader = "Upicollect-Signature"

// Limits of the header, so that parsing it is bounded work.
const (
	maxHeaderLen = 1024 // bytes, all the header's field lines together
	tDigits      = 12   // Unix seconds up to the year 33658
)

// signature is a parsed SignatureHeader.
type signature struct {
	t   int64    // Unix seconds
	ts  string   // t as written: what was signed
	v1s [][]byte // the v1 MACs, decoded
}

// signatureValue returns the SignatureHeader of h as a CGI gateway (PHP's
// $_SERVER, WSGI's environ) presents it, so that every receiver reads the
// same header: the values of every field whose name is SignatureHeader
// compared without case and with '_' for '-' (Upicollect_Signature too:
// a gateway maps both to HTTP_UPICOLLECT_SIGNATURE), joined with ",". The
// joined value has the repeated t of two signatures, which parseSignature
// refuses. Fields of different names are joined in the order of their
// names: the verdict does not depend on it.
func signatureValue(h http.Header) (string, bool) {
	var names []string
	for name := range h {
		if strings.EqualFold(strings.ReplaceAll(name, "_", "-"), SignatureHeader) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "", false
	}
	slices.Sort(names)
	var values []string
	for _, name := range names {
		values = append(values, h[name]...)
	}
	return strings.Join(values, ","), true
}

// mac returns HMAC-SHA256(secret, ts + "." + body).
func mac(secret []byte, ts string, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(ts))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// sign returns the SignatureHeader value for body signed at t with each
// secret, in order.
func sign(t time.Time, body []byte, secrets ...[]byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=")
	b.WriteString(ts)
	for _, s := range secrets {
		b.WriteString(",v1=")
		b.WriteString(hex.EncodeToString(mac(s, ts, body)))
	}
	return b.String()
}

// parseSignature parses a SignatureHeader value: items separated by ","
// (spaces and tabs around an item are trimmed and an empty item is
// skipped, as in any HTTP list), each key=value split at its first "=";
// exactly one t; at least one v1, each 64 hex digits in either case. Items
// with other keys (a later scheme's v2) are skipped, so that a sender can
// add them without breaking receivers. The errors wrap
// ErrMalformedSignature, or ErrNoSignature when no v1 is present.
func parseSignature(h string) (signature, error) {
	var sig signature
	if len(h) > maxHeaderLen {
		return sig, fmt.Errorf("%w: longer than %d bytes", ErrMalformedSignature, maxHeaderLen)
	}
	seenT := false
	for _, item := range strings.Split(h, ",") {
		item = strings.Trim(item, " \t")
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return sig, fmt.Errorf("%w: an item is not key=value", ErrMalformedSignature)
		}
		switch k {
		case "t":
			if seenT {
				return sig, fmt.Errorf("%w: t appears twice", ErrMalformedSignature)
			}
			seenT = true
			t, err := parseUnix(v)
			if err != nil {
				return sig, err
			}
			sig.t, sig.ts = t, v
		case "v1":
			m, err := hex.DecodeString(v) // either case: the same MAC
			if err != nil || len(m) != sha256.Size {
				return sig, fmt.Errorf("%w: v1 is not %d hex digits", ErrMalformedSignature, 2*sha256.Size)
			}
			sig.v1s = append(sig.v1s, m)
		}
	}
	if !seenT {
		return sig, fmt.Errorf("%w: t is missing", ErrMalformedSignature)
	}
	if len(sig.v1s) == 0 {
		return sig, fmt.Errorf("%w: %s has no v1 value", ErrNoSignature, SignatureHeader)
	}
	return sig, nil
}

// parseUnix parses t: decimal digits only (no sign, no space), at most
// tDigits of them.
func parseUnix(v string) (int64, error) {
	if v == "" || len(v) > tDigits {
		return 0, fmt.Errorf("%w: t is not 1 to %d digits", ErrMalformedSignature, tDigits)
	}
	var t int64
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: t is not 1 to %d digits", ErrMalformedSignature, tDigits)
		}
		t = t*10 + int64(c-'0')
	}
	return t, nil
}

// verify reports whether any of sig's v1 values is body's MAC under
// secret, comparing each in constant time.
func (sig signature) verify(secret, body []byte) bool {
	want := mac(secret, sig.ts, body)
	ok := false
	for _, m := range sig.v1s {
		if hmac.Equal(m, want) {
			ok = true
		}
	}
	return ok
}
