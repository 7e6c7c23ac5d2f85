package persist

import (
	"fmt"
	"iter"
	"sync/atomic"
)

const (
	vecBits  = 5
	vecWidth = 1 << vecBits
	vecMask  = vecWidth - 1
)

// Vector is a persistent vector: a 32-way trie of full 32-element leaves plus
// a tail of up to 32 elements, after Clojure's PersistentVector. The zero
// value is an empty vector.
//
// Costs: Len and Last are O(1); At and Set are O(log₃₂ n) (four levels at a
// million elements), and Set copies one node per level; Append is
// O(1) amortised: it writes into the shared tail's spare capacity when it is
// the first successor of its value to do so, copies the tail (≤ 32 elements)
// otherwise, and pushes a full tail into the trie once every 32 appends.
type Vector[T any] struct {
	n     int
	shift uint
	root  *vecNode[T]
	tail  *vecTail[T]
}

// vecNode is an inner node of the trie: the nodes one level down (kids), or,
// for a node right above the leaves, the leaves (leaves). A leaf is a bare
// array of vecWidth elements, with nothing around it, so that it fills its
// size class (256 bytes for 8-byte elements). Nodes and leaves are never
// written after they are reachable from a returned Vector.
type vecNode[T any] struct {
	kids   []*vecNode[T]
	leaves []*[vecWidth]T
}

// vecTail holds the last 1..32 elements. used counts the slots claimed by
// some Vector; slots at or beyond a Vector's own tail length are invisible to
// it, so the first Append to claim slot i by compare-and-swap may write it.
type vecTail[T any] struct {
	used atomic.Int32
	vals [vecWidth]T
}

// VectorOf returns a vector holding xs in order. It does not retain xs.
func VectorOf[T any](xs ...T) Vector[T] {
	var v Vector[T]
	for _, x := range xs {
		v = v.Append(x)
	}
	return v
}

// Len returns the number of elements in v.
func (v Vector[T]) Len() int { return v.n }

// tailOff returns the index of the first element held in the tail.
func (v Vector[T]) tailOff() int {
	if v.n < vecWidth {
		return 0
	}
	return ((v.n - 1) >> vecBits) << vecBits
}

// At returns the element at index i. It panics if i is out of range, like
// indexing a slice.
func (v Vector[T]) At(i int) T {
	if uint(i) >= uint(v.n) {
		panic(fmt.Sprintf("persist: Vector.At: index out of range [%d] with length %d", i, v.n))
	}
	if off := v.tailOff(); i >= off {
		return v.tail.vals[i-off]
	}
	return v.leafFor(i)[i&vecMask]
}

// leafFor returns the values of the trie leaf holding index i < tailOff().
func (v Vector[T]) leafFor(i int) []T {
	node := v.root
	for level := v.shift; level > vecBits; level -= vecBits {
		node = node.kids[(i>>level)&vecMask]
	}
	return node.leaves[(i>>vecBits)&vecMask][:]
}

// Last returns the last element and true, or the zero value and false when v
// is empty.
func (v Vector[T]) Last() (T, bool) {
	if v.n == 0 {
		var zero T
		return zero, false
	}
	return v.tail.vals[v.n-v.tailOff()-1], true
}

// Append returns a vector with x added after the last element of v.
func (v Vector[T]) Append(x T) Vector[T] {
	tl := v.n - v.tailOff()
	if tl < vecWidth {
		if v.tail != nil && v.tail.used.CompareAndSwap(int32(tl), int32(tl+1)) {
			// Slot tl is ours alone: no Vector can see it yet.
			v.tail.vals[tl] = x
			return Vector[T]{n: v.n + 1, shift: v.shift, root: v.root, tail: v.tail}
		}
		nt := new(vecTail[T])
		if v.tail != nil {
			copy(nt.vals[:tl], v.tail.vals[:tl])
		}
		nt.vals[tl] = x
		nt.used.Store(int32(tl + 1))
		return Vector[T]{n: v.n + 1, shift: v.shift, root: v.root, tail: nt}
	}
	// The tail is full (and can never be claimed further): a copy of it
	// becomes a leaf, which takes its elements' bytes alone where the tail
	// takes its claim counter too, and the size class above.
	leaf := new([vecWidth]T)
	*leaf = v.tail.vals
	root, shift := v.root, v.shift
	switch {
	case root == nil:
		root, shift = &vecNode[T]{leaves: []*[vecWidth]T{leaf}}, vecBits
	case (v.n >> vecBits) > (1 << shift):
		root = &vecNode[T]{kids: []*vecNode[T]{root, newPath(shift, leaf)}}
		shift += vecBits
	default:
		root = pushTail(v.n, shift, root, leaf)
	}
	nt := new(vecTail[T])
	nt.vals[0] = x
	nt.used.Store(1)
	return Vector[T]{n: v.n + 1, shift: shift, root: root, tail: nt}
}

