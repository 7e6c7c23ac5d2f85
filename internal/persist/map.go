package persist

import (
	"hash/maphash"
	"iter"
	"math/bits"
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
// array mapped trie (HAMT) with 32-way nodes. The zero value is an empty map.
//
// Costs: Len is O(1); Get, Set and Delete are O(log₃₂ n) expected, and Set
// and Delete copy one node (at most 32 slots) per level. Iteration order is
// unspecified but deterministic for a given Map value within a process.
type Map[V any] struct {
	root *mapNode[V]
	n    int
}

// mapNode is a trie node. Below mapMaxShift, bitmap has one bit per occupied
// 5-bit hash fragment and slots holds the occupied entries in fragment order;
// at mapMaxShift, bitmap is unused and slots is a list of full-hash
// collisions. Nodes are never written after they are reachable from a Map.
type mapNode[V any] struct {
	bitmap uint32
	slots  []mapSlot[V]
}

// mapSlot is either an entry (sub == nil) or a link to a deeper node.
type mapSlot[V any] struct {
	sub  *mapNode[V]
	hash uint64
	key  string
	val  V
}

// Len returns the number of entries in m.
func (m Map[V]) Len() int { return m.n }

// Get returns the value stored under k and true, or the zero value and false
// when m has no entry for k.
func (m Map[V]) Get(k string) (V, bool) { return m.get(hashString(k), k) }

// get is Get for a key whose hash is h.
func (m Map[V]) get(h uint64, k string) (V, bool) {
	if m.root != nil {
		node := m.root
		for shift := uint(0); ; shift += mapBits {
			if shift >= mapMaxShift {
				for _, s := range node.slots {
					if s.key == k {
						return s.val, true
					}
				}
				break
			}
			bit := uint32(1) << ((h >> shift) & mapMask)
			if node.bitmap&bit == 0 {
				break
			}
			s := &node.slots[bits.OnesCount32(node.bitmap&(bit-1))]
			if s.sub != nil {
				node = s.sub
				continue
			}
			if s.hash == h && s.key == k {
				return s.val, true
			}
			break
		}
	}
	var zero V
	return zero, false
}

// Has reports whether m has an entry for k.
func (m Map[V]) Has(k string) bool {
	_, ok := m.Get(k)
	return ok
}

// Set returns a map equal to m except that k maps to v.
func (m Map[V]) Set(k string, v V) Map[V] { return m.set(hashString(k), k, v) }

// set is Set for a key whose hash is h.
func (m Map[V]) set(h uint64, k string, v V) Map[V] {
	leaf := mapSlot[V]{hash: h, key: k, val: v}
	if m.root == nil {
		return Map[V]{root: singleton(0, leaf), n: 1}
	}
	root, added := mapSet(m.root, 0, leaf)
	if added {
		return Map[V]{root: root, n: m.n + 1}
	}
	return Map[V]{root: root, n: m.n}
}

// singleton returns a node at the given shift holding only leaf.
func singleton[V any](shift uint, leaf mapSlot[V]) *mapNode[V] {
	if shift >= mapMaxShift {
		return &mapNode[V]{slots: []mapSlot[V]{leaf}}
	}
	return &mapNode[V]{bitmap: 1 << ((leaf.hash >> shift) & mapMask), slots: []mapSlot[V]{leaf}}
}

// mapSet returns a copy of node with leaf stored, and whether the key was new.
func mapSet[V any](node *mapNode[V], shift uint, leaf mapSlot[V]) (*mapNode[V], bool) {
	if shift >= mapMaxShift {
		for i, s := range node.slots {
			if s.key == leaf.key {
				return node.withSlot(i, leaf), false
			}
		}
		return node.withInserted(len(node.slots), 0, leaf), true
	}
	bit := uint32(1) << ((leaf.hash >> shift) & mapMask)
	i := bits.OnesCount32(node.bitmap & (bit - 1))
	if node.bitmap&bit == 0 {
		return node.withInserted(i, bit, leaf), true
	}
	s := node.slots[i]
	switch {
	case s.sub != nil:
		sub, added := mapSet(s.sub, shift+mapBits, leaf)
		return node.withSlot(i, mapSlot[V]{sub: sub}), added
	case s.key == leaf.key:
		return node.withSlot(i, leaf), false
	default:
		return node.withSlot(i, mapSlot[V]{sub: mergeLeaves(shift+mapBits, s, leaf)}), true
	}
}

// mergeLeaves returns a node at the given shift holding the two distinct
// entries a and b, whose hash fragments agree above shift.
func mergeLeaves[V any](shift uint, a, b mapSlot[V]) *mapNode[V] {
	if shift >= mapMaxShift {
		return &mapNode[V]{slots: []mapSlot[V]{a, b}}
	}
	fa, fb := (a.hash>>shift)&mapMask, (b.hash>>shift)&mapMask
	switch {
	case fa == fb:
		return &mapNode[V]{bitmap: 1 << fa, slots: []mapSlot[V]{{sub: mergeLeaves(shift+mapBits, a, b)}}}
	case fa < fb:
		return &mapNode[V]{bitmap: 1<<fa | 1<<fb, slots: []mapSlot[V]{a, b}}
	default:
		return &mapNode[V]{bitmap: 1<<fa | 1<<fb, slots: []mapSlot[V]{b, a}}
	}
}

// withSlot returns a copy of n with slot i replaced by s.
func (n *mapNode[V]) withSlot(i int, s mapSlot[V]) *mapNode[V] {
	slots := make([]mapSlot[V], len(n.slots))
	copy(slots, n.slots)
	slots[i] = s
	return &mapNode[V]{bitmap: n.bitmap, slots: slots}
}

// withInserted returns a copy of n with s inserted at slot i and bit set.
func (n *mapNode[V]) withInserted(i int, bit uint32, s mapSlot[V]) *mapNode[V] {
	slots := make([]mapSlot[V], len(n.slots)+1)
	copy(slots, n.slots[:i])
	slots[i] = s
	copy(slots[i+1:], n.slots[i:])
	return &mapNode[V]{bitmap: n.bitmap | bit, slots: slots}
}

// withRemoved returns a copy of n without slot i and bit, or nil when that
// leaves it empty.
func (n *mapNode[V]) withRemoved(i int, bit uint32) *mapNode[V] {
	if len(n.slots) == 1 {
		return nil
	}
	slots := make([]mapSlot[V], len(n.slots)-1)
	copy(slots, n.slots[:i])
	copy(slots[i:], n.slots[i+1:])
	return &mapNode[V]{bitmap: n.bitmap &^ bit, slots: slots}
}

// Delete returns a map equal to m without an entry for k. It returns m itself
// when m has no entry for k.
func (m Map[V]) Delete(k string) Map[V] { return m.delete(hashString(k), k) }

// delete is Delete for a key whose hash is h.
func (m Map[V]) delete(h uint64, k string) Map[V] {
	if m.root == nil {
		return m
	}
	root, removed := mapDelete(m.root, 0, h, k)
	if !removed {
		return m
	}
	return Map[V]{root: root, n: m.n - 1}
}

// mapDelete returns a copy of node without key k (nil if that empties it)
// and whether k was present. A child left with a single entry is folded into
// its parent, so the trie stays as shallow as its keys require.
func mapDelete[V any](node *mapNode[V], shift uint, h uint64, k string) (*mapNode[V], bool) {
	if shift >= mapMaxShift {
		for i, s := range node.slots {
			if s.key == k {
				return node.withRemoved(i, 0), true
			}
		}
		return node, false
	}
	bit := uint32(1) << ((h >> shift) & mapMask)
	if node.bitmap&bit == 0 {
		return node, false
	}
	i := bits.OnesCount32(node.bitmap & (bit - 1))
	s := node.slots[i]
	if s.sub == nil {
		if s.hash != h || s.key != k {
			return node, false
		}
		return node.withRemoved(i, bit), true
	}
	sub, removed := mapDelete(s.sub, shift+mapBits, h, k)
	switch {
	case !removed:
		return node, false
	case sub == nil:
		return node.withRemoved(i, bit), true
	case len(sub.slots) == 1 && sub.slots[0].sub == nil:
		return node.withSlot(i, sub.slots[0]), true
	default:
		return node.withSlot(i, mapSlot[V]{sub: sub}), true
	}
}

// All returns an iterator over the entries of m. The order is unspecified but
// the same on every call for a given m within a process.
func (m Map[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		if m.root != nil {
			m.root.each(yield)
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

// each yields the entries under n in slot order; it reports false when yield
// asked to stop.
func (n *mapNode[V]) each(yield func(string, V) bool) bool {
	for i := range n.slots {
		s := &n.slots[i]
		if s.sub != nil {
			if !s.sub.each(yield) {
				return false
			}
		} else if !yield(s.key, s.val) {
			return false
		}
	}
	return true
}
