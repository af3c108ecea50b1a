package upicollect

import (
	"net/http"

	"github.com/upicollect/upicollect-go/internal/redact"
)

// Redactor hides one key pair's credentials in text a program shows
// itself (a command's output, a request it prints), with the SDK's own
// list: the secret key, and the Authorization value made from the pair in
// standard, raw and URL base64, each as written, percent-encoded or
// JSON-escaped, found as whole tokens and replaced by "[REDACTED]". The
// SDK's errors, answers and log records are already filtered; a Redactor
// is for everything else. Get one from Credentials.Redactor. A nil
// *Redactor finds nothing. It is immutable and safe for concurrent use,
// and it never prints what it searches for.
type Redactor struct{ f *redact.Filter }

// Redactor returns the Redactor of c's key pair. Without a secret key it
// finds nothing: there is no credential to hide.
func (c Credentials) Redactor() *Redactor {
	return &Redactor{f: redact.New(c.PublicKey, c.SecretKey)}
}

func (r *Redactor) filter() *redact.Filter {
	if r == nil {
		return nil
	}
	return r.f
}

// Text returns s with every credential replaced; s itself when it holds
// none.
func (r *Redactor) Text(s string) string { return r.filter().Text(s) }

// Bytes returns b with every credential replaced: b itself when it holds
// none. Valid JSON stays valid JSON with the same structure.
func (r *Redactor) Bytes(b []byte) []byte { return r.filter().Bytes(b) }

// Header returns a copy of h with Authorization and Proxy-Authorization
// reduced to their scheme ("Basic [REDACTED]") and credentials replaced in
// every other value.
func (r *Redactor) Header(h http.Header) http.Header { return r.filter().Header(h) }
