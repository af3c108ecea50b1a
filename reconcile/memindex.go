package reconcile

import (
	"cmp"
	"slices"
	"sort"
)

// indexBlock bounds the entries of one block of a memIndex: an insert or a
// delete moves at most this many entries (and, on a split or a merge, the
// list of blocks, a few thousand pointers for a million orders).
const indexBlock = 512

// memIndex keeps the memory store's entries in List's order (newestFirst),
// in sorted blocks of at most indexBlock entries: a key is found by a
// binary search of the blocks, then of its block. Keys (an order's Created
// and ID) never change, so an entry keeps its place however its state
// changes.
type memIndex struct {
	// blocks are non-empty and in order: every entry of blocks[i] comes
	// before every entry of blocks[i+1].
	blocks [][]*memEntry
}

// newestFirst orders entries as List returns them.
func newestFirst(a, b *memEntry) int {
	if c := b.order.Created.Compare(a.order.Created); c != 0 {
		return c
	}
	return cmp.Compare(b.order.ID, a.order.ID)
}

// find returns where e belongs: the block it is in or goes to, and its
// place there. With strict, the place after every entry equal to e (a
// cursor's successor); else the place of e itself.
func (ix *memIndex) find(e *memEntry, strict bool) (block, at int) {
	before := func(x *memEntry) bool { // e goes before x
		c := newestFirst(e, x)
		return c < 0 || (!strict && c == 0)
	}
	block = sort.Search(len(ix.blocks), func(i int) bool {
		b := ix.blocks[i]
		return before(b[len(b)-1])
	})
	if block == len(ix.blocks) {
		return block, 0
	}
	b := ix.blocks[block]
	return block, sort.Search(len(b), func(j int) bool { return before(b[j]) })
}

// insert adds e, whose key no entry has.
func (ix *memIndex) insert(e *memEntry) {
	i, j := ix.find(e, false)
	if i == len(ix.blocks) { // after every entry: at the end of the last block
		if i == 0 {
			ix.blocks = append(ix.blocks, []*memEntry{e})
			return
		}
		i--
		j = len(ix.blocks[i])
	}
	b := slices.Insert(ix.blocks[i], j, e)
	if len(b) <= indexBlock {
		ix.blocks[i] = b
		return
	}
	half := len(b) / 2
	right := slices.Clone(b[half:])
	clear(b[half:])
	ix.blocks[i] = b[:half]
	ix.blocks = slices.Insert(ix.blocks, i+1, right)
}

// delete removes e, if it is there. A block left empty goes; one left
// holding, with a neighbour, at most half a block joins it, so that
// deletions (Prune's, in List's order) leave no trail of tiny blocks.
func (ix *memIndex) delete(e *memEntry) {
	i, j := ix.find(e, false)
	if i == len(ix.blocks) || ix.blocks[i][j] != e {
		return
	}
	ix.blocks[i] = slices.Delete(ix.blocks[i], j, j+1)
	if len(ix.blocks[i]) == 0 {
		ix.blocks = slices.Delete(ix.blocks, i, i+1)
		return
	}
	if i > 0 && ix.joins(i-1) {
		return
	}
	if i+1 < len(ix.blocks) {
		ix.joins(i)
	}
}

// joins moves block i+1's entries into block i when both hold at most half
// a block, and says whether it did.
func (ix *memIndex) joins(i int) bool {
	if len(ix.blocks[i])+len(ix.blocks[i+1]) > indexBlock/2 {
		return false
	}
	ix.blocks[i] = append(ix.blocks[i], ix.blocks[i+1]...)
	ix.blocks = slices.Delete(ix.blocks, i+1, i+2)
	return true
}

// after appends to buf the entries that come after cursor in List's order
// (from the first when cursor is nil), until buf holds limit, and returns
// it. cursor need not be in the index any more: only its key counts.
func (ix *memIndex) after(buf []*memEntry, cursor *memEntry, limit int) []*memEntry {
	i, j := 0, 0
	if cursor != nil {
		i, j = ix.find(cursor, true)
	}
	for ; i < len(ix.blocks) && len(buf) < limit; i, j = i+1, 0 {
		b := ix.blocks[i][j:]
		buf = append(buf, b[:min(len(b), limit-len(buf))]...)
	}
	return buf
}
