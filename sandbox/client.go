package sandbox

import (
	"fmt"

	upicollect "github.com/upicollect/upicollect-go"
)

// WithCredentials sets the merchant's MID and keys instead of the defaults
// (DefaultMID and random "pk_sandbox_…"/"sk_sandbox_…" keys). Empty fields
// keep their defaults.
func WithCredentials(c upicollect.Credentials) Option {
	return func(cfg *config) {
		if c.MID != "" {
			cfg.mid = c.MID
		}
		cfg.publicKey, cfg.secretKey = c.PublicKey, c.SecretKey
	}
}

// Credentials returns the MID and keys the server accepts.
func (s *Server) Credentials() upicollect.Credentials {
	return upicollect.Credentials{MID: s.cfg.mid, PublicKey: s.cfg.publicKey, SecretKey: s.cfg.secretKey}
}

// Client returns an SDK client wired to s: its credentials,
// WithBaseURL(s.URL()) and WithHTTPClient(s.HTTPClient()), then opts, which
// may override any of them. It panics if upicollect.NewClient fails, which
// only a bad option in opts can cause.
func (s *Server) Client(opts ...upicollect.Option) *upicollect.Client {
	all := append([]upicollect.Option{
		upicollect.WithBaseURL(s.URL()),
		upicollect.WithHTTPClient(s.HTTPClient()),
	}, opts...)
	c, err := upicollect.NewClient(s.Credentials(), all...)
	if err != nil {
		panic(fmt.Sprintf("sandbox: Client: %v", err))
	}
	return c
}
