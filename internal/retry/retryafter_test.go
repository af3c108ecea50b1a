package retry

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2015, 10, 21, 7, 27, 0, 0, time.UTC)

	tests := []struct {
		name   string
		value  string
		want   time.Duration
		wantOK bool
	}{
		{name: "seconds", value: "120", want: 120 * time.Second, wantOK: true},
		{name: "zero seconds", value: "0", want: 0, wantOK: true},
		{name: "leading zeros", value: "007", want: 7 * time.Second, wantOK: true},
		{name: "surrounding space", value: " \t120 ", want: 120 * time.Second, wantOK: true},
		{name: "largest exact seconds", value: "9223372036", want: 9223372036 * time.Second, wantOK: true},
		{name: "seconds beyond Duration clamp", value: "9223372037", want: maxDuration, wantOK: true},
		{name: "seconds beyond uint64 clamp", value: "99999999999999999999999999", want: maxDuration, wantOK: true},
		{name: "empty", value: "", wantOK: false},
		{name: "blank", value: "   ", wantOK: false},
		{name: "negative seconds", value: "-5", wantOK: false},
		{name: "plus sign", value: "+5", wantOK: false},
		{name: "fraction", value: "1.5", wantOK: false},
		{name: "inner space", value: "1 20", wantOK: false},
		{name: "garbage", value: "soon", wantOK: false},
		{name: "IMF-fixdate future", value: "Wed, 21 Oct 2015 07:28:00 GMT", want: time.Minute, wantOK: true},
		{name: "IMF-fixdate now", value: "Wed, 21 Oct 2015 07:27:00 GMT", want: 0, wantOK: true},
		{name: "IMF-fixdate past", value: "Wed, 21 Oct 2015 07:00:00 GMT", want: 0, wantOK: true},
		{name: "RFC 850 date", value: "Wednesday, 21-Oct-15 07:29:00 GMT", want: 2 * time.Minute, wantOK: true},
		{name: "ANSI C date", value: "Wed Oct 21 07:30:00 2015", want: 3 * time.Minute, wantOK: true},
		{name: "far future date saturates", value: "Fri, 31 Dec 9999 23:59:59 GMT", want: maxDuration, wantOK: true},
		{name: "bad date", value: "Wed, 32 Oct 2015 07:28:00 GMT", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseRetryAfter(tt.value, now)
			require.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	// Seeds live in testdata/fuzz/FuzzParseRetryAfter.
	now := time.Date(2015, 10, 21, 7, 27, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, value string) {
		d, ok := ParseRetryAfter(value, now)
		if !ok {
			require.Zero(t, d, "not-ok results carry no delay")
			return
		}
		require.GreaterOrEqual(t, d, time.Duration(0))
	})
}
