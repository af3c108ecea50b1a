package retry

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBudget(t *testing.T) {
	// op is Acquire when acquire is true, else Refill.
	type op struct {
		acquire bool
		n       int
		want    bool // Acquire's result; ignored for Refill
		avail   int  // Available afterwards
	}
	acq := func(n int, want bool, avail int) op { return op{acquire: true, n: n, want: want, avail: avail} }
	rel := func(n, avail int) op { return op{n: n, avail: avail} }

	tests := []struct {
		name     string
		capacity int
		ops      []op
	}{
		{name: "starts full", capacity: 12, ops: []op{rel(0, 12)}},
		{
			name: "spend until empty", capacity: 12,
			ops: []op{acq(RetryCost, true, 7), acq(RetryCost, true, 2), acq(RetryCost, false, 2), acq(2, true, 0), acq(1, false, 0)},
		},
		{name: "timeout costs more", capacity: 12, ops: []op{acq(TimeoutCost, true, 2), acq(TimeoutCost, false, 2)}},
		{name: "cost above capacity never succeeds", capacity: 5, ops: []op{acq(TimeoutCost, false, 5)}},
		{
			name: "release refills", capacity: 12,
			ops: []op{acq(TimeoutCost, true, 2), rel(SuccessRefill, 3), rel(RetryCost, 8), acq(RetryCost, true, 3)},
		},
		{name: "release never exceeds capacity", capacity: 12, ops: []op{acq(1, true, 11), rel(RetryCost, 12), rel(math.MaxInt, 12)}},
		{name: "release when full", capacity: 12, ops: []op{rel(SuccessRefill, 12)}},
		{name: "non-positive cost is free", capacity: 12, ops: []op{acq(0, true, 12), acq(-3, true, 12)}},
		{name: "non-positive release is ignored", capacity: 12, ops: []op{acq(RetryCost, true, 7), rel(0, 7), rel(-5, 7)}},
		{name: "zero capacity is unlimited", capacity: 0, ops: []op{acq(math.MaxInt, true, math.MaxInt), rel(1, math.MaxInt)}},
		{name: "negative capacity is unlimited", capacity: -1, ops: []op{acq(TimeoutCost, true, math.MaxInt)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBudget(tt.capacity)
			for i, o := range tt.ops {
				if o.acquire {
					assert.Equal(t, o.want, b.Acquire(o.n), "op %d: Acquire(%d)", i, o.n)
				} else {
					b.Refill(o.n)
				}
				assert.Equal(t, o.avail, b.Available(), "op %d: Available", i)
			}
		})
	}
}

func TestBudgetNilAndZeroAreUnlimited(t *testing.T) {
	for name, b := range map[string]*Budget{"nil": nil, "zero value": {}} {
		t.Run(name, func(t *testing.T) {
			assert.True(t, b.Acquire(TimeoutCost))
			b.Refill(RetryCost)
			assert.Equal(t, math.MaxInt, b.Available())
		})
	}
}

func TestBudgetConcurrent(t *testing.T) {
	const (
		capacity   = 500
		goroutines = 64
		perG       = 50
	)
	b := NewBudget(capacity)
	var granted atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perG {
				if b.Acquire(RetryCost) {
					granted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	// Exactly capacity/RetryCost acquisitions can succeed: no more (double
	// spending) and no fewer (lost tokens).
	assert.Equal(t, int64(capacity/RetryCost), granted.Load())
	assert.Equal(t, 0, b.Available())

	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perG {
				b.Refill(SuccessRefill)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, capacity, b.Available(), "concurrent releases fill exactly to capacity")
}

func BenchmarkBudgetAcquire(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		bud := NewBudget(500)
		for range b.N {
			if bud.Acquire(RetryCost) {
				bud.Refill(RetryCost)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		bud := NewBudget(500)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if bud.Acquire(RetryCost) {
					bud.Refill(RetryCost)
				}
			}
		})
	})
}
