package reconcile_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// hostileIDs are ids no order can have.
var hostileIDs = map[string]string{
	"NUL":         "ord-1\x00",
	"InvalidUTF8": "ord-1\xff",
	"Oversize":    strings.Repeat("x", upicollect.MaxOrderIDLen+1),
	"Megabyte":    strings.Repeat("x", 1<<20),
}

// noStore is a Store any call of which panics: a Sweeper that answers
// without its store.
type noStore struct{ reconcile.Store }

// TestTrackable: Trackable is Track's rule, upicollect.ValidateOrderID, to
// the byte.
func TestTrackable(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"ord-1", true},
		{strings.Repeat("x", upicollect.MaxOrderIDLen), true},
		{"ORDER_1764150245123_9f8e7d6c", true},
		{"ordre-é", true},
		{"", false},
		{strings.Repeat("x", upicollect.MaxOrderIDLen+1), false},
		{"ord-1\x00", false},
		{"\x00", false},
		{"ord-1\xff", false},
		{"ord 1", false},
		{"ord-1\u200b", false},
	} {
		assert.Equal(t, tc.want, reconcile.Trackable(tc.id), "%q", tc.id)
		assert.Equal(t, tc.want, upicollect.ValidateOrderID("op", tc.id) == nil, "%q", tc.id)
	}
}

// TestSweeperHostileIDs: Lookup, Untrack and Confirm of an id no order can
// have answer ErrNotTracked before any I/O (neither the store nor the
// service is asked), and on a real store the control, a valid unknown id,
// answers the same.
func TestSweeperHostileIDs(t *testing.T) {
	e := newEnv(t)
	ctx := boundedCtx(t)
	blind, err := reconcile.New(e.client, noStore{}, (&events{}).handle)
	require.NoError(t, err)
	st := reconcile.NewMemoryStore()
	sw, err := reconcile.New(e.client, st, (&events{}).handle)
	require.NoError(t, err)
	require.NoError(t, sw.Track(ctx, e.intent(t, "ord-1", upicollect.Rupees(10))))
	requests := len(e.sb.Requests())

	for name, id := range hostileIDs {
		t.Run(name, func(t *testing.T) {
			for _, s := range []*reconcile.Sweeper{blind, sw} {
				_, err := s.Lookup(ctx, id)
				assert.ErrorIs(t, err, reconcile.ErrNotTracked, "Lookup")
				assert.ErrorIs(t, s.Untrack(ctx, id), reconcile.ErrNotTracked, "Untrack")
				_, err = s.Confirm(ctx, id)
				assert.ErrorIs(t, err, reconcile.ErrNotTracked, "Confirm")
			}
		})
	}
	t.Run("ValidButUnknown", func(t *testing.T) {
		_, err := sw.Lookup(ctx, "ord-2")
		assert.ErrorIs(t, err, reconcile.ErrNotTracked, "Lookup")
		assert.ErrorIs(t, sw.Untrack(ctx, "ord-2"), reconcile.ErrNotTracked, "Untrack")
		_, err = sw.Confirm(ctx, "ord-2")
		assert.ErrorIs(t, err, reconcile.ErrNotTracked, "Confirm")
	})
	assert.Len(t, e.sb.Requests(), requests, "no status check")
	got, err := sw.Lookup(ctx, "ord-1")
	require.NoError(t, err)
	assert.Equal(t, reconcile.Pending, got.State, "ord-1 untouched")
	assert.Zero(t, got.Checks)
}

// TestMemoryStoreTrackRefusesHostileIDs: the memory store itself refuses
// what the Sweeper's Track refuses, and so never holds such an id.
func TestMemoryStoreTrackRefusesHostileIDs(t *testing.T) {
	st := reconcile.NewMemoryStore()
	ctx := context.Background()
	for name, id := range hostileIDs {
		err := st.Track(ctx, reconcile.Order{ID: id, Amount: 1, Created: t0}, t0)
		require.ErrorIs(t, err, upicollect.ErrValidation, name)
		var ve *upicollect.ValidationError
		require.ErrorAs(t, err, &ve, name)
		assert.Equal(t, "reconcile.MemoryStore.Track", ve.Op)
	}
	counts, err := st.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, counts)
}
