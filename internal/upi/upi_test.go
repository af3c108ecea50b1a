package upi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	l, err := Parse("tez://upi/pay?pa=shop%40okaxis&pn=Chai+Shop&am=499.00&orgId=159761&tn=a%20b")
	require.NoError(t, err)
	assert.Equal(t, "tez", l.Scheme)
	assert.Equal(t, "upi/pay", l.Target)
	assert.Equal(t, "shop@okaxis", l.Get("pa"))
	assert.Equal(t, "Chai Shop", l.Get("pn"))
	assert.Equal(t, "a b", l.Get("TN"))
	assert.Equal(t, "159761", l.Get("orgid"))

	for _, bad := range []string{"", "pay?pa=x@y", "https://x.example/pay?pa=a@b", "javascript:alert(1)", "upi://pay?pn=x", "upi://pay?pa=%zz", "1up://pay?pa=a@b"} {
		_, err := Parse(bad)
		var e *Error
		assert.ErrorAs(t, err, &e, bad)
	}
}

func TestAmount(t *testing.T) {
	for s, want := range map[string]int64{"": 0, "499": 49900, "1.08": 108, "1.5": 150, "100000.00": 10000000} {
		got, err := Amount(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	for _, bad := range []string{"1.005", "-1", "1e2", "+1", "abc", "1,000"} {
		_, err := Amount(bad)
		assert.Error(t, err, bad)
	}
}

func TestEscape(t *testing.T) {
	assert.Equal(t, "a%20b@c%26d%3De%23f%25g%2Bh%3F", Escape("a b@c&d=e#f%g+h?"))
	assert.Equal(t, "%E0%A4%B0", Escape("र"))
}
