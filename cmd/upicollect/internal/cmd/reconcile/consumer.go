package reconcile

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
)

// maxDerivedConsumer is the longest consumer name run derives from a URL
// before it hashes the URL's host and path instead.
const maxDerivedConsumer = 64

// derivedConsumer is the consumer `reconcile run` delivers as when
// --consumer is not given, derived from --deliver so that two different
// targets never share deliveries (each gets every event) while the same
// target run twice (two processes) shares one: "exec:" and the first 12
// hex digits of the SHA-256 of the command (a command may hold a secret: it
// is never stored as written); "webhook:" and the URL's host and path
// (never its user, password or query), or "webhook:" and 12 hex digits of
// their SHA-256 when that is longer than 64 bytes.
func derivedConsumer(deliver string) string {
	if strings.HasPrefix(deliver, "exec:") {
		return "exec:" + shortHash(strings.TrimSpace(strings.TrimPrefix(deliver, "exec:")))
	}
	u, err := url.Parse(deliver)
	if err != nil || u.Host == "" {
		return "webhook:" + shortHash(deliver)
	}
	name := "webhook:" + strings.ToLower(u.Host) + u.EscapedPath()
	if len(name) > maxDerivedConsumer {
		return "webhook:" + shortHash(strings.ToLower(u.Host)+u.EscapedPath())
	}
	return name
}

// shortHash is the first 12 hex digits of s's SHA-256.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// consumerName is the consumer run delivers as: --consumer, else the one
// derived from --deliver.
func (rf *RunOptions) consumerName() string {
	if rf.Consumer != "" {
		return rf.Consumer
	}
	return derivedConsumer(rf.Deliver)
}
