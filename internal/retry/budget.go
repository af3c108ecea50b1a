package retry

import (
	"math"
	"sync/atomic"
)

// Token costs, as in aws-sdk-go-v2's retry quota: a retry spends tokens, a
// success returns some, so during an outage the budget drains and the client
// stops multiplying the load with retries.
const (
	// RetryCost is the number of tokens a retry after an ordinary failure spends.
	RetryCost = 5
	// TimeoutCost is the number of tokens a retry after a timeout spends; it is
	// higher because timeouts suggest an overloaded service.
	TimeoutCost = 10
	// SuccessRefill is the number of tokens a success that needed no retry returns.
	SuccessRefill = 1
)

// Budget is a client-wide retry token bucket (aws retry quota). It is safe for
// concurrent use. A nil *Budget and the zero Budget are unlimited.
type Budget struct {
	capacity int64 // <= 0 means unlimited; fixed after NewBudget
	tokens   atomic.Int64
}

// NewBudget returns a full Budget holding capacity tokens. capacity <= 0
// means unlimited: Acquire always succeeds.
func NewBudget(capacity int) *Budget {
	b := &Budget{capacity: int64(capacity)}
	b.tokens.Store(int64(capacity))
	return b
}

func (b *Budget) unlimited() bool { return b == nil || b.capacity <= 0 }

// Acquire takes cost tokens and reports true, or reports false and takes
// nothing when fewer than cost are available. cost <= 0 always succeeds.
func (b *Budget) Acquire(cost int) bool {
	if b.unlimited() || cost <= 0 {
		return true
	}
	c := int64(cost)
	// Lock-free: the budget is hit by every call of the client.
	for {
		cur := b.tokens.Load()
		if cur < c {
			return false
		}
		if b.tokens.CompareAndSwap(cur, cur-c) {
			return true
		}
	}
}

// Refill returns n tokens, never filling above capacity. The client calls it
// with the cost of a retry that then succeeded, and with SuccessRefill after
// a first-try success. n <= 0 does nothing.
func (b *Budget) Refill(n int) {
	if b.unlimited() || n <= 0 {
		return
	}
	for {
		cur := b.tokens.Load()
		next := b.capacity
		// Compared this way round so cur+n cannot overflow.
		if int64(n) < b.capacity-cur {
			next = cur + int64(n)
		}
		if b.tokens.CompareAndSwap(cur, next) {
			return
		}
	}
}

// Available returns the tokens currently available; math.MaxInt when the
// budget is unlimited.
func (b *Budget) Available() int {
	if b.unlimited() {
		return math.MaxInt
	}
	return int(b.tokens.Load())
}
