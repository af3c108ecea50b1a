package clock

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// move is one step of a test on a Manual: an Advance by d, or a Set to at.
type move struct {
	advance time.Duration
	set     time.Time
}

func (mv move) apply(m *Manual) {
	if mv.set.IsZero() {
		m.Advance(mv.advance)
		return
	}
	m.Set(mv.set)
}

func TestManualMoves(t *testing.T) {
	tests := []struct {
		name  string
		moves []move
		want  time.Time
	}{
		{name: "none", want: start},
		{name: "advance forward", moves: []move{{advance: time.Second}, {advance: time.Hour}}, want: start.Add(time.Hour + time.Second)},
		{name: "advance backward", moves: []move{{advance: -time.Hour}}, want: start.Add(-time.Hour)},
		{name: "set forward", moves: []move{{set: start.Add(72 * time.Hour)}}, want: start.Add(72 * time.Hour)},
		{name: "set backward", moves: []move{{set: start.Add(-72 * time.Hour)}}, want: start.Add(-72 * time.Hour)},
		{name: "set then advance", moves: []move{{set: start.Add(time.Hour)}, {advance: time.Minute}}, want: start.Add(time.Hour + time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewManual(start)
			for _, mv := range tt.moves {
				mv.apply(m)
			}
			assert.Equal(t, tt.want, m.Now())
		})
	}
}

func TestManualAdvanceReturnsNewTime(t *testing.T) {
	m := NewManual(start)
	assert.Equal(t, start.Add(time.Minute), m.Advance(time.Minute))
	assert.Equal(t, start.Add(-time.Minute), m.Advance(-2*time.Minute))
}

func TestManualZeroValue(t *testing.T) {
	var m Manual
	assert.True(t, m.Now().IsZero())
	assert.Equal(t, 0, m.Sleepers())
	bound, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- m.Sleep(bound, time.Second) }()
	require.NoError(t, m.WaitForSleepers(bound, 1))
	m.Advance(time.Second)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-bound.Done():
		t.Fatal("the zero Manual's sleeper did not wake")
	}
}

func TestManualSleepWakes(t *testing.T) {
	tests := []struct {
		name  string
		sleep time.Duration
		moves []move
		wakes bool
	}{
		{name: "advance exactly", sleep: time.Second, moves: []move{{advance: time.Second}}, wakes: true},
		{name: "advance past", sleep: time.Second, moves: []move{{advance: time.Hour}}, wakes: true},
		{name: "advance short", sleep: time.Second, moves: []move{{advance: 999 * time.Millisecond}}},
		{name: "advances add up", sleep: time.Second, moves: []move{{advance: 500 * time.Millisecond}, {advance: 500 * time.Millisecond}}, wakes: true},
		{name: "advance backward", sleep: time.Second, moves: []move{{advance: -time.Hour}}},
		{name: "set to the wake-up time", sleep: time.Hour, moves: []move{{set: start.Add(time.Hour)}}, wakes: true},
		{name: "set short", sleep: time.Hour, moves: []move{{set: start.Add(time.Minute)}}},
		{name: "set backward then forward past", sleep: time.Hour, moves: []move{{set: start.Add(-time.Hour)}, {advance: 2 * time.Hour}}, wakes: true},
		{name: "set backward then forward short", sleep: time.Hour, moves: []move{{set: start.Add(-time.Hour)}, {advance: time.Hour}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewManual(start)
			bound, cancelBound := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancelBound()
			ctx, cancel := context.WithCancel(bound)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- m.Sleep(ctx, tt.sleep) }()
			require.NoError(t, m.WaitForSleepers(bound, 1))
			for _, mv := range tt.moves {
				mv.apply(m)
			}
			if tt.wakes {
				select {
				case err := <-done:
					require.NoError(t, err)
				case <-bound.Done():
					t.Fatal("the sleeper did not wake")
				}
				assert.Equal(t, 0, m.Sleepers())
				return
			}
			assert.Equal(t, 1, m.Sleepers(), "the sleeper's time has not come")
			select {
			case err := <-done:
				t.Fatalf("the sleeper woke early: %v", err)
			default:
			}
			cancel()
			select {
			case err := <-done:
				assert.Equal(t, context.Canceled, err, "a sleep cut short returns ctx.Err() itself")
			case <-bound.Done():
				t.Fatal("Sleep did not end with its context")
			}
			require.NoError(t, m.WaitForSleepers(bound, 0))
		})
	}
}

func TestManualSleepAtOnce(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		d       time.Duration
		wantErr error
	}{
		{name: "zero", ctx: context.Background(), d: 0},
		{name: "negative", ctx: context.Background(), d: -time.Hour},
		{name: "done ctx, zero d", ctx: cancelled, d: 0, wantErr: context.Canceled},
		{name: "done ctx, long d", ctx: cancelled, d: time.Hour, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewManual(start)
			assert.Equal(t, tt.wantErr, m.Sleep(tt.ctx, tt.d))
			assert.Equal(t, start, m.Now(), "Sleep does not move the clock")
			assert.Equal(t, 0, m.Sleepers())
		})
	}
}

func TestManualSleepersWakeInTurn(t *testing.T) {
	m := NewManual(start)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	done := make(chan error, 2)
	go func() { done <- m.Sleep(ctx, time.Second) }()
	go func() { done <- m.Sleep(ctx, 3*time.Second) }()
	require.NoError(t, m.WaitForSleepers(ctx, 2))

	m.Advance(999 * time.Millisecond)
	assert.Equal(t, 2, m.Sleepers(), "nobody's time has come")
	m.Advance(time.Millisecond)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-ctx.Done():
		t.Fatal("the one-second sleeper did not wake")
	}
	assert.Equal(t, 1, m.Sleepers())
	m.Advance(2 * time.Second)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-ctx.Done():
		t.Fatal("the three-second sleeper did not wake")
	}
	assert.Equal(t, start.Add(3*time.Second), m.Now())
}

func TestManualWaitForSleepersBounded(t *testing.T) {
	m := NewManual(start)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, m.WaitForSleepers(ctx, 1), context.DeadlineExceeded)
}

func TestManualConcurrent(t *testing.T) {
	const n = 50
	m := NewManual(start)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, m.Sleep(ctx, n*time.Second), "woken by the last Advance")
		}()
	}
	require.NoError(t, m.WaitForSleepers(ctx, n))
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Advance(time.Second)
			_ = m.Now()
		}()
	}
	wg.Wait()
	assert.Equal(t, start.Add(n*time.Second), m.Now())
	assert.Equal(t, 0, m.Sleepers())
}
