package persist

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// chunkBits returns the base-2 logarithm of the number of entries of a
// full chunk of a keyTable[V]: 2048 entries, or 4096 when an entry is 16
// bytes (its smallest, a value of 4 bytes or less). An entry's size is a
// multiple of 8 bytes (it starts with a pointer), so a full chunk is then
// a multiple of 16 KB, and more than 32 KB: an object the allocator takes
// whole 8 KB pages for, with no header and no rounding up. A chunk of up
// to 32 KB (2048 entries of 16 bytes, 1024 of up to 32) would carry an
// 8-byte header, which takes one of 32 KB to a 40 KB object, and smaller
// ones up to their size class (10 % more for 1024 entries of 24 bytes).
func chunkBits[V any]() uint {
	if unsafe.Sizeof(tableEntry[V]{}) <= 16 {
		return 12
	}
	return 11
}

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
// adds keys claims the next entries by compare-and-swap on the table's
// claim counter, as a Vector's tail or a BufMap's log slot is claimed, and
// writes them in place, where no version that sees fewer entries looks. A
// version that loses the claim (a sibling claimed first) keeps its new keys
// in its trie instead.
//
// A new key thus costs one entry written in place and one slot, where a trie
// of a few hundred thousand keys copies a node of up to 32 pointers at each
// of its top levels: the table holds a stream's message ids at 36 bytes a
// key or so (a 24-byte entry and its share of the index), and adds one with
// no allocation beyond a chunk every 2048 keys (4096 for 16-byte entries)
// and an index twice as large each time it is three quarters full.
//
// A keyTable value is one version's header of the table: the claim counter
// every version of the table shares, and the chunk directory and index as
// they were when that version was made. A version that adds keys makes a
// header of its own when it adds a chunk or grows the index (see add); it
// writes the entries and slots in place. So a version kept while
// its descendants grow the table keeps alive the chunks and index of its
// time (and the entries descendants wrote into its last chunk, at most a
// chunk less one), not everything they added: a view kept as the start of many streams does
// not keep the index of the one that grew from it.
//
// An entry is never written once a version sees it, nor a directory once a
// header holds it (a new chunk makes a new directory, never one appended
// in the spare room of another, which would keep the chunk alive from an
// older header); each index slot is one atomic word, written once.
type keyTable[V any] struct {
	claimed *tableClaim
	dir     [][]tableEntry[V]
	index   *tableIndex
}

// tableClaim is the claim counter of a table: the number of its entries
// claimed, by any version.
type tableClaim struct {
	used atomic.Int32
}

// tableEntry is one key of a keyTable and its value. It holds the key as
// the address of its bytes and its length in 32 bits (12 bytes where a
// string header takes 16; see maxTableKey), so that a value of up to 12
// bytes aligned to 4, such as a message index record, makes a 24-byte
// entry; and it does not keep the key's hash, as a trie's entry does: the
// slot that indexes it holds the high 32 bits of the hash, which is all
// that probing and growing the index need. For a message index that is 16
// bytes less per message than a string header and a hash.
type tableEntry[V any] struct {
	kp  *byte
	kn  uint32
	val V
}

// key returns the entry's key.
func (e *tableEntry[V]) key() string { return unsafe.String(e.kp, e.kn) }

// is reports whether the entry's key is k.
func (e *tableEntry[V]) is(k string) bool { return int(e.kn) == len(k) && e.key() == k }

// maxTableKey is the length of the longest key a table entry holds (its
// length is 32 bits; on a 32-bit platform, where int is too, every key
// fits); a BufMap keeps a longer one in its trie (see limits).
const maxTableKey = min(1<<32-1, math.MaxInt)

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
	return &keyTable[V]{claimed: new(tableClaim), index: newTableIndex(n)}
}

// newTableIndex returns an empty index for n keys.
func newTableIndex(n int) *tableIndex {
	size := tableMinSlots
	for size*3/4 < n {
		size *= 2
	}
	return &tableIndex{slots: make([]atomic.Uint64, size), mask: uint64(size - 1)}
}

// entry returns entry i, which t's version sees.
func (t *keyTable[V]) entry(i int32) *tableEntry[V] {
	bits := chunkBits[V]()
	return &t.dir[i>>bits][i&(1<<bits-1)]
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
	x := t.index
	tag := h >> 32
	for i := tag & x.mask; ; i = (i + 1) & x.mask {
		s := x.slots[i].Load()
		if s == 0 {
			return -1
		}
		if s>>32 != tag {
			continue
		}
		if j := int32(uint32(s)) - 1; j < n && t.entry(j).is(k) {
			return j
		}
	}
}

// claim reports whether a version that sees n entries may add the next
// ones, claiming entry n if so. A version claims as long as it is the
// latest to have done so; once a sibling has claimed the entry after its
// last, it never can again.
func (t *keyTable[V]) claim(n int32) bool {
	return n < 1<<31-1 && t.claimed.used.CompareAndSwap(n, n+1)
}

// add writes entry n, which the caller claimed, as k (whose hash is h, and
// which is at most maxTableKey bytes long) holding v, and indexes it, and
// returns the header of t's table to see it with: t itself, or a new header when the entry takes a new chunk or the
// index grows (t, which other versions may hold, is never changed).
func (t *keyTable[V]) add(n int32, h uint64, k string, v V) *keyTable[V] {
	bits := chunkBits[V]()
	c, i := int(n>>bits), int(n&(1<<bits-1))
	switch {
	case c == len(t.dir):
		// A new chunk, in a new directory.
		size := 1 << bits
		if c == 0 {
			size = tableFirstChunk
		}
		t = t.with(append(t.dir[:c:c], make([]tableEntry[V], size)), t.index)
	case i == len(t.dir[c]):
		// The first chunk, full before it is full-sized: other headers may
		// hold it, so it is copied into one twice as large.
		grown := make([]tableEntry[V], 2*i)
		copy(grown, t.dir[c])
		t = t.with(append(t.dir[:c:c], grown), t.index)
	}
	t.dir[c][i] = tableEntry[V]{kp: unsafe.StringData(k), kn: uint32(len(k)), val: v}
	if int(n+1) > len(t.index.slots)*3/4 {
		t = t.with(t.dir, t.index.grown(2*len(t.index.slots)))
	}
	t.index.put(h>>32, n)
	return t
}

// with returns a new header of t's table with the given directory and
// index.
func (t *keyTable[V]) with(dir [][]tableEntry[V], index *tableIndex) *keyTable[V] {
	return &keyTable[V]{claimed: t.claimed, dir: dir, index: index}
}

// grown returns a new index of size slots holding the entries x holds. It
// reads x's slots alone: a slot holds all that placing its entry needs.
func (x *tableIndex) grown(size int) *tableIndex {
	g := &tableIndex{slots: make([]atomic.Uint64, size), mask: uint64(size - 1)}
	for i := range x.slots {
		if s := x.slots[i].Load(); s != 0 {
			g.put(s>>32, int32(uint32(s))-1)
		}
	}
	return g
}

// put indexes entry i, whose key's hash has tag as its high 32 bits.
func (x *tableIndex) put(tag uint64, i int32) {
	j := tag & x.mask
	for x.slots[j].Load() != 0 {
		j = (j + 1) & x.mask
	}
	x.slots[j].Store(tag<<32 | uint64(uint32(i+1)))
}
