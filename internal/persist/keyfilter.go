package persist

import (
	"math/bits"
	"sync/atomic"
)

// keyFilter is a Bloom filter of key hashes: a BufMap's record of which keys
// its trie may hold, so that looking up a key the trie does not hold (every
// new message id of a stream, and every key of its table) mostly costs one
// read of one word, not a walk of the trie. A stream's trie is mostly
// empty, but a version forked from an older one keeps its new keys in its
// trie until it holds a quarter as many as the table, tens of thousands at
// a few hundred thousand keys: a walk would then miss the cache at every
// level, where the filter is a few bytes a key and stays cached.
//
// Each key sets four bits of one 64-bit word (a blocked Bloom filter): a
// lookup reads one word. A filter only ever gains bits, so one filter serves
// every version of a map that descends from the version it was made for: a
// version that moves keys into its trie adds them to the filter it shares
// with its older and sibling versions, which may then answer "maybe" for a
// key they do not hold — a false positive, which costs a walk of the trie
// and nothing else — but never "no" for a key they hold. Deleted keys stay
// in the filter likewise. Bits are set and read atomically, as versions
// derived from one map may be changed in several goroutines at once.
type keyFilter struct {
	words []atomic.Uint64
	shift uint // 64 - log₂(len(words))
}

// filterMinWords is the size of the smallest filter.
const filterMinWords = 64

// filterKeysPerWord is the load at which a filter is full: about 8 keys a
// word (4 % false positives) before it is made again 4 times as big (2
// keys a word, under 0.1 %).
const filterKeysPerWord = 8

// newKeyFilter returns an empty filter sized for n keys.
func newKeyFilter(n int) *keyFilter {
	w := max(filterMinWords, n/2)
	lg := bits.Len(uint(w - 1)) // w rounded up to a power of two
	return &keyFilter{words: make([]atomic.Uint64, 1<<lg), shift: uint(64 - lg)}
}

// full reports whether f is too small for n keys.
func (f *keyFilter) full(n int) bool { return n > filterKeysPerWord*len(f.words) }

// slot returns the word of the key whose hash is h and the bits it sets.
// The hash is mixed again (a multiplication by an odd constant, a
// bijection) so that the filter's choices depend on all of h, not on the
// low bits the trie's top levels use.
func (f *keyFilter) slot(h uint64) (*atomic.Uint64, uint64) {
	g := h * 0x9e3779b97f4a7c15
	mask := uint64(1)<<(g&63) | uint64(1)<<(g>>6&63) | uint64(1)<<(g>>12&63) | uint64(1)<<(g>>18&63)
	return &f.words[g>>f.shift], mask
}

// add records the key whose hash is h.
func (f *keyFilter) add(h uint64) {
	w, mask := f.slot(h)
	if w.Load()&mask != mask {
		w.Or(mask)
	}
}

// mayHave reports whether the key whose hash is h may have been added: false
// means it never was. A nil filter may hold any key.
func (f *keyFilter) mayHave(h uint64) bool {
	if f == nil {
		return true
	}
	w, mask := f.slot(h)
	return w.Load()&mask == mask
}
