package clock

import (
	"context"
	"time"
)

// ErrPastDeadline is the error of a wait that is refused because it would
// end after its context's deadline, so waiting is pointless: a rate
// limiter's next slot that comes too late. It matches
// context.DeadlineExceeded (errors.Is), so callers that handle a deadline
// handle it too, and it is returned at once, before any waiting.
var ErrPastDeadline error = pastDeadline{}

type pastDeadline struct{}

func (pastDeadline) Error() string { return "the wait would end after the context's deadline" }

func (pastDeadline) Is(target error) bool { return target == context.DeadlineExceeded }

// CheckDeadline returns ErrPastDeadline if ctx has a deadline before at,
// the time a wait would end, and nil otherwise. A wait ending exactly at
// the deadline is allowed.
func CheckDeadline(ctx context.Context, at time.Time) error {
	if dl, ok := ctx.Deadline(); ok && dl.Before(at) {
		return ErrPastDeadline
	}
	return nil
}
