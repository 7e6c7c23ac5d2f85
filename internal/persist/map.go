package persist

import (
	"hash/maphash"
	"iter"
	"math/bits"
	"unsafe"
)

// hashSeed is chosen once at process start and never written again; hash
// values never leave the package.
var hashSeed = maphash.MakeSeed()

func hashString(s string) uint64 { return maphash.String(hashSeed, s) }

const (
	mapBits = 5
	mapMask = 1<<mapBits - 1
	// mapMaxShift is the first shift with no hash bits left: nodes at this
	// depth hold keys whose full 64-bit hashes collide, in a plain list.
	mapMaxShift = 65
)

// Map is a persistent hash map from string keys to values of type V: a hash
// array mapped trie (HAMT) with 32-way nodes in the compressed layout of
// Steindorfer and Vinju's CHAMP, where each node keeps its entries and its
// links to deeper nodes in two separate dense arrays. The zero value is an
// empty map.
//
// Costs: Len is O(1); Get, Set and Delete are O(log₃₂ n) expected. Set and
// Delete copy one node per level, and a node holds only pointers (at most
// 32: to its entries and to deeper nodes), so an update copies a few hundred
// bytes whatever the size of V, plus one new entry. Iteration order is
// unspecified but deterministic for a given Map value within a process.
//
// The trie itself does not depend on V: its nodes point to the entries' key
// parts, and only making an entry and reading its value know V. So one copy
// of the trie's code serves every Map type of a program — a fold touching
// several maps runs the same instructions for each instead of a copy per
// value type, which matters to the instruction cache.
type Map[V any] struct {
	root *mapNode
	n    int
}

// mapNode is a trie node. Below mapMaxShift, datamap has one bit per 5-bit
// hash fragment that holds an entry and nodemap one bit per fragment that
// holds a deeper node (never both); the node's entries and then its kids
// follow the bitmaps in the node's own allocation, in fragment order (see
// newNode, entries and kids): a node is its two bitmaps and its pointers,
// nothing else. At mapMaxShift a node is a list of full-hash collisions:
// its bitmaps are collisionData and collisionNodes (which share bits, as
// no other node's do), and its one slot points to the list. A node below
// the root always holds at least two entries or one deeper node (a lone
// entry moves up into its parent). Nodes, and the lists they point to, are
// never written after they are reachable from a Map.
type mapNode struct {
	datamap uint32
	nodemap uint32
}

// The bitmaps of a collision node.
const (
	collisionData  = 1
	collisionNodes = ^uint32(0)
)

// collisionList is the entries of a collision node.
type collisionList struct{ entries []*entryKey }

// collision reports whether n is a collision node.
func (n *mapNode) collision() bool { return n.datamap&n.nodemap != 0 }

// slot returns the address of n's slot i (entries first, then kids); n has
// at least i+1 slots.
func (n *mapNode) slot(i int) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(n), unsafe.Sizeof(mapNode{})+uintptr(i)*unsafe.Sizeof(unsafe.Pointer(nil)))
}

// entries returns n's entries, in n's memory: writing them writes n.
func (n *mapNode) entries() []*entryKey {
	if n.collision() {
		return (*collisionList)(*(*unsafe.Pointer)(n.slot(0))).entries
	}
	ne := bits.OnesCount32(n.datamap)
	if ne == 0 {
		return nil
	}
	return unsafe.Slice((**entryKey)(n.slot(0)), ne)
}

// kids returns n's deeper nodes, in n's memory: writing them writes n.
func (n *mapNode) kids() []*mapNode {
	nk := bits.OnesCount32(n.nodemap)
	if nk == 0 || n.collision() {
		return nil
	}
	return unsafe.Slice((**mapNode)(n.slot(bits.OnesCount32(n.datamap))), nk)
}

// entryKey is the part of an entry the trie reads: its key and the key's
// hash. Every entryKey of a Map[V] is the first field of a mapEntry[V], and
// entryOf goes back from one to the other.
type entryKey struct {
	hash uint64
	key  string
}

// mapEntry is one key and its value. Entries are never written after they
// are reachable from a Map; nodes share them.
type mapEntry[V any] struct {
	entryKey
	val V
}

// newEntry returns the key part of a new entry holding k, whose hash is h,
// and v.
func newEntry[V any](h uint64, k string, v V) *entryKey {
	return &(&mapEntry[V]{entryKey: entryKey{hash: h, key: k}, val: v}).entryKey
}

// EntrySize returns the size in bytes of one entry of a Map[V]: the
// key's hash and string header, then the value. Each entry is an
// allocation of its own, so the allocator rounds it up to its size class.
func EntrySize[V any]() uintptr { return unsafe.Sizeof(mapEntry[V]{}) }

