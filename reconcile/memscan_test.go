package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// chunks records the chunks of a chunked memory store's scans.
type chunks struct{ read []int }

func (c *chunks) chunked(read int) { c.read = append(c.read, read) }

// take returns the chunks recorded since the last take.
func (c *chunks) take() []int {
	r := c.read
	c.read = nil
	return r
}

// scanOrders are n orders whose creation times repeat (ties fall to the
// id), tracked in an order that is not List's (7919 is a prime: i*7919 % n
// runs over 0..n-1 for an n it does not divide).
func scanOrders(n int) []reconcile.Order {
	os := make([]reconcile.Order, n)
	for i := range os {
		os[i] = reconcile.Order{ID: fmt.Sprintf("ord-%06d", (i*7919)%n), Amount: upicollect.Rupees(10), Created: t0.Add(time.Duration((i*7919)%n/3) * time.Second)}
	}
	return os
}

// listed is os in List's order: newest created first, ties by greater id.
func listed(os []reconcile.Order) []string {
	s := slices.Clone(os)
	slices.SortFunc(s, func(a, b reconcile.Order) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	out := make([]string, len(s))
	for i, o := range s {
		out[i] = o.ID
	}
	return out
}

func orderIDs(ss []reconcile.OrderState) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Order.ID
	}
	return out
}

// chunksOf is how a scan of n orders reads them: full chunks, then the
// rest (none when n is a multiple of the chunk).
func chunksOf(n int) []int {
	out := slices.Repeat([]int{reconcile.ScanChunk}, n/reconcile.ScanChunk)
	return append(out, n%reconcile.ScanChunk)
}

// TestMemoryStoreScansInChunks: List and Prune read at most ScanChunk
// orders per hold of the store's lock, and give what one pass would:
// List(n) with no filter reads one chunk, a List that matches nothing reads
// every order once, chunk by chunk, and Counts reads none.
func TestMemoryStoreScansInChunks(t *testing.T) {
	ctx := boundedCtx(t)
	var c chunks
	st := reconcile.NewChunkedMemoryStore(c.chunked)
	n := 3*reconcile.ScanChunk + 17
	os := scanOrders(n)
	for _, o := range os {
		require.NoError(t, st.Track(ctx, o, t0))
	}
	all := listed(os)
	assert.Empty(t, c.take(), "Track scans nothing")

	got, err := st.List(ctx, reconcile.ListQuery{Limit: 100})
	require.NoError(t, err)
	assert.Equal(t, all[:100], orderIDs(got))
	assert.Equal(t, []int{reconcile.ScanChunk}, c.take(), "one chunk for a first page")

	got, err = st.List(ctx, reconcile.ListQuery{States: []reconcile.State{reconcile.LatePaid}})
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Equal(t, chunksOf(n), c.take(), "every order once, chunk by chunk")

	got, err = st.List(ctx, reconcile.ListQuery{Limit: n + 1})
	require.NoError(t, err)
	assert.Equal(t, all, orderIDs(got), "the whole list, across chunks")
	assert.Equal(t, chunksOf(n), c.take())

	// Pages across chunk boundaries give the list once, in order.
	var paged []string
	before := ""
	for range n {
		page, err := st.List(ctx, reconcile.ListQuery{Limit: 700, Before: before})
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		paged = append(paged, orderIDs(page)...)
		before = page[len(page)-1].Order.ID
	}
	assert.Equal(t, all, paged)
	for _, r := range c.take() {
		assert.LessOrEqual(t, r, reconcile.ScanChunk)
	}

	counts, err := st.Counts(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[reconcile.State]int{reconcile.Pending: n}, counts)
	assert.Empty(t, c.take(), "Counts scans nothing")

	// Untrack every third order, then prune them: Prune reads every order
	// once, chunk by chunk.
	var kept, untracked []reconcile.Order
	for i, o := range os {
		if i%3 == 0 {
			require.NoError(t, st.Untrack(ctx, o.ID))
			untracked = append(untracked, o)
			continue
		}
		kept = append(kept, o)
	}
	paged, before = nil, ""
	for range n {
		page, err := st.List(ctx, reconcile.ListQuery{States: []reconcile.State{reconcile.Untracked}, Limit: 300, Before: before})
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		paged = append(paged, orderIDs(page)...)
		before = page[len(page)-1].Order.ID
	}
	assert.Equal(t, listed(untracked), paged, "a state's pages")
	c.take()
	counts, err = st.Counts(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[reconcile.State]int{reconcile.Pending: len(kept), reconcile.Untracked: n - len(kept)}, counts)
	pruned, err := st.Prune(ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, n-len(kept), pruned)
	assert.Equal(t, chunksOf(n), c.take())
	counts, err = st.Counts(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[reconcile.State]int{reconcile.Pending: len(kept)}, counts, "a state none is in is not counted")
	got, err = st.List(ctx, reconcile.ListQuery{Limit: n})
	require.NoError(t, err)
	assert.Equal(t, listed(kept), orderIDs(got))
	c.take()

	// A cancelled context ends a scan between two chunks.
	cctx, cancel := context.WithCancel(ctx)
	cst := reconcile.NewChunkedMemoryStore(func(int) { cancel() })
	for _, o := range os {
		require.NoError(t, cst.Track(ctx, o, t0))
	}
	_, err = cst.List(cctx, reconcile.ListQuery{Limit: n})
	require.ErrorIs(t, err, context.Canceled)
}

