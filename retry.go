package upicollect

import (
	"fmt"
	"time"
)

// RetryPolicy says how often and how patiently a call is retried. Which
// failures are retried depends on the operation; see the package doc.
type RetryPolicy struct {
	MaxAttempts   int           // attempts in all; 1 disables retries; default 3
	BaseDelay     time.Duration // first backoff step; default 200ms
	MaxDelay      time.Duration // backoff cap; default 5s
	MaxRetryAfter time.Duration // longest Retry-After honoured; default 30s
}

// Retry policy defaults.
const (
	DefaultMaxAttempts   = 3
	DefaultBaseDelay     = 200 * time.Millisecond
	DefaultMaxDelay      = 5 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
)

// maxAttemptsLimit keeps a typo from turning one call into a flood.
const maxAttemptsLimit = 20

// DefaultRetryPolicy returns the policy a client uses when none is given.
func DefaultRetryPolicy() RetryPolicy { return RetryPolicy{}.withDefaults() }

func (p RetryPolicy) validate() error {
	switch {
	case p.MaxAttempts < 0 || p.MaxAttempts > maxAttemptsLimit:
		return fmt.Errorf("upicollect: RetryPolicy.MaxAttempts must be 0 (default) to %d, got %d", maxAttemptsLimit, p.MaxAttempts)
	case p.BaseDelay < 0, p.MaxDelay < 0, p.MaxRetryAfter < 0:
		return fmt.Errorf("upicollect: RetryPolicy: negative delay")
	case p.MaxDelay > 0 && p.BaseDelay > p.MaxDelay:
		return fmt.Errorf("upicollect: RetryPolicy: BaseDelay %v exceeds MaxDelay %v", p.BaseDelay, p.MaxDelay)
	}
	return nil
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts == 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay == 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay == 0 {
		p.MaxDelay = DefaultMaxDelay
		if p.BaseDelay > p.MaxDelay {
			p.MaxDelay = p.BaseDelay
		}
	}
	if p.MaxRetryAfter == 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return p
}
