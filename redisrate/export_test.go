package redisrate

import "github.com/upicollect/upicollect-go"

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
