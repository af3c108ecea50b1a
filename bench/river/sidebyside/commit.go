package sidebyside

import (
	"context"
	"errors"
	"time"

	"github.com/upicollect/upicollect-go/reconcile"
)

// commitBatch records a batch's outcomes as the Sweeper's Step does: the
// quiet ones with one CommitMany; each event by Extend (a full lease for
// the handler) then Commit, whose deliver runs inside the transaction
// that records the event. deliver is called with the order's number.
func commitBatch(ctx context.Context, st reconcile.Engine, now time.Time, cs []reconcile.LeasedUpdate, deliver func(context.Context, int64) error) ([]error, error) {
	errs := make([]error, len(cs))
	var quiet []reconcile.LeasedUpdate
	var at []int
	for i, c := range cs {
		if c.Update.Event == nil {
			quiet = append(quiet, c)
			at = append(at, i)
		}
	}
	if len(quiet) > 0 {
		qerrs, err := st.CommitMany(ctx, quiet)
		if err != nil {
			return nil, err
		}
		for k, e := range qerrs {
			errs[at[k]] = e
		}
	}
	for i, c := range cs {
		if c.Update.Event == nil {
			continue
		}
		if err := st.Extend(ctx, c.Lease, now, ledgerTTL); err != nil {
			if errors.Is(err, reconcile.ErrLeaseLost) {
				errs[i] = err
				continue
			}
			return nil, err
		}
		n := orderNumber(c.Lease.Order.ID)
		errs[i] = st.Commit(ctx, c.Lease, c.Update, func(ctx context.Context) error { return deliver(ctx, n) })
	}
	return errs, nil
}
