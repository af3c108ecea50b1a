package storetest

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// longest is the longest order id Track accepts.
var longest = strings.Repeat("L", upicollect.MaxOrderIDLen)

// idCase is an order id a store is asked about.
type idCase struct {
	name string
	id   string
	// hostile: an id no order can have (reconcile.Trackable refuses it);
	// false for the control, a valid id never tracked.
	hostile bool
}

// idCases are ids no order can have, each close to a tracked one (ord-0001,
// or longest) that a store which cut, trimmed or cleaned ids would find
// instead, and the control.
var idCases = []idCase{
	{"NUL", "ord-0001\x00", true},
	{"NULAlone", "\x00", true},
	{"NULInside", "ord\x00-0001", true},
	{"InvalidUTF8", "ord-0001\xff", true},
	{"InvalidUTF8Alone", "\xc3\x28", true},
	{"Oversize", longest + "L", true},
	{"Megabyte", strings.Repeat("M", 1<<20), true},
	{"TrailingSpace", "ord-0001 ", true},
	{"ValidButUnknown", "ord-none", false},
}

// testHostileIDs asks a store about ids it cannot hold (a NUL byte,
// invalid UTF-8, longer than Track accepts): every read and Untrack and
// LeaseOrder answer ErrNotTracked (List with one as its cursor: an empty
// page), Track refuses it as a *upicollect.ValidationError, and nothing
// tracked changes. No answer echoes a megabyte id back.
func testHostileIDs(t *testing.T, st reconcile.Store) {
	ctx := ctxFor(t)
	long := reconcile.Order{ID: longest, Amount: upicollect.Rupees(7), Created: T0.Add(-time.Minute)}
	require.NoError(t, st.Track(ctx, order(1), T0))
	require.NoError(t, st.Track(ctx, long, T0), "the longest id Track accepts")
	got, err := st.Lookup(ctx, long.ID)
	require.NoError(t, err)
	assert.Equal(t, long.ID, got.Order.ID)

	short := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			assert.Less(t, len(err.Error()), 500, "an error echoing the id")
		}
	}
	for _, tc := range idCases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, !tc.hostile, reconcile.Trackable(tc.id), "the case's premise")
			_, err := st.Lookup(ctx, tc.id)
			assert.ErrorIs(t, err, reconcile.ErrNotTracked, "Lookup")
			short(t, err)
			err = st.Untrack(ctx, tc.id)
			assert.ErrorIs(t, err, reconcile.ErrNotTracked, "Untrack")
			short(t, err)
			_, err = st.LeaseOrder(ctx, tc.id, T0, time.Minute)
			assert.ErrorIs(t, err, reconcile.ErrNotTracked, "LeaseOrder")
			short(t, err)
			page, err := st.List(ctx, reconcile.ListQuery{Before: tc.id})
			assert.NoError(t, err, "List after an id no order has: an empty page")
			assert.Empty(t, page)
			if !tc.hostile {
				return
			}
			err = st.Track(ctx, reconcile.Order{ID: tc.id, Amount: upicollect.Rupees(1), Created: T0}, T0)
			assertRefusedID(t, err, "Track")
			short(t, err)
		})
	}

	// Nothing tracked was touched: both orders pending, neither leased.
	counts, err := st.Counts(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[reconcile.State]int{reconcile.Pending: 2}, nonZero(counts))
	all, err := st.List(ctx, reconcile.ListQuery{})
	require.NoError(t, err)
	assert.Equal(t, []string{order(1).ID, long.ID}, stateIDs(all))
	ls, err := st.Lease(ctx, T0, 10, time.Minute)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{order(1).ID, long.ID}, ids(ls))
}

// assertRefusedID asserts err is the *upicollect.ValidationError of a
// refused order id.
func assertRefusedID(t *testing.T, err error, call string) {
	t.Helper()
	assert.ErrorIs(t, err, upicollect.ErrValidation, call)
	var ve *upicollect.ValidationError
	if assert.ErrorAs(t, err, &ve, call) && assert.NotEmpty(t, ve.Fields, call) {
		assert.Equal(t, "order_id", ve.Fields[0].Field, call)
	}
}

// testTrackTxHostileIDs: TrackTx refuses an id no order can have before it
// touches the transaction, which stays usable.
func testTrackTxHostileIDs(t *testing.T, st reconcile.Store, db *sql.DB) {
	ctx := ctxFor(t)
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	for _, tc := range idCases {
		if tc.hostile {
			err := st.TrackTx(ctx, tx, reconcile.Order{ID: tc.id, Amount: upicollect.Rupees(1), Created: T0}, T0)
			assertRefusedID(t, err, tc.name)
		}
	}
	require.NoError(t, st.TrackTx(ctx, tx, order(1), T0), "the transaction is intact")
	require.NoError(t, tx.Commit())
	_, err = st.Lookup(ctx, order(1).ID)
	require.NoError(t, err)
}
