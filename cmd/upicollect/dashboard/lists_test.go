package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go/reconcile"
)

// sliceLedger is a Ledger over orders held newest first, as a store lists
// them: List filters by state and stops at the limit. The dashboard only
// reads, so a slice is enough to put hundreds of orders in any state.
type sliceLedger []reconcile.OrderState

func (l sliceLedger) Lookup(context.Context, string) (*reconcile.OrderState, error) {
	return nil, reconcile.ErrNotTracked
}

func (l sliceLedger) List(_ context.Context, q reconcile.ListQuery) ([]reconcile.OrderState, error) {
	var out []reconcile.OrderState
	started := q.Before == ""
	for _, o := range l {
		if !started {
			started = o.Order.ID == q.Before
			continue
		}
		if len(q.States) > 0 && o.State != q.States[0] {
			continue
		}
		if len(out) == q.Limit {
			break
		}
		out = append(out, o)
	}
	return out, nil
}

func (l sliceLedger) Consumers(context.Context) ([]reconcile.Consumer, error) { return nil, nil }

func (l sliceLedger) Counts(context.Context) (map[reconcile.State]int, error) {
	m := map[reconcile.State]int{}
	for _, o := range l {
		m[o.State]++
	}
	return m, nil
}

// orders are n orders in state st, with ids prefix-0, prefix-1, ...; an
// expired one carries reason as its event's.
func orders(n int, prefix string, st reconcile.State, reason string) []reconcile.OrderState {
	out := make([]reconcile.OrderState, n)
	for i := range out {
		out[i] = reconcile.OrderState{Order: reconcile.Order{ID: fmt.Sprintf("%s-%d", prefix, i), Created: now}, State: st}
		if st == reconcile.Expired {
			out[i].Events = []reconcile.Event{{Result: reconcile.Expired, Reason: reason, At: now}}
		}
	}
	return out
}

// attentionOf reads the overview's lists that need a person: each list's
// order ids and its "All of them" link ("" without one).
func attentionOf(t *testing.T, l Ledger) (ids map[string][]string, more map[string]string) {
	t.Helper()
	code, body := get(t, serve(t, l), "/")
	require.Equal(t, http.StatusOK, code, body)
	ids, more = map[string][]string{}, map[string]string{}
	for _, m := range reListRows.FindAllStringSubmatch(body, -1) {
		for _, r := range reRowID.FindAllStringSubmatch(m[0], -1) {
			ids[m[1]] = append(ids[m[1]], r[1])
		}
		if i := strings.Index(m[0], `<p class="more"><a href="`); i >= 0 {
			link := m[0][i+len(`<p class="more"><a href="`):]
			more[m[1]] = strings.ReplaceAll(link[:strings.IndexByte(link, '"')], "&amp;", "&")
		}
	}
	return ids, more
}