// newPath returns a chain of inner nodes from the given level (at least
// vecBits) down to the one right above leaf.
func newPath[T any](level uint, leaf *[vecWidth]T) *vecNode[T] {
	if level == vecBits {
		return &vecNode[T]{leaves: []*[vecWidth]T{leaf}}
	}
	return &vecNode[T]{kids: []*vecNode[T]{newPath(level-vecBits, leaf)}}
}

// pushTail returns a copy of parent (at the given level) with leaf added as
// the leaf for indices n-32..n-1, where n is the vector length before the
// append.
func pushTail[T any](n int, level uint, parent *vecNode[T], leaf *[vecWidth]T) *vecNode[T] {
	sub := ((n - 1) >> level) & vecMask
	if level == vecBits {
		leaves := make([]*[vecWidth]T, max(len(parent.leaves), sub+1))
		copy(leaves, parent.leaves)
		leaves[sub] = leaf
		return &vecNode[T]{leaves: leaves}
	}
	kids := make([]*vecNode[T], max(len(parent.kids), sub+1))
	copy(kids, parent.kids)
	if sub < len(parent.kids) {
		kids[sub] = pushTail(n, level-vecBits, parent.kids[sub], leaf)
	} else {
		kids[sub] = newPath(level-vecBits, leaf)
	}
	return &vecNode[T]{kids: kids}
}

// Set returns a vector equal to v except that index i holds x. It panics if
// i is out of range, like a slice assignment.
func (v Vector[T]) Set(i int, x T) Vector[T] {
	if uint(i) >= uint(v.n) {
		panic(fmt.Sprintf("persist: Vector.Set: index out of range [%d] with length %d", i, v.n))
	}
	if off := v.tailOff(); i >= off {
		tl := v.n - off
		nt := new(vecTail[T])
		copy(nt.vals[:tl], v.tail.vals[:tl])
		nt.vals[i-off] = x
		nt.used.Store(int32(tl))
		v.tail = nt
		return v
	}
	v.root = setIn(v.shift, v.root, i, x)
	return v
}

// setIn returns a copy of node (at the given level) with index i set to x.
func setIn[T any](level uint, node *vecNode[T], i int, x T) *vecNode[T] {
	sub := (i >> level) & vecMask
	if level == vecBits {
		leaves := make([]*[vecWidth]T, len(node.leaves))
		copy(leaves, node.leaves)
		leaf := new([vecWidth]T)
		*leaf = *leaves[sub]
		leaf[i&vecMask] = x
		leaves[sub] = leaf
		return &vecNode[T]{leaves: leaves}
	}
	kids := make([]*vecNode[T], len(node.kids))
	copy(kids, node.kids)
	kids[sub] = setIn(level-vecBits, kids[sub], i, x)
	return &vecNode[T]{kids: kids}
}

// All returns an iterator over the indices and elements of v in order.
func (v Vector[T]) All() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		off := v.tailOff()
		for base := 0; base < off; base += vecWidth {
			for j, x := range v.leafFor(base) {
				if !yield(base+j, x) {
					return
				}
			}
		}
		for j := range v.n - off {
			if !yield(off+j, v.tail.vals[j]) {
				return
			}
		}
	}
}

// Values returns an iterator over the elements of v in order.
func (v Vector[T]) Values() iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, x := range v.All() {
			if !yield(x) {
				return
			}
		}
	}
}

// Slice returns the elements of v in a newly allocated slice the caller owns.
// It returns nil when v is empty.
func (v Vector[T]) Slice() []T {
	if v.n == 0 {
		return nil
	}
	out := make([]T, 0, v.n)
	off := v.tailOff()
	for base := 0; base < off; base += vecWidth {
		out = append(out, v.leafFor(base)...)
	}
	return append(out, v.tail.vals[:v.n-off]...)
}
