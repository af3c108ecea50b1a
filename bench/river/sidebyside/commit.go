package sidebyside

import (
	"context"

	"github.com/upicollect/upicollect-go/reconcile"
)

// commitBatch records a batch's outcomes as the Sweeper's Step does: one
// CommitMany for the whole batch, quiet outcomes and events together, each
// event's deliver called inside the transaction that records it. deliver
// is called with the order's number.
func commitBatch(ctx context.Context, st reconcile.Engine, cs []reconcile.LeasedUpdate, deliver func(context.Context, int64) error) ([]error, error) {
	return st.CommitMany(ctx, cs, func(ctx context.Context, i int) error {
		return deliver(ctx, orderNumber(cs[i].Lease.Order.ID))
	})
}
