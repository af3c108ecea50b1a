package clock

import (
	"time"

	"github.com/upicollect/upicollect-go/clock"
)

// Clock is clock.Clock, the time seam of code that waits.
type Clock = clock.Clock

// Real is the Clock of the system's time, for production use.
var Real Clock = clock.Real{}

// Manual is clock.Manual, the one manual clock of the tests.
type Manual = clock.Manual

// NewManual returns a Manual whose Now is start.
func NewManual(start time.Time) *Manual { return clock.NewManual(start) }