// entryOf returns the entry whose key part is e, an entry of a Map[V].
func entryOf[V any](e *entryKey) *mapEntry[V] {
	// e points to the first field of a mapEntry[V]: the entry itself.
	return (*mapEntry[V])(unsafe.Pointer(e))
}

// Len returns the number of entries in m.
func (m Map[V]) Len() int { return m.n }

// Get returns the value stored under k and true, or the zero value and false
// when m has no entry for k.
func (m Map[V]) Get(k string) (V, bool) { return m.get(hashString(k), k) }

// get is Get for a key whose hash is h.
func (m Map[V]) get(h uint64, k string) (V, bool) {
	if e := m.root.find(h, k); e != nil {
		return entryOf[V](e).val, true
	}
	var zero V
	return zero, false
}

// find returns the entry of k, whose hash is h, below node (nil: an empty
// map), or nil.
func (node *mapNode) find(h uint64, k string) *entryKey {
	for shift := uint(0); node != nil; shift += mapBits {
		if shift >= mapMaxShift {
			for _, e := range node.entries() {
				if e.key == k {
					return e
				}
			}
			return nil
		}
		bit := uint32(1) << ((h >> shift) & mapMask)
		if node.datamap&bit != 0 {
			if e := *(**entryKey)(node.slot(index(node.datamap, bit))); e.hash == h && e.key == k {
				return e
			}
			return nil
		}
		if node.nodemap&bit == 0 {
			return nil
		}
		node = *(**mapNode)(node.slot(bits.OnesCount32(node.datamap) + index(node.nodemap, bit)))
	}
	return nil
}

// Lookup is Get that also returns the key as m stores it (equal to k), so
// that a caller may keep it without copying k.
func (m Map[V]) Lookup(k string) (key string, v V, ok bool) {
	if e := m.root.find(hashString(k), k); e != nil {
		return e.key, entryOf[V](e).val, true
	}
	return "", v, false
}

// Same reports whether m and o are the same version of a map: what one
// holds, the other holds. (Equal maps built apart are not the same.)
func (m Map[V]) Same(o Map[V]) bool { return m.root == o.root && m.n == o.n }

// Ref identifies the entry a version of a map holds for a key. Versions
// derived from one another share the entries of the keys they did not set:
// two versions whose Refs for k are equal and not zero hold the same value
// for k, the zero Ref meaning "no entry".
type Ref struct{ p unsafe.Pointer }

// Ref returns the Ref of m's entry for k (zero when m has none).
func (m Map[V]) Ref(k string) Ref {
	if e := m.root.find(hashString(k), k); e != nil {
		return Ref{unsafe.Pointer(e)}
	}
	return Ref{}
}

// index returns the position of bit's item among the items bitmap marks.
func index(bitmap, bit uint32) int { return bits.OnesCount32(bitmap & (bit - 1)) }

// Has reports whether m has an entry for k.
func (m Map[V]) Has(k string) bool { return m.has(hashString(k), k) }

// has is Has for a key whose hash is h.
func (m Map[V]) has(h uint64, k string) bool {
	_, ok := m.get(h, k)
	return ok
}

// Set returns a map equal to m except that k maps to v.
func (m Map[V]) Set(k string, v V) Map[V] { return m.set(hashString(k), k, v) }

// set is Set for a key whose hash is h.
func (m Map[V]) set(h uint64, k string, v V) Map[V] { return m.setEntry(newEntry(h, k, v)) }

// setEntry is set for an existing entry e.
func (m Map[V]) setEntry(e *entryKey) Map[V] {
	if m.root == nil {
		root := newNode(1<<(e.hash&mapMask), 0, 1, 0)
		root.entries()[0] = e
		return Map[V]{root: root, n: 1}
	}
	root, added := mapSet(m.root, 0, e)
	if added {
		return Map[V]{root: root, n: m.n + 1}
	}
	return Map[V]{root: root, n: m.n}
}

