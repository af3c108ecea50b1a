package upicollect

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMeaningOf: the sentinels codeTable gives each status code.
func TestMeaningOf(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]sentinels{
		0: sentinels(0), 200: sentinels(0), 302: sentinels(0), 399: sentinels(0),
		400: isInvalid, 401: isUnauthorized, 402: isInvalid, 403: isUnauthorized, 404: isNotFound,
		409: isDuplicate, 429: isRateLimited, 499: isInvalid,
		500: isServer, 599: isServer, 600: sentinels(0),
	} {
		assert.Equal(t, want, meaningOf(code).matches, "%d", code)
	}
}

// TestCodeTableRetries: which codes each safety may repeat, which make a
// create's outcome unknown, and which honour Retry-After.
func TestCodeTableRetries(t *testing.T) {
	t.Parallel()
	for _, code := range []int{429, 500, 502, 503, 504} {
		m := meaningOf(code)
		assert.Equal(t, [3]bool{true, true, false}, m.retry, "%d", code)
		assert.True(t, m.ambiguous, "%d", code)
		assert.NotEmpty(t, m.transient, "%d", code)
		assert.Equal(t, code == 429 || code == 503, m.retryAfter, "%d: Retry-After honoured", code)
	}
	for _, code := range []int{0, 200, 302, 400, 401, 403, 404, 409, 422, 501, 505, 599, 600} {
		m := meaningOf(code)
		assert.Equal(t, [3]bool{}, m.retry, "%d", code)
		assert.False(t, m.ambiguous, "%d", code)
		assert.Empty(t, m.transient, "%d", code)
		assert.False(t, m.retryAfter, "%d: Retry-After honoured", code)
	}
}
