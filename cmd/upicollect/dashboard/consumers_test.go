package dashboard

import (
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

var reConsumer = regexp.MustCompile(`<tr data-consumer="([^"]+)"( data-stale)?>\s*<td class="id">[^<]*</td><td class="num">(\d+)</td><td class="num">(\d+)</td>`)

// TestConsumersTable: the overview lists each consumer with its pending
// and delivered counts, and flags one with pending events not seen for
// longer than the stale bound; an order's page names the consumers each
// event reached.
func TestConsumersTable(t *testing.T) {
	ctx := testContext(t)
	st := reconcile.NewMemoryStore()
	require.NoError(t, st.RegisterConsumer(ctx, "php", now.Add(-10*time.Minute)))
	require.NoError(t, st.RegisterConsumer(ctx, "app", now.Add(-time.Minute)))
	require.NoError(t, st.RegisterConsumer(ctx, "mail", now.Add(-time.Hour)))
	o := reconcile.Order{ID: "ord-1", Amount: upicollect.Rupees(249), Created: now.Add(-time.Hour)}
	require.NoError(t, st.Track(ctx, o, now.Add(-time.Hour)))
	l, err := st.LeaseOrder(ctx, o.ID, now, time.Minute)
	require.NoError(t, err)
	ev := reconcile.NewEvent(o, reconcile.Paid, &upicollect.PaymentStatus{OrderID: o.ID, TxnStatus: upicollect.TxnSuccess, Amount: o.Amount}, now, "")
	require.NoError(t, st.Commit(ctx, l, reconcile.Update{State: reconcile.Paid, Event: &ev, Consumer: "app"}, func(context.Context) error { return nil }))
	ds, err := st.LeaseDeliveries(ctx, "mail", now, 10, time.Minute)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	errs, err := st.CommitDeliveries(ctx, []reconcile.LeasedDelivery{{Lease: ds[0]}}, nil)
	require.NoError(t, err)
	require.NoError(t, errs[0])

	code, body := get(t, serve(t, st), "/")
	require.Equal(t, http.StatusOK, code)
	type row struct {
		stale              bool
		pending, delivered string
	}
	got := map[string]row{}
	for _, m := range reConsumer.FindAllStringSubmatch(body, -1) {
		got[m[1]] = row{m[2] != "", m[3], m[4]}
	}
	assert.Equal(t, map[string]row{
		"app":  {false, "0", "1"},
		"mail": {false, "0", "1"}, // not seen for an hour, but nothing waits for it
		"php":  {true, "1", "0"},  // an event waits, and no step for 10 minutes
	}, got, body)

	code, body = get(t, serve(t, st, WithStaleAfter(time.Hour)), "/")
	require.Equal(t, http.StatusOK, code)
	assert.NotContains(t, body, "data-stale", "within a longer bound")

	code, body = get(t, serve(t, st), "/orders/ord-1")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "<td data-delivered-to>app, mail</td>")
}