// TestTrackDuringList: a Track made while a List over many orders is
// between two chunks proceeds at once (the List holds no lock then), and
// the List still lists every order present throughout once, in order. The
// new order is listed when its place is after the chunks already read, and
// not when it is before them.
func TestTrackDuringList(t *testing.T) {
	ctx := boundedCtx(t)
	paused, resume := make(chan struct{}), make(chan struct{})
	first := true
	st := reconcile.NewChunkedMemoryStore(func(int) {
		if first {
			first = false
			paused <- struct{}{}
			<-resume
		}
	})
	n := 3 * reconcile.ScanChunk
	os := scanOrders(n)
	for _, o := range os {
		require.NoError(t, st.Track(ctx, o, t0))
	}
	type result struct {
		ss  []reconcile.OrderState
		err error
	}
	listDone := make(chan result, 1)
	go func() {
		ss, err := st.List(ctx, reconcile.ListQuery{Limit: n + 10})
		listDone <- result{ss, err}
	}()
	select {
	case <-paused:
	case <-ctx.Done():
		t.Fatal("the List never reached its second chunk")
	}

	// Created after every order (its place is before the first chunk) and
	// before every order (its place is at the end).
	newest := reconcile.Order{ID: "ord-newest", Amount: upicollect.Rupees(1), Created: t0.Add(24 * time.Hour)}
	oldest := reconcile.Order{ID: "ord-oldest", Amount: upicollect.Rupees(1), Created: t0.Add(-24 * time.Hour)}
	tracked := make(chan error, 1)
	go func() { tracked <- errors.Join(st.Track(ctx, newest, t0), st.Track(ctx, oldest, t0)) }()
	select {
	case err := <-tracked:
		require.NoError(t, err)
	case <-ctx.Done():
		t.Fatal("Track waited for the List")
	}
	select {
	case <-listDone:
		t.Fatal("the List finished before the Track: the test proves nothing")
	default:
	}
	counts, err := st.Counts(ctx)
	require.NoError(t, err, "Counts during the List")
	assert.Equal(t, n+2, counts[reconcile.Pending])

	close(resume)
	var r result
	select {
	case r = <-listDone:
	case <-ctx.Done():
		t.Fatal("the List never finished")
	}
	require.NoError(t, r.err)
	assert.Equal(t, append(listed(os), oldest.ID), orderIDs(r.ss))
}
