package clock

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRealNow(t *testing.T) {
	before := time.Now()
	got := Real{}.Now()
	after := time.Now()
	assert.False(t, got.Before(before), "Now went backwards")
	assert.False(t, got.After(after), "Now ran ahead")
}

func TestRealSleep(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name    string
		ctx     func(t *testing.T) context.Context
		d       time.Duration
		wantErr error
		minWait time.Duration
		// ends says Sleep must return well before d: checked with a bounded
		// wait, so a Sleep that ignores ctx fails instead of hanging.
		ends bool
	}{
		{name: "zero", ctx: bg, d: 0},
		{name: "negative", ctx: bg, d: -time.Hour},
		{name: "one millisecond", ctx: bg, d: time.Millisecond, minWait: time.Millisecond},
		{name: "cancelled before, zero d", ctx: func(*testing.T) context.Context { return cancelled }, d: 0, wantErr: context.Canceled},
		{name: "cancelled before, long d", ctx: func(*testing.T) context.Context { return cancelled }, d: time.Hour, wantErr: context.Canceled, ends: true},
		{
			name: "deadline during sleep",
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
				t.Cleanup(cancel)
				return ctx
			},
			d: time.Hour, wantErr: context.DeadlineExceeded, ends: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx(t)
			start := time.Now()
			done := make(chan error, 1)
			go func() { done <- Real{}.Sleep(ctx, tt.d) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				require.False(t, tt.ends, "Sleep did not end with its context")
				err = <-done
			}
			elapsed := time.Since(start)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Equal(t, tt.wantErr, err, "error must be ctx.Err() itself, unwrapped")
			} else {
				require.NoError(t, err)
			}
			assert.GreaterOrEqual(t, elapsed, tt.minWait)
		})
	}
}

func bg(*testing.T) context.Context { return context.Background() }
