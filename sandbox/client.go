package sandbox

import (
	"fmt"
	"net/http"

	upicollect "github.com/upicollect/upicollect-go"
)

// WithCredentials sets the merchant's MID and keys instead of the defaults
// (DefaultMID and random "pk_sandbox_…"/"sk_sandbox_…" keys). Empty fields
// keep their defaults.
func WithCredentials(c upicollect.Credentials) Option {
	return func(cfg *config) error {
		if c.MID != "" {
			cfg.mid = c.MID
		}
		cfg.publicKey, cfg.secretKey = c.PublicKey, c.SecretKey
		return nil
	}
}

// Credentials returns the MID and keys the service accepts.
func (s *Service) Credentials() upicollect.Credentials {
	return upicollect.Credentials{MID: s.cfg.mid, PublicKey: s.cfg.publicKey, SecretKey: s.cfg.secretKey}
}

// Client returns an SDK client wired to s: its credentials,
// WithBaseURL(s.URL()) and an http.Client that, like the SDK's default
// one, does not follow redirects and keeps up to upicollect.DefaultMaxConns idle
// connections (HTTPClient's transport); then opts, which may override any of
// them. It panics if upicollect.NewClient fails, which only a bad option
// in opts can cause.
func (s *Server) Client(opts ...upicollect.Option) *upicollect.Client {
	hc := s.HTTPClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	all := append([]upicollect.Option{upicollect.WithBaseURL(s.URL()), upicollect.WithHTTPClient(hc)}, opts...)
	c, err := upicollect.NewClient(s.Credentials(), all...)
	if err != nil {
		panic(fmt.Sprintf("sandbox: Client: %v", err))
	}
	return c
}
