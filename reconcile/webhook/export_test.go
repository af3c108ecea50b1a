package webhook

import (
	"net/http"
	"time"
)

// ReceiveAt is Receive at the time now, for tests on a fixed clock.
func ReceiveAt(r *http.Request, secret []byte, tolerance time.Duration, now time.Time) (*Delivery, error) {
	return receiveAt(r, secret, tolerance, now)
}

// Sign is the SignatureHeader value for body signed at t with secrets.
var Sign = sign

// ParseSignature parses a SignatureHeader value: its time and v1 count.
func ParseSignature(h string) (t int64, v1s int, err error) {
	sig, err := parseSignature(h)
	return sig.t, len(sig.v1s), err
}

// MaxBody is the largest body Receive accepts.
const MaxBody = maxBody