// mapSet returns a copy of node with e stored, and whether its key was new.
func mapSet(node *mapNode, shift uint, e *entryKey) (*mapNode, bool) {
	if shift >= mapMaxShift {
		for i := range node.entries() {
			if node.entries()[i].key == e.key {
				return node.withEntry(i, e), false
			}
		}
		c := newNode(collisionData, collisionNodes, len(node.entries())+1, 0)
		copy(c.entries(), node.entries())
		c.entries()[len(node.entries())] = e
		return c, true
	}
	bit := uint32(1) << ((e.hash >> shift) & mapMask)
	switch {
	case node.datamap&bit != 0:
		i := index(node.datamap, bit)
		old := node.entries()[i]
		if old.hash == e.hash && old.key == e.key {
			return node.withEntry(i, e), false
		}
		// Two keys share this fragment: both move down into a new node.
		return node.entryToKid(i, bit, mergeEntries(shift+mapBits, old, e)), true
	case node.nodemap&bit != 0:
		i := index(node.nodemap, bit)
		kid, added := mapSet(node.kids()[i], shift+mapBits, e)
		return node.withKid(i, kid), added
	default:
		i := index(node.datamap, bit)
		c := newNode(node.datamap|bit, node.nodemap, len(node.entries())+1, len(node.kids()))
		copy(c.entries(), node.entries()[:i])
		c.entries()[i] = e
		copy(c.entries()[i+1:], node.entries()[i:])
		copy(c.kids(), node.kids())
		return c, true
	}
}

// mergeEntries returns a node at the given shift holding the two entries a
// and b, whose keys differ and whose hashes agree below shift.
func mergeEntries(shift uint, a, b *entryKey) *mapNode {
	if shift >= mapMaxShift {
		c := newNode(collisionData, collisionNodes, 2, 0)
		c.entries()[0], c.entries()[1] = a, b
		return c
	}
	fa, fb := (a.hash>>shift)&mapMask, (b.hash>>shift)&mapMask
	if fa == fb {
		c := newNode(0, 1<<fa, 0, 1)
		c.kids()[0] = mergeEntries(shift+mapBits, a, b)
		return c
	}
	c := newNode(1<<fa|1<<fb, 0, 2, 0)
	if fa < fb {
		c.entries()[0], c.entries()[1] = a, b
	} else {
		c.entries()[0], c.entries()[1] = b, a
	}
	return c
}

// withEntry returns a copy of n with entry i replaced by e.
func (n *mapNode) withEntry(i int, e *entryKey) *mapNode {
	c := n.clone(n.datamap, n.nodemap)
	c.entries()[i] = e
	return c
}

// withKid returns a copy of n with kid i replaced by kid.
func (n *mapNode) withKid(i int, kid *mapNode) *mapNode {
	c := n.clone(n.datamap, n.nodemap)
	c.kids()[i] = kid
	return c
}

// clone returns a copy of n with the given bitmaps, which select as many
// entries and kids as n's.
func (n *mapNode) clone(datamap, nodemap uint32) *mapNode {
	c := newNode(datamap, nodemap, len(n.entries()), len(n.kids()))
	copy(c.entries(), n.entries())
	copy(c.kids(), n.kids())
	return c
}

// withoutEntry returns a copy of n without entry i (at fragment bit).
func (n *mapNode) withoutEntry(i int, bit uint32) *mapNode {
	c := newNode(n.datamap&^bit, n.nodemap, len(n.entries())-1, len(n.kids()))
	copy(c.entries(), n.entries()[:i])
	copy(c.entries()[i:], n.entries()[i+1:])
	copy(c.kids(), n.kids())
	return c
}

// entryToKid returns a copy of n where the entry i at fragment bit is
// replaced by the deeper node kid.
func (n *mapNode) entryToKid(i int, bit uint32, kid *mapNode) *mapNode {
	c := newNode(n.datamap&^bit, n.nodemap|bit, len(n.entries())-1, len(n.kids())+1)
	copy(c.entries(), n.entries()[:i])
	copy(c.entries()[i:], n.entries()[i+1:])
	j := index(n.nodemap, bit)
	copy(c.kids(), n.kids()[:j])
	c.kids()[j] = kid
	copy(c.kids()[j+1:], n.kids()[j:])
	return c
}

// kidToEntry returns a copy of n where the deeper node i at fragment bit is
// replaced by the entry e (the last entry left below it).
func (n *mapNode) kidToEntry(i int, bit uint32, e *entryKey) *mapNode {
	c := newNode(n.datamap|bit, n.nodemap&^bit, len(n.entries())+1, len(n.kids())-1)
	copy(c.kids(), n.kids()[:i])
	copy(c.kids()[i:], n.kids()[i+1:])
	j := index(n.datamap, bit)
	copy(c.entries(), n.entries()[:j])
	c.entries()[j] = e
	copy(c.entries()[j+1:], n.entries()[j:])
	return c
}

// slotted is a node allocated together with its slots, the array its
// entries and kids live in (entries first; see mapNode.slot), so that
// reading a node touches one allocation, often one or two cache lines, and
// a node costs its bitmaps and its pointers and nothing else.
type slotted[A any] struct {
	node  mapNode
	slots A
}

