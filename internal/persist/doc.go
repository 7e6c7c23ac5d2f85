// Package persist provides persistent collections: immutable values whose
// update operations return a new value and leave the old one untouched,
// sharing all unchanged structure between the two. The view model of agview
// is built from them so that folding one event into a view costs O(size of
// the event), not O(size of the view), and so that any number of goroutines
// can read a published view while the next one is being built.
//
// The collections are:
//
//   - [Vector], a 32-way trie with a tail (after Clojure's PersistentVector):
//     O(1) amortised Append, O(log₃₂ n) At and Set.
//   - [Map], a hash array mapped trie with string keys (CHAMP layout):
//     O(log₃₂ n) Get, Set and Delete.
//   - [BufMap], a map for an index that grows by a key per event: writes
//     go into a log of 32, which moves as one batch into a table of keys
//     shared by successive versions, where a new key costs one entry
//     written in place and no node copied; changes to the keys already
//     there, and the keys of a version forked from an older one, go into a
//     trie, with a Bloom filter of its keys.
//   - [Text], append-only streamed text: the first delta an exact copy,
//     the later ones in one growing buffer. Append costs amortised O(new
//     bytes), String is O(1) and does not allocate.
//
// The zero value of every collection is an empty collection ready to use.
// Values are small structs meant to be passed and stored by value; copying one
// is O(1) and never copies elements.
//
// # Immutability
//
// A value, once returned, is never written again: every operation copies the
// path it changes and shares the rest. Updating an older value, even twice,
// yields results that never alias each other's memory in a way either can
// observe. Three collections reuse unused spare capacity for speed: [Vector]
// appends into the free slots of its 32-element tail, [BufMap] into those of
// its log and its table, and [Text] extends its buffer in place.
// In each case a slot or byte range is claimed with an atomic
// compare-and-swap by exactly one successor value before it is written, and
// no existing value can see memory beyond its own length, so the second
// successor of the same older value takes a private copy instead. A
// BufMap's full log likewise records, once, the batch its first successor
// moved it into, which the successors of any value that sees the whole log
// take instead of moving it again.
//
// Elements are stored as given. A Vector[[]byte] or a Map[*T] shares the
// referenced memory with the caller; keep element types immutable (strings,
// values, pointers to values never written again) to keep a value immutable.
//
// # Concurrency
//
// All methods of all types are safe to call concurrently from any number of
// goroutines on the same or on different values, without locks and without
// external synchronisation: values are immutable, and the only internal
// writes (claiming spare tail, log, table or buffer capacity, recording a
// BufMap's moved log, and adding bits to a BufMap's filter, which only
// ever gains them) use atomic operations and touch memory no published
// value reads (the filter's new bits only make a value look in its trie
// for a few more absent keys). A value
// handed to another goroutine must be published in the usual way (a channel
// send, a mutex, an atomic.Pointer store); that is the only synchronisation
// needed.
//
// # Hashing and iteration order
//
// [Map] hashes keys with hash/maphash using one seed chosen at
// process start; hash values are never exposed. Iteration order of a Map is
// unspecified and differs between processes, but is the same every time a
// given Map value is iterated within one process.
package persist
