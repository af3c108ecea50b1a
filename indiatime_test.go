package upicollect_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	upicollect "github.com/upicollect/upicollect-go"
)

// TestIndiaTime: IST, five and a half hours ahead of UTC all year round.
func TestIndiaTime(t *testing.T) {
	for _, month := range []time.Month{time.January, time.July} {
		name, offset := time.Date(2026, month, 1, 0, 0, 0, 0, upicollect.IndiaTime).Zone()
		assert.Equal(t, "IST", name)
		assert.Equal(t, 5*3600+30*60, offset, "no daylight saving")
	}
	assert.Equal(t, "2026-11-26 15:30:00", time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC).In(upicollect.IndiaTime).Format(time.DateTime))
}
