package reconcile

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// indexEntries are n entries whose creation times repeat (ties fall to the
// id), in a shuffled order.
func indexEntries(n int, rng *rand.Rand) []*memEntry {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	es := make([]*memEntry, n)
	for i := range es {
		es[i] = &memEntry{order: Order{ID: fmt.Sprintf("ord-%06d", i), Created: t0.Add(time.Duration(i/3) * time.Second)}}
	}
	rng.Shuffle(n, func(i, j int) { es[i], es[j] = es[j], es[i] })
	return es
}

// checkIndex asserts ix holds want (in any order) in List's order, in
// non-empty blocks of at most indexBlock.
func checkIndex(t *testing.T, ix *memIndex, want []*memEntry) {
	t.Helper()
	sorted := slices.Clone(want)
	slices.SortFunc(sorted, newestFirst)
	var got []*memEntry
	for _, b := range ix.blocks {
		require.NotEmpty(t, b)
		require.LessOrEqual(t, len(b), indexBlock)
		got = append(got, b...)
	}
	require.Equal(t, len(sorted), len(got))
	for i := range sorted {
		require.Same(t, sorted[i], got[i], "at %d", i)
	}
	require.Equal(t, sorted, ix.after(nil, nil, len(sorted)+1))
}

// TestMemIndex: inserts and deletes in any order keep the entries in List's
// order, and after reads from any cursor, present or deleted.
func TestMemIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	es := indexEntries(5*indexBlock+37, rng)
	var ix memIndex
	for i, e := range es {
		ix.insert(e)
		if i%97 == 0 {
			checkIndex(t, &ix, es[:i+1])
		}
	}
	checkIndex(t, &ix, es)
	assert.Greater(t, len(ix.blocks), 5, "split into blocks")

	gone, kept := es[:len(es)/2], slices.Clone(es[len(es)/2:])
	for i, e := range gone {
		ix.delete(e)
		ix.delete(e) // twice: nothing
		if i%89 == 0 {
			checkIndex(t, &ix, append(slices.Clone(es[i+1:len(es)/2]), kept...))
		}
	}
	checkIndex(t, &ix, kept)
	ix.delete(&memEntry{order: Order{ID: "never", Created: kept[0].order.Created}})
	checkIndex(t, &ix, kept)

	slices.SortFunc(kept, newestFirst)
	for _, cursor := range []*memEntry{kept[0], kept[100], kept[len(kept)-1], gone[0], gone[1], gone[len(gone)-1]} {
		want := []*memEntry{}
		for _, e := range kept {
			if newestFirst(cursor, e) < 0 {
				want = append(want, e)
			}
		}
		for _, limit := range []int{0, 1, indexBlock + 3, len(kept) + 1} {
			got := ix.after([]*memEntry{cursor}, cursor, limit+1)
			require.Equal(t, cursor, got[0], "appends to buf")
			require.Equal(t, want[:min(limit, len(want))], got[1:], "after %s, %d", cursor.order.ID, limit)
		}
	}
}

// TestMemIndexJoinsThinBlocks: deleting most entries in List's order (as
// Prune does), or against it, leaves few blocks, not one per block split.
func TestMemIndexJoinsThinBlocks(t *testing.T) {
	for _, backwards := range []bool{false, true} {
		t.Run(fmt.Sprint("backwards=", backwards), func(t *testing.T) {
			es := indexEntries(40*indexBlock, rand.New(rand.NewPCG(3, 4)))
			var ix memIndex
			for _, e := range es {
				ix.insert(e)
			}
			require.Greater(t, len(ix.blocks), 40)
			sorted := slices.Clone(es)
			slices.SortFunc(sorted, newestFirst)
			if backwards {
				slices.Reverse(sorted)
			}
			var kept []*memEntry
			for i, e := range sorted {
				if i%64 == 0 {
					kept = append(kept, e)
					continue
				}
				ix.delete(e)
			}
			checkIndex(t, &ix, kept)
			// 320 entries: two blocks hold them once joined; without
			// joining, each of the 80-odd blocks would keep a few.
			assert.LessOrEqual(t, len(ix.blocks), 3)
		})
	}
}

// TestMemIndexFillsABlockBeforeSplitting: a block holds indexBlock entries
// whole; the next one splits it in two halves.
func TestMemIndexFillsABlockBeforeSplitting(t *testing.T) {
	es := indexEntries(indexBlock+1, rand.New(rand.NewPCG(7, 7)))
	var ix memIndex
	for _, e := range es[:indexBlock] {
		ix.insert(e)
	}
	require.Len(t, ix.blocks, 1, "a full block is not split")
	assert.Len(t, ix.blocks[0], indexBlock)
	ix.insert(es[indexBlock])
	require.Len(t, ix.blocks, 2, "one more splits it")
	assert.Len(t, ix.blocks[0], (indexBlock+1)/2)
	checkIndex(t, &ix, es)
}

// TestMemIndexJoinsAtHalfABlock: two neighbours that hold half a block
// between them join; one entry more and they stay apart. The last entry's
// delete leaves no block.
func TestMemIndexJoinsAtHalfABlock(t *testing.T) {
	es := indexEntries(indexBlock/2+2, rand.New(rand.NewPCG(3, 3)))
	slices.SortFunc(es, newestFirst)
	half := len(es) / 2
	ix := memIndex{blocks: [][]*memEntry{slices.Clone(es[:half]), slices.Clone(es[half:])}}
	ix.delete(es[0])
	require.Len(t, ix.blocks, 2, "%d entries: more than half a block", len(es)-1)
	ix.delete(es[1])
	require.Len(t, ix.blocks, 1, "%d entries: half a block, joined", len(es)-2)
	checkIndex(t, &ix, es[2:])

	var one memIndex
	one.insert(es[0])
	one.insert(es[1])
	one.delete(es[0])
	one.delete(es[1])
	assert.Empty(t, one.blocks, "the empty block goes")
	one.insert(es[2])
	checkIndex(t, &one, es[2:3])
}
