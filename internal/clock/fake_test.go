package clock

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var _ Clock = (*Fake)(nil)

func TestFakeSleep(t *testing.T) {
	// Started at the wall-clock time so deadlines built from it are not already
	// past in wall time, which would make ctx.Err() fire first.
	start := time.Now()

	tests := []struct {
		name    string
		start   time.Time
		ctx     func(t *testing.T) context.Context
		d       time.Duration
		wantErr error
		wantNow time.Time
	}{
		{name: "advances by d", start: start, ctx: bg, d: time.Hour, wantNow: start.Add(time.Hour)},
		{name: "zero does not advance", start: start, ctx: bg, d: 0, wantNow: start},
		{name: "negative does not advance", start: start, ctx: bg, d: -time.Hour, wantNow: start},
		{
			name: "done ctx does not advance", start: start, d: time.Hour, wantErr: context.Canceled, wantNow: start,
			ctx: func(*testing.T) context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx
			},
		},
		{
			name: "done ctx wins over zero d", start: start, d: 0, wantErr: context.Canceled, wantNow: start,
			ctx: func(*testing.T) context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx
			},
		},
		{
			name: "deadline before now+d advances to deadline", start: start, d: 2 * time.Hour,
			wantErr: context.DeadlineExceeded, wantNow: start.Add(time.Hour),
			ctx: deadlineAt(start.Add(time.Hour)),
		},
		{
			name: "deadline after now+d sleeps fully", start: start, d: time.Hour,
			wantNow: start.Add(time.Hour), ctx: deadlineAt(start.Add(2 * time.Hour)),
		},
		{
			name: "deadline exactly now+d sleeps fully", start: start, d: time.Hour,
			wantNow: start.Add(time.Hour), ctx: deadlineAt(start.Add(time.Hour)),
		},
		{
			// Fake time ahead of the deadline while the ctx is still live in wall time.
			name: "deadline before fake now does not move back", start: start.Add(3 * time.Hour), d: time.Hour,
			wantErr: context.DeadlineExceeded, wantNow: start.Add(3 * time.Hour), ctx: deadlineAt(start.Add(time.Hour)),
		},
		{
			// A zero sleep returns at once, even when fake time is past a
			// deadline the ctx (live in wall time) has not reached.
			name: "zero with deadline before fake now", start: start.Add(3 * time.Hour), d: 0,
			wantNow: start.Add(3 * time.Hour), ctx: deadlineAt(start.Add(time.Hour)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewFake(tt.start)
			err := c.Sleep(tt.ctx(t), tt.d)
			if tt.wantErr != nil {
				assert.Equal(t, tt.wantErr, err, "error must be unwrapped")
			} else {
				require.NoError(t, err)
			}
			assert.True(t, tt.wantNow.Equal(c.Now()), "now = %v, want %v", c.Now(), tt.wantNow)
			assert.Equal(t, []time.Duration{tt.d}, c.Sleeps(), "every requested sleep is recorded")
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

func TestFakeAdvance(t *testing.T) {
	start := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		by   []time.Duration
		want time.Time
	}{
		{name: "none", want: start},
		{name: "forward", by: []time.Duration{time.Second, time.Minute}, want: start.Add(time.Minute + time.Second)},
		{name: "backward", by: []time.Duration{-time.Hour}, want: start.Add(-time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewFake(start)
			for _, d := range tt.by {
				c.Advance(d)
			}
			assert.Equal(t, tt.want, c.Now())
			assert.Empty(t, c.Sleeps(), "Advance is not a sleep")
		})
	}
}

func TestFakeSleepsIsACopy(t *testing.T) {
	c := NewFake(time.Time{})
	require.NoError(t, c.Sleep(context.Background(), time.Second))
	got := c.Sleeps()
	got[0] = time.Hour
	assert.Equal(t, []time.Duration{time.Second}, c.Sleeps())
}

func TestFakeConcurrent(t *testing.T) {
	const n = 100
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewFake(start)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, c.Sleep(context.Background(), time.Millisecond))
			_ = c.Now()
			_ = c.Sleeps()
		}()
	}
	wg.Wait()
	assert.Equal(t, start.Add(n*time.Millisecond), c.Now())
	assert.Len(t, c.Sleeps(), n)
}

func bg(*testing.T) context.Context { return context.Background() }
