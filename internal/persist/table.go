package persist

import (
	"sync/atomic"
	"unsafe"
)

// tableChunkBits sets the number of entries of a full table chunk: 1024,
// 40 KB for a 24-byte value, which the allocator takes whole pages for
// (a chunk of up to 32 KB would carry an 8-byte header and be rounded up
// to its size class, 10 % more for 256 entries).
const tableChunkBits = 10

const tableChunkLen = 1 << tableChunkBits

// tableMinSlots is the number of slots of the smallest table.
const tableMinSlots = 128

// tableFirstChunk is the size of the first chunk when a table is made: the
// first chunk doubles until it is full-sized, so that a small map does not
// take a full chunk.
const tableFirstChunk = 32

// keyTable is the shared part of a BufMap: entries that versions only ever
// add, held inline in chunks, and an open-addressed hash index over them.
// Versions that descend from one another share one table and differ in how
// many of its entries they see (a prefix: see mapLog.nt): a version that
// adds keys claims the next entries by compare-and-swap on used, as a
// Vector's tail or a BufMap's log slot is claimed, and writes them in place,
// where no version that sees fewer entries looks. A version that loses the
// claim (a sibling claimed first) keeps its new keys in its trie instead.
//
// A new key thus costs one entry written in place and one slot, where a trie
// of a few hundred thousand keys copies a node of up to 32 pointers at each
// of its top levels: the table holds a stream's message ids at 52 bytes a
// key or so (a 40-byte entry and its share of the index), and adds one with no allocation beyond a chunk every 1024 keys
// and an index twice as large each time it is three quarters full.
//
// An entry is never written once a version sees it. The index, the chunk
// directory and the first chunk while it grows are replaced, never changed
// in a way a reader could see half done: a reader loads them atomically
// (the directory, which leads to the chunks), and each slot is one atomic
// word. A reader may load an index or a directory newer than
// its version, which only holds more entries, all of which it skips.
type keyTable[V any] struct {
	used  atomic.Int32 // entries claimed
	dir   atomic.Pointer[[][]tableEntry[V]]
	index atomic.Pointer[tableIndex]
}

// tableEntry is one key of a keyTable and its value. It does not keep the
// key's hash, as a trie's entry does: the slot that indexes it holds the
// high 32 bits of the hash, which is all that probing and growing the
// index need. For a message index that is 8 bytes less per message.
type tableEntry[V any] struct {
	key string
	val V
}

// TableEntrySize returns the size in bytes of one table entry of a
// BufMap[V]: every key the map holds costs one (see keyTable).
func TableEntrySize[V any]() uintptr { return unsafe.Sizeof(tableEntry[V]{}) }

// tableIndex is a keyTable's hash index: a power-of-two number of slots,
// each 0 (empty) or an entry's number plus one in its low 32 bits and the
// high 32 bits of its key's hash (its tag) in the high ones, probed
// linearly from the tag's low bits. The tag lets a probe pass over another
// key's slot without reading its entry, and lets the index grow from its
// own slots, without the entries' hashes, which are not kept (see
// tableEntry). It is at most three quarters full.
type tableIndex struct {
	slots []atomic.Uint64
	mask  uint64
}

// newKeyTable returns an empty table with room for n keys before its index
// grows.
func newKeyTable[V any](n int) *keyTable[V] {
	t := new(keyTable[V])
	t.index.Store(newTableIndex(n))
	dir := make([][]tableEntry[V], 0, 4)
	t.dir.Store(&dir)
	return t
}

// newTableIndex returns an empty index for n keys.
func newTableIndex(n int) *tableIndex {
	size := tableMinSlots
	for size*3/4 < n {
		size *= 2
	}
	return &tableIndex{slots: make([]atomic.Uint64, size), mask: uint64(size - 1)}
}

// entry returns entry i, which some version sees.
func (t *keyTable[V]) entry(i int32) *tableEntry[V] {
	return &(*t.dir.Load())[i>>tableChunkBits][i&(tableChunkLen-1)]
}

// get returns the entry for k, whose hash is h, among the first n entries,
// or nil.
func (t *keyTable[V]) get(h uint64, k string, n int32) *tableEntry[V] {
	if j := t.find(h, k, n); j >= 0 {
		return t.entry(j)
	}
	return nil
}

// find returns the number of the entry for k, whose hash is h, among the
// first n entries, or -1.
func (t *keyTable[V]) find(h uint64, k string, n int32) int32 {
	x := t.index.Load()
	tag := h >> 32
	for i := tag & x.mask; ; i = (i + 1) & x.mask {
		s := x.slots[i].Load()
		if s == 0 {
			return -1
		}
		if s>>32 != tag {
			continue
		}
		if j := int32(uint32(s)) - 1; j < n && t.entry(j).key == k {
			return j
		}
	}
}

// claim reports whether a version that sees n entries may add the next
// ones, claiming entry n if so. A version claims as long as it is the
// latest to have done so; once a sibling has claimed the entry after its
// last, it never can again.
func (t *keyTable[V]) claim(n int32) bool {
	return n < 1<<31-1 && t.used.CompareAndSwap(n, n+1)
}

// add writes entry n, which the caller claimed, as k (whose hash is h)
// holding v, and indexes it.
func (t *keyTable[V]) add(n int32, h uint64, k string, v V) {
	dir := *t.dir.Load()
	c, i := int(n>>tableChunkBits), int(n&(tableChunkLen-1))
	switch {
	case c == len(dir):
		// A new chunk, in the directory's spare room if it has some, where
		// no reader looks: a reader's directory is shorter.
		size := tableChunkLen
		if c == 0 {
			size = tableFirstChunk
		}
		dir = t.publish(append(dir, make([]tableEntry[V], size)))
	case i == len(dir[c]):
		// The first chunk, full before it is full-sized: readers may hold
		// it, so it is copied into one twice as large, and so is the
		// directory.
		grown := make([]tableEntry[V], 2*i)
		copy(grown, dir[c])
		dir = append(make([][]tableEntry[V], 0, cap(dir)), dir...)
		dir[c] = grown
		dir = t.publish(dir)
	}
	dir[c][i] = tableEntry[V]{key: k, val: v}
	x := t.index.Load()
	if int(n+1) > len(x.slots)*3/4 {
		x = t.reindex(2 * len(x.slots))
	}
	x.put(h>>32, n)
}

// publish makes dir the table's directory and returns it.
func (t *keyTable[V]) publish(dir [][]tableEntry[V]) [][]tableEntry[V] {
	t.dir.Store(&dir)
	return dir
}

// reindex returns a new index of size slots holding the entries the
// table's index holds, and makes it the table's. It reads the old index
// alone: a slot holds all that placing its entry needs.
func (t *keyTable[V]) reindex(size int) *tableIndex {
	old := t.index.Load()
	x := &tableIndex{slots: make([]atomic.Uint64, size), mask: uint64(size - 1)}
	for i := range old.slots {
		if s := old.slots[i].Load(); s != 0 {
			x.put(s>>32, int32(uint32(s))-1)
		}
	}
	t.index.Store(x)
	return x
}

// put indexes entry i, whose key's hash has tag as its high 32 bits.
func (x *tableIndex) put(tag uint64, i int32) {
	j := tag & x.mask
	for x.slots[j].Load() != 0 {
		j = (j + 1) & x.mask
	}
	x.slots[j].Store(tag<<32 | uint64(uint32(i+1)))
}