// TestAttentionListsAreBounded: a list that needs a person shows at most
// 50 orders and then links to all of them; the list of orders never known
// to the service reads at most 500 expired orders to find its own, and
// links to all expired orders when there may be more than it read.
func TestAttentionListsAreBounded(t *testing.T) {
	join := func(parts ...[]reconcile.OrderState) sliceLedger {
		var out sliceLedger
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tt := range []struct {
		name  string
		l     sliceLedger
		count map[string]int
		more  map[string]string
	}{
		{"50 paid late: all shown", join(orders(50, "late", reconcile.LatePaid, "")),
			map[string]int{"late_paid": 50}, map[string]string{}},
		{"51 paid late: 50 and a link", join(orders(51, "late", reconcile.LatePaid, "")),
			map[string]int{"late_paid": 50}, map[string]string{"late_paid": "/orders?state=late_paid"}},
		{"51 wrong amounts: 50 and a link", join(orders(51, "mis", reconcile.Mismatch, "")),
			map[string]int{"mismatch": 50}, map[string]string{"mismatch": "/orders?state=mismatch"}},
		{"60 merely expired, then 3 unknown: found", join(
			orders(60, "exp", reconcile.Expired, reconcile.ReasonNoFinalState),
			orders(3, "unk", reconcile.Expired, reconcile.ReasonNotFound)),
			map[string]int{"unknown": 3}, map[string]string{}},
		{"500 expired, 1 unknown among them: a link, as there may be more", join(
			orders(499, "exp", reconcile.Expired, reconcile.ReasonNoFinalState),
			orders(1, "unk", reconcile.Expired, reconcile.ReasonNotFound)),
			map[string]int{"unknown": 1}, map[string]string{"unknown": "/orders?state=expired"}},
		{"499 expired, 2 unknown among them: all were read", join(
			orders(497, "exp", reconcile.Expired, reconcile.ReasonNoFinalState),
			orders(2, "unk", reconcile.Expired, reconcile.ReasonNotFound)),
			map[string]int{"unknown": 2}, map[string]string{}},
		{"60 unknown: 50 and a link", join(orders(60, "unk", reconcile.Expired, reconcile.ReasonNotFound)),
			map[string]int{"unknown": 50}, map[string]string{"unknown": "/orders?state=expired"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ids, more := attentionOf(t, tt.l)
			count := map[string]int{}
			for k, v := range ids {
				count[k] = len(v)
			}
			assert.Equal(t, tt.count, count)
			assert.Equal(t, tt.more, more)
		})
	}
}

// TestOnlyReadingMethods: GET and HEAD are served; every other method is
// refused with 405 and an Allow header, before any page is read.
func TestOnlyReadingMethods(t *testing.T) {
	srv := serve(t, sliceLedger(nil))
	for _, tt := range []struct {
		method string
		code   int
	}{
		{http.MethodGet, http.StatusOK},
		{http.MethodHead, http.StatusOK},
		{http.MethodPost, http.StatusMethodNotAllowed},
		{http.MethodPut, http.StatusMethodNotAllowed},
		{http.MethodDelete, http.StatusMethodNotAllowed},
	} {
		req, err := http.NewRequestWithContext(testContext(t), tt.method, srv.URL+"/", nil)
		require.NoError(t, err)
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		_ = res.Body.Close()
		assert.Equal(t, tt.code, res.StatusCode, tt.method)
		if tt.code == http.StatusMethodNotAllowed {
			assert.Equal(t, "GET, HEAD", res.Header.Get("Allow"), tt.method)
		}
	}
}

// TestListPageBoundary: a list of exactly a page has no next link; one
// more order makes a second page, whose link keeps the state asked for.
func TestListPageBoundary(t *testing.T) {
	all := append(sliceLedger(orders(50, "pend", reconcile.Pending, "")), orders(5, "paid", reconcile.Paid, "")...)
	_, body := get(t, serve(t, all), "/orders?state=pending")
	assert.Len(t, reRowID.FindAllStringSubmatch(body, -1), 50)
	assert.Nil(t, reNext.FindStringSubmatch(body), "50 pending orders are one page")

	all = append(sliceLedger(orders(51, "pend", reconcile.Pending, "")), orders(5, "paid", reconcile.Paid, "")...)
	srv := serve(t, all)
	_, body = get(t, srv, "/orders?state=pending")
	m := reNext.FindStringSubmatch(body)
	require.NotNil(t, m)
	next := strings.ReplaceAll(m[1], "&amp;", "&")
	assert.Equal(t, "/orders?before=pend-49&state=pending", next)
	_, body = get(t, srv, next)
	assert.Equal(t, [][]string{{`data-order="pend-50"`, "pend-50"}}, reRowID.FindAllStringSubmatch(body, -1))

	_, body = get(t, srv, "/orders")
	m = reNext.FindStringSubmatch(body)
	require.NotNil(t, m)
	assert.Equal(t, "/orders?before=pend-49", strings.ReplaceAll(m[1], "&amp;", "&"), "all orders: no state in the link")
}
