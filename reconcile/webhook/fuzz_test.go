package webhook_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upicollect/upicollect-go/reconcile/webhook"
)

// FuzzParseSignature: any header value parses or is refused with one of
// the header's errors, without panicking, and what parses is within the
// header's limits; a header Sign wrote parses back to its time.
func FuzzParseSignature(f *testing.F) {
	mac := strings.Repeat("0f", 32)
	for _, seed := range []string{
		"t=1772359340,v1=" + mac,
		"t=1772359340,v1=" + mac + ",v1=" + mac,
		"v1=" + mac + ",t=1",
		"t=1,v0=x,v2=y,v1=" + mac,
		" t=1 ,\tv1=" + mac + ",,", "t=1,v1=" + strings.ToUpper(mac),
		"t=,v1=", "t=1,t=2", "t=99999999999999999999,v1=" + mac, "=,=", ",", "t=1,v1=" + mac[1:] + "G",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, h string) {
		ts, n, err := webhook.ParseSignature(h)
		if err != nil {
			if !errors.Is(err, webhook.ErrMalformedSignature) && !errors.Is(err, webhook.ErrNoSignature) {
				t.Fatalf("%q: %v is not a header error", h, err)
			}
			return
		}
		if len(h) > 1024 || n < 1 || n > 15 || ts < 0 || ts > 999999999999 {
			t.Fatalf("%q parsed out of bounds: t=%d, %d v1 values", h, ts, n)
		}
		if !slices.ContainsFunc(strings.Split(h, ","), func(item string) bool { return strings.HasPrefix(strings.Trim(item, " \t"), "t=") }) {
			t.Fatalf("%q parsed without a t item", h)
		}
		// Sign writes what the parser reads.
		at := time.Unix(ts, 0)
		back, m, err := webhook.ParseSignature(webhook.Sign(at, []byte(h), []byte("k")))
		if err != nil || back != ts || m != 1 {
			t.Fatalf("Sign at %d: parsed %d, %d v1 values, %v", ts, back, m, err)
		}
	})
}
