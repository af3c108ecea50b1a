package clock

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestManualSleepWakesOnAdvance(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
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

func TestManualSleepEndsWithContext(t *testing.T) {
	m := NewManual(time.Time{})
	bound, cancelBound := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelBound()
	ctx, cancel := context.WithCancel(bound)

	done := make(chan error, 1)
	go func() { done <- m.Sleep(ctx, time.Hour) }()
	require.NoError(t, m.WaitForSleepers(bound, 1))
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-bound.Done():
		t.Fatal("Sleep did not end with its context")
	}
	require.NoError(t, m.WaitForSleepers(bound, 0))

	assert.ErrorIs(t, m.Sleep(ctx, time.Second), context.Canceled, "a done ctx returns at once")
	assert.NoError(t, m.Sleep(context.Background(), 0))
}

func TestManualWaitForSleepersBounded(t *testing.T) {
	m := NewManual(time.Time{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, m.WaitForSleepers(ctx, 1), context.DeadlineExceeded)
}
