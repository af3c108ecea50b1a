package retry

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxDuration is the longest time.Duration; absurd Retry-After values clamp to
// it rather than overflow. Callers are expected to cap delays they honour.
const maxDuration = time.Duration(math.MaxInt64)

// ParseRetryAfter reads an HTTP Retry-After value, either delta-seconds
// ("120") or an HTTP-date in any http.ParseTime form, relative to now.
// Surrounding whitespace is ignored. ok is false when value is empty or
// unparseable (including negative or fractional seconds); a date in the past
// gives 0, true. Seconds too large for a time.Duration clamp to the maximum
// time.Duration.
func ParseRetryAfter(value string, now time.Time) (d time.Duration, ok bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return 0, false
	}
	if isDigits(v) {
		// All digits, so the only possible error is ErrRange.
		secs, err := strconv.ParseUint(v, 10, 64)
		if err != nil || secs > uint64(maxDuration/time.Second) {
			return maxDuration, true
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	// Time.Sub saturates instead of overflowing, so far dates are safe.
	return max(t.Sub(now), 0), true
}

// isDigits reports whether s is non-empty ASCII digits only: RFC 9110
// delay-seconds allows no sign, fraction or spaces.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
