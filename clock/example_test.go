package clock_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/upicollect/upicollect-go/clock"
)

// A test moves a Manual clock only once the code under test waits on it,
// so that the wait costs no wall time.
func ExampleManual() {
	m := clock.NewManual(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	done := make(chan error, 1)
	go func() { done <- m.Sleep(ctx, time.Hour) }() // the code under test

	if err := m.WaitForSleepers(ctx, 1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Advance(time.Hour).Format(time.Kitchen), <-done)
	// Output: 10:00AM <nil>
}

// A wait that would end after its context's deadline is refused at once
// with ErrPastDeadline, which callers handle as a deadline.
func ExampleCheckDeadline() {
	now := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(time.Minute))
	defer cancel()

	err := clock.CheckDeadline(ctx, now.Add(time.Hour))
	fmt.Println(errors.Is(err, clock.ErrPastDeadline), errors.Is(err, context.DeadlineExceeded))
	fmt.Println(clock.CheckDeadline(ctx, now.Add(time.Second)))
	// Output:
	// true true
	// <nil>
}
