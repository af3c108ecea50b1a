package reconcile

import (
	"context"
	"log/slog"
	"time"
)

// Run steps on the clock until ctx ends, and returns ctx's error: the
// store's clock when it keeps one, else WithClock's (time.Now by default).
// Between steps it waits until the next order is due, at least a fifth of
// WithStepInterval (never two steps back to back) and at most
// WithStepInterval. Each step is RunStep's: bounded by the lease TTL, so a
// store that stops answering costs one step. A step's errors are logged
// (WithLogger) and passed to WithStepHook's function, not returned: the
// orders concerned are checked again. When that function returns an
// error, Run stops and returns it.
//
// API: POST /v1/payments/checkPaymentStatus, once per due order
func (s *Sweeper) Run(ctx context.Context) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		r := s.RunStep(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if r.Err != nil {
			s.log.LogAttrs(ctx, slog.LevelWarn, "reconcile: step", slog.String("error", r.Err.Error()))
		}
		s.log.LogAttrs(ctx, slog.LevelDebug, "reconcile: step",
			slog.Int("checked", r.Stats.Checked), slog.Int("paid", r.Stats.Paid), slog.Int("failed", r.Stats.Failed),
			slog.Int("late_paid", r.Stats.LatePaid), slog.Int("expired", r.Stats.Expired),
			slog.Int("mismatch", r.Stats.Mismatch), slog.Int("errors", r.Stats.Errors))
		if s.opts.stepHook != nil {
			if err := s.opts.stepHook(ctx, r); err != nil {
				return err
			}
		}
		timer.Reset(runWait(r.At, r.Stats.NextDue, s.opts.stepInterval))
	}
}

// StepReport is what one of Run's steps did.
type StepReport struct {
	At    time.Time // the time it stepped at: the store's clock, or WithClock's
	Stats Stats     // what it checked and delivered
	Err   error     // its error: the store's clock, a store's, handlers' (see Step)
}

// RunStep is one of Run's steps: Step at the store's clock when it keeps
// one, else at WithClock's, bounded by the lease TTL. A program that steps
// on its own terms (a cron job's one pass) calls it; Run calls it in a
// loop.
//
// API: POST /v1/payments/checkPaymentStatus, once per due order
func (s *Sweeper) RunStep(ctx context.Context) StepReport {
	ctx, cancel := context.WithTimeout(ctx, s.opts.leaseTTL)
	defer cancel()
	now, err := s.clock(ctx)
	if err != nil {
		return StepReport{At: s.opts.now(), Err: err}
	}
	stats, err := s.Step(ctx, now)
	return StepReport{At: now, Stats: stats, Err: err}
}

// runWait is how long Run waits after a step at now: until next is due,
// at least limit/5 and at most limit.
func runWait(now, next time.Time, limit time.Duration) time.Duration {
	if next.IsZero() {
		return limit
	}
	return min(max(limit/5, next.Sub(now)), limit)
}
