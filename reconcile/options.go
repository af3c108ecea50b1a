package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/upicollect/upicollect-go"
)

// Option configures a Sweeper.
type Option func(*options)

type options struct {
	policy
	concurrency  int
	batchSize    int
	leaseTTL     time.Duration
	stepInterval time.Duration
	maxBackoff   time.Duration
	handlerTO    time.Duration // 0: leaseTTL/2
	now          func() time.Time
	logger       *slog.Logger
	stepHook     func(context.Context, StepReport) error
	consumer     string
}

// Defaults of a Sweeper's work.
const (
	// DefaultConcurrency is how many status checks a Sweeper runs at once:
	// the client's own default for a batch of checks,
	// upicollect.DefaultConcurrency.
	DefaultConcurrency = upicollect.DefaultConcurrency
	// DefaultBatchSize is how many due orders a Sweeper leases at a time.
	DefaultBatchSize = 256
	// DefaultLeaseTTL is how long a leased order stays with its sweeper
	// before another may take it: longer than a batch's checks and
	// handlers take, short enough that a killed sweeper's orders are soon
	// checked by another.
	DefaultLeaseTTL = 2 * time.Minute
	// DefaultStepInterval is the longest Run waits between steps.
	DefaultStepInterval = 5 * time.Second
	// DefaultMaxBackoff caps how long an order whose check or handler
	// keeps failing waits between two tries. Short enough that the checks
	// an outage made fail are made again within minutes of its end; long
	// enough that one such order costs a few checks an hour.
	DefaultMaxBackoff = 5 * time.Minute
)

func defaultOptions() options {
	return options{
		policy:       policy{schedule: DefaultSchedule(), payerWindow: DefaultPayerWindow, lateWindow: DefaultLateWindow},
		concurrency:  DefaultConcurrency,
		batchSize:    DefaultBatchSize,
		leaseTTL:     DefaultLeaseTTL,
		stepInterval: DefaultStepInterval,
		maxBackoff:   DefaultMaxBackoff,
		now:          time.Now,
		consumer:     DefaultConsumer,
	}
}

// validate reports options no sweeper can work with.
func (o *options) validate() error {
	var errs []error
	if err := o.schedule.validate(); err != nil {
		errs = append(errs, err)
	}
	if o.payerWindow <= 0 || o.lateWindow < o.payerWindow {
		errs = append(errs, fmt.Errorf("reconcile: the payer's window (%v) must be positive and the late window (%v) at least as long", o.payerWindow, o.lateWindow))
	}
	if o.concurrency < 1 || o.batchSize < 1 {
		errs = append(errs, fmt.Errorf("reconcile: concurrency (%d) and batch size (%d) must be at least 1", o.concurrency, o.batchSize))
	}
	if o.leaseTTL <= 0 || o.stepInterval <= 0 {
		errs = append(errs, fmt.Errorf("reconcile: lease TTL (%v) and step interval (%v) must be positive", o.leaseTTL, o.stepInterval))
	}
	if o.maxBackoff <= 0 || o.handlerTO < 0 {
		errs = append(errs, fmt.Errorf("reconcile: max backoff (%v) must be positive and the handler timeout (%v) not negative", o.maxBackoff, o.handlerTO))
	}
	if err := ValidateConsumerName(o.consumer); err != nil {
		errs = append(errs, err)
	}
	if o.now == nil {
		errs = append(errs, errors.New("reconcile: WithClock: nil clock"))
	}
	return errors.Join(errs...)
}

// WithSchedule replaces DefaultSchedule. New refuses an empty schedule,
// an interval that is not positive and bands out of order.
func WithSchedule(s Schedule) Option {
	return func(o *options) { o.schedule = append(Schedule(nil), s...) }
}

// WithPayerWindow sets how long after its creation an order with no final
// state is reported Expired (default DefaultPayerWindow).
func WithPayerWindow(d time.Duration) Option {
	return func(o *options) { o.payerWindow = d }
}

// WithLateWindow sets how long after its creation an order is checked at
// all, for a late authorisation after Failed or Expired (default
// DefaultLateWindow). It must be at least the payer's window.
func WithLateWindow(d time.Duration) Option {
	return func(o *options) { o.lateWindow = d }
}

// WithConcurrency sets how many status checks a step runs at once
// (default DefaultConcurrency). The client's WithRateLimit still caps what
// is sent.
func WithConcurrency(n int) Option {
	return func(o *options) { o.concurrency = n }
}

// WithBatchSize sets how many due orders a sweeper leases at a time
// (default DefaultBatchSize). A step leases batches until nothing due is
// left.
func WithBatchSize(n int) Option {
	return func(o *options) { o.batchSize = n }
}

// WithLeaseTTL sets how long a leased order stays with its sweeper before
// another may take it (default DefaultLeaseTTL), measured on the store's
// clock when it keeps one, else on the time passed to Step. It should
// exceed what two batches' checks take (a batch is leased while the one
// before it is checked, and recorded while the one after it is), or more
// when the store is the slower; once a batch's record has begun, its
// orders are held until it ends, whatever their leases' time. RunStep
// bounds each step by it.
func WithLeaseTTL(d time.Duration) Option {
	return func(o *options) { o.leaseTTL = d }
}

// WithStepInterval sets the longest Run waits between two steps (default
// DefaultStepInterval); it steps sooner when an order is due sooner.
func WithStepInterval(d time.Duration) Option {
	return func(o *options) { o.stepInterval = d }
}

// WithClock makes Run and Confirm read the time from now instead of
// time.Now, when the store keeps no clock of its own (a store's clock
// comes first): a sweeper in another process than a sandbox with an
// injected clock steps on the sandbox's time. Run's waits between steps
// are still real time.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithLogger makes the sweeper log through l: a warning per failed check or
// handler, and what Run's steps found.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// WithMaxBackoff caps the backoff of an order whose check or handler
// failed (default DefaultMaxBackoff). The backoff starts at the step
// interval and doubles with every consecutive failure; an order's next
// scheduled check still comes first when it is sooner.
func WithMaxBackoff(d time.Duration) Option {
	return func(o *options) { o.maxBackoff = d }
}

// WithHandlerTimeout bounds each Handler call: its context ends after d
// (default: half the lease TTL). A batch's handlers run one after another
// in its record, and RunStep bounds a step by the lease TTL, so a few slow
// handlers can use up a step. A handler that ignores its context is still
// waited for: its order stays held, never delivered twice at once.
func WithHandlerTimeout(d time.Duration) Option {
	return func(o *options) { o.handlerTO = d }
}

// handlerTimeout is WithHandlerTimeout's, or half the lease TTL.
func (o *options) handlerTimeout() time.Duration {
	if o.handlerTO > 0 {
		return o.handlerTO
	}
	return o.leaseTTL / 2
}

// WithStepHook makes Run call f after each of its steps, with what the
// step did, before it waits for the next: a program prints or measures its
// steps there (the upicollect command's `reconcile run` prints each). When
// f returns an error, Run stops and returns it. f runs on Run's goroutine:
// Run waits for it.
func WithStepHook(f func(ctx context.Context, r StepReport) error) Option {
	return func(o *options) { o.stepHook = f }
}