// alloc returns the node of a new slotted[A].
func alloc[A any]() *mapNode { return &new(slotted[A]).node }

// newNode returns a new node with the given bitmaps, whose entries and kids
// are ne and nk nil pointers in an array allocated with the node: up to
// 32 of them (a node below mapMaxShift never holds more) in the smallest
// of a few sizes that fits. With the bitmaps of a collision node, it
// returns one whose list has ne entries.
func newNode(datamap, nodemap uint32, ne, nk int) *mapNode {
	var c *mapNode
	switch n := ne + nk; {
	case datamap&nodemap != 0:
		c = alloc[[1]unsafe.Pointer]()
		*(*unsafe.Pointer)(c.slot(0)) = unsafe.Pointer(&collisionList{entries: make([]*entryKey, ne)})
	case n == 0:
		c = new(mapNode)
	case n <= 2:
		c = alloc[[2]unsafe.Pointer]()
	case n <= 4:
		c = alloc[[4]unsafe.Pointer]()
	case n <= 6:
		c = alloc[[6]unsafe.Pointer]()
	case n <= 8:
		c = alloc[[8]unsafe.Pointer]()
	case n <= 12:
		c = alloc[[12]unsafe.Pointer]()
	case n <= 16:
		c = alloc[[16]unsafe.Pointer]()
	case n <= 24:
		c = alloc[[24]unsafe.Pointer]()
	default:
		c = alloc[[32]unsafe.Pointer]()
	}
	c.datamap, c.nodemap = datamap, nodemap
	return c
}

// lone reports whether n holds exactly one entry and nothing else, so that
// its parent can hold the entry instead.
func (n *mapNode) lone() bool { return len(n.entries()) == 1 && len(n.kids()) == 0 }

// Delete returns a map equal to m without an entry for k. It returns m
// itself when m has no entry for k.
func (m Map[V]) Delete(k string) Map[V] { return m.delete(hashString(k), k) }

// delete is Delete for a key whose hash is h.
func (m Map[V]) delete(h uint64, k string) Map[V] {
	if m.root == nil {
		return m
	}
	if m.n == 1 && m.root.lone() {
		// The last key: no empty root to allocate. (A map of the keys open
		// at a time, such as a stream's open messages, empties at every
		// message's end; the tiny allocator would put the empty node in a
		// 16-byte block with a short string that outlives it, a message
		// id, and keep the block.)
		if e := m.root.entries()[0]; e.hash == h && e.key == k {
			return Map[V]{}
		}
		return m
	}
	root, removed := mapDelete(m.root, 0, h, k)
	if !removed {
		return m
	}
	if len(root.entries()) == 0 && len(root.kids()) == 0 {
		root = nil
	}
	return Map[V]{root: root, n: m.n - 1}
}

// mapDelete returns a copy of node without k, and whether k was there; it
// returns node itself when k was not. The copy may be empty (only for the
// root) or lone (only below it: its parent takes the entry up).
func mapDelete(node *mapNode, shift uint, h uint64, k string) (*mapNode, bool) {
	if shift >= mapMaxShift {
		for i := range node.entries() {
			if node.entries()[i].key == k {
				return node.withoutEntry(i, 0), true
			}
		}
		return node, false
	}
	bit := uint32(1) << ((h >> shift) & mapMask)
	switch {
	case node.datamap&bit != 0:
		i := index(node.datamap, bit)
		if e := node.entries()[i]; e.hash != h || e.key != k {
			return node, false
		}
		return node.withoutEntry(i, bit), true
	case node.nodemap&bit != 0:
		i := index(node.nodemap, bit)
		kid, removed := mapDelete(node.kids()[i], shift+mapBits, h, k)
		switch {
		case !removed:
			return node, false
		case kid.lone():
			return node.kidToEntry(i, bit, kid.entries()[0]), true
		default:
			return node.withKid(i, kid), true
		}
	}
	return node, false
}

// All returns an iterator over the entries of m.
func (m Map[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		if m.root != nil {
			m.root.each(func(e *entryKey) bool { return yield(e.key, entryOf[V](e).val) })
		}
	}
}

// Keys returns an iterator over the keys of m, in the order of All.
func (m Map[V]) Keys() iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range m.All() {
			if !yield(k) {
				return
			}
		}
	}
}

// each yields the entries of n and then those below it, until yield returns
// false; it reports whether yield never did.
func (n *mapNode) each(yield func(*entryKey) bool) bool {
	for _, e := range n.entries() {
		if !yield(e) {
			return false
		}
	}
	for _, kid := range n.kids() {
		if !kid.each(yield) {
			return false
		}
	}
	return true
}
