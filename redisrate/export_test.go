package redisrate

import (
	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/clock"
)

// Waiting is how many callers of l's Wait have no slot yet.
func Waiting(rl upicollect.RateLimiter) int {
	l := rl.(*Limiter)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting
}

// Reserved is how many reserved slots wait for a caller in l.
func Reserved(rl upicollect.RateLimiter) int {
	l := rl.(*Limiter)
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.slots)
}

// UseClock makes l read and sleep on c. Contexts' deadlines stay wall
// time and are compared with c's time: start a manual clock at time.Now(),
// and give a test's context a deadline past the slots it waits for.
func UseClock(rl upicollect.RateLimiter, c clock.Clock) { rl.(*Limiter).clock = c }
