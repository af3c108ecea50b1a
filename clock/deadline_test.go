package clock

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestErrPastDeadline(t *testing.T) {
	tests := []struct {
		name   string
		target error
		want   bool
	}{
		{name: "itself", target: ErrPastDeadline, want: true},
		{name: "context.DeadlineExceeded", target: context.DeadlineExceeded, want: true},
		{name: "not context.Canceled", target: context.Canceled, want: false},
		{name: "not another error", target: errors.New("the wait would end after the context's deadline"), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errors.Is(ErrPastDeadline, tt.target))
			wrapped := fmt.Errorf("rate limit: %w", ErrPastDeadline)
			assert.Equal(t, tt.want, errors.Is(wrapped, tt.target), "wrapped")
		})
	}
	assert.Contains(t, ErrPastDeadline.Error(), "after the context's deadline")
}

func TestCheckDeadline(t *testing.T) {
	dl := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		ctx  func(t *testing.T) context.Context
		at   time.Time
		want error
	}{
		{name: "no deadline", ctx: bg, at: dl.Add(100 * 365 * 24 * time.Hour)},
		{name: "ends before the deadline", ctx: deadlineAt(dl), at: dl.Add(-time.Nanosecond)},
		{name: "ends at the deadline", ctx: deadlineAt(dl), at: dl},
		{name: "ends after the deadline", ctx: deadlineAt(dl), at: dl.Add(time.Nanosecond), want: ErrPastDeadline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CheckDeadline(tt.ctx(t), tt.at))
		})
	}
}

func deadlineAt(dl time.Time) func(t *testing.T) context.Context {
	return func(t *testing.T) context.Context {
		ctx, cancel := context.WithDeadline(context.Background(), dl)
		t.Cleanup(cancel)
		return ctx
	}
}
