package cmdutil

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	upicollect "github.com/upicollect/upicollect-go"
)

func TestVersionAndUserAgent(t *testing.T) {
	assert.Equal(t, upicollect.Version, Version())
	assert.Equal(t, "upicollect-cli/"+upicollect.Version, UserAgent())
}

func TestRupees(t *testing.T) {
	for m, want := range map[upicollect.Money]string{0: "", 1: "₹0.01", 49900: "₹499.00", -150: "₹-1.50"} {
		assert.Equal(t, want, Rupees(m), "%d", m)
	}
}

func TestOptAmount(t *testing.T) {
	assert.Nil(t, OptAmount(0), "no amount: null")
	for m, want := range map[upicollect.Money]string{1: "0.01", 108: "1.08", 49900: "499.00"} {
		got := OptAmount(m)
		require.NotNil(t, got, "%d", m)
		assert.Equal(t, want, *got)
	}
}

func TestOptTime(t *testing.T) {
	assert.Nil(t, OptTime(time.Time{}), "no time: null")
	got := OptTime(time.Date(2026, 11, 26, 10, 0, 0, 500, time.FixedZone("IST", 19800)))
	require.NotNil(t, got)
	assert.Equal(t, "2026-11-26T10:00:00+05:30", *got)
}

func TestDeref(t *testing.T) {
	assert.Equal(t, "", Deref(nil))
	s := "UTR1"
	assert.Equal(t, "UTR1", Deref(&s))
	empty := ""
	assert.Equal(t, "", Deref(&empty))
}

func TestIndiaTime(t *testing.T) {
	assert.Equal(t, "", IndiaTime(time.Time{}))
	assert.Equal(t, "2026-11-26 10:00:00 IST", IndiaTime(time.Date(2026, 11, 26, 4, 30, 0, 0, time.UTC)))
	assert.Equal(t, "2026-11-27 05:29:59 IST", IndiaTime(time.Date(2026, 11, 26, 23, 59, 59, 0, time.UTC)))
}
