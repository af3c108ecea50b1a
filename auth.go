package upicollect

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/upicollect/upicollect-go/internal/redact"
)

// Credentials identify and authenticate a merchant: MID goes in every body,
// the keys make the Basic Authorization header. They never print the secret
// key: String, GoString, every fmt verb and LogValue redact it.
type Credentials struct{ MID, PublicKey, SecretKey string }

// Environment variables read by CredentialsFromEnv (and the CLI).
const (
	EnvBaseURL   = "UPICOLLECT_BASE_URL"
	EnvMID       = "UPICOLLECT_MID"
	EnvPublicKey = "UPICOLLECT_PUBLIC_KEY"
	EnvSecretKey = "UPICOLLECT_SECRET_KEY"
)

// CredentialsFromEnv reads UPICOLLECT_MID, UPICOLLECT_PUBLIC_KEY and
// UPICOLLECT_SECRET_KEY. It fails, naming every missing variable, when any
// of them is unset or empty.
func CredentialsFromEnv() (Credentials, error) {
	c := Credentials{
		MID:       os.Getenv(EnvMID),
		PublicKey: os.Getenv(EnvPublicKey),
		SecretKey: os.Getenv(EnvSecretKey),
	}
	var missing []string
	for _, v := range []struct{ name, val string }{{EnvMID, c.MID}, {EnvPublicKey, c.PublicKey}, {EnvSecretKey, c.SecretKey}} {
		if v.val == "" {
			missing = append(missing, v.name)
		}
	}
	if len(missing) > 0 {
		return Credentials{}, fmt.Errorf("upicollect: missing environment variables: %s", strings.Join(missing, ", "))
	}
	return c, nil
}

// redacted stands for the secret key wherever Credentials print.
const redacted = redact.Mark

// String shows the MID and public key, never the secret key.
func (c Credentials) String() string {
	secret := ""
	if c.SecretKey != "" {
		secret = redacted
	}
	return fmt.Sprintf("{MID:%s PublicKey:%s SecretKey:%s}", c.MID, c.PublicKey, secret)
}

// GoString is String for %#v.
func (c Credentials) GoString() string { return "upicollect.Credentials" + c.String() }

// Format makes every verb (%v, %+v, %s, %q, %#v, ...) print the redacted form.
func (c Credentials) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, c.GoString())
		return
	}
	fmt.Fprint(f, c.String())
}

// LogValue logs the MID and public key only.
func (c Credentials) LogValue() slog.Value {
	return slog.GroupValue(slog.String("mid", c.MID), slog.String("public_key", c.PublicKey))
}

// MarshalJSON encodes the MID and public key, with the secret key redacted,
// so that a struct holding or embedding Credentials cannot serialise it.
func (c Credentials) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct{ MID, PublicKey, SecretKey string }{c.MID, c.PublicKey, redactedIfSet(c.SecretKey)})
}

// MarshalText is String, for text encoders (XML, YAML, map keys).
func (c Credentials) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

func redactedIfSet(s string) string {
	if s == "" {
		return ""
	}
	return redacted
}

// validate checks the credentials for NewClient: all present, and no control
// characters, which would corrupt the header or hint at a pasted secret with
// a newline.
func (c Credentials) validate() error {
	var errs []error
	for _, f := range []struct{ name, val string }{{"MID", c.MID}, {"PublicKey", c.PublicKey}, {"SecretKey", c.SecretKey}} {
		switch {
		case f.val == "":
			errs = append(errs, fmt.Errorf("upicollect: credentials: %s is empty", f.name))
		case hasControlOrSpace(f.val):
			errs = append(errs, fmt.Errorf("upicollect: credentials: %s contains whitespace or control characters", f.name))
		}
	}
	if strings.Contains(c.PublicKey, ":") {
		// Basic auth splits at the first colon; one in the user part would
		// give the service a different key pair.
		errs = append(errs, errors.New("upicollect: credentials: PublicKey contains ':'"))
	}
	return errors.Join(errs...)
}

// account is what a Client may show of its credentials.
type account struct{ MID, PublicKey string }

// header is the Authorization header value, "Basic " + base64(public:secret).
// The Client keeps it behind a pointer to this string type: fmt prints such
// a pointer as an address under every verb and at every depth (a pointer to
// a struct it would follow, under a wrong verb), so that even a copy of a
// Client printed with %+v or %s cannot reach the secret. Every method an
// encoder could call on it redacts.
type header string

func newHeader(c Credentials) *header {
	h := header(redact.BasicAuth(c.PublicKey, c.SecretKey))
	return &h
}

// authorization is the Authorization header value to send.
func (h *header) authorization() string { return string(*h) }

func (header) String() string               { return redacted }
func (header) GoString() string             { return redacted }
func (header) Format(f fmt.State, _ rune)   { fmt.Fprint(f, redacted) }
func (header) LogValue() slog.Value         { return slog.StringValue(redacted) }
func (header) MarshalJSON() ([]byte, error) { return json.Marshal(redacted) }
func (header) MarshalText() ([]byte, error) { return []byte(redacted), nil }
