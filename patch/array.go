package patch

import "slices"

// An array is an immutable JSON array.
//
// Arrays of up to flatArray elements are a slice copied on write. Larger ones
// are a persistent B+tree of slices (a rope): get, set, insert and remove at
// any index cost O(log n) and copy only the nodes on the path, so appending
// to a long list in the state costs the same as appending to a short one.
type array struct {
	flat    []*node // the elements, when tree is nil
	tree    *vnode
	content int // Σ element sizes
}

const (
	// flatArray is the largest element count kept as a plain slice; a tree
	// that shrinks to flatArray/2 elements becomes a slice again.
	flatArray = 64
	// leafMax and kidsMax bound a tree node's elements and children; a node
	// that outgrows them splits in two.
	leafMax = 64
	kidsMax = 32
	// buildLeaf is the leaf size used when building a tree from a slice:
	// half full, so that inserts do not split at once.
	buildLeaf = leafMax / 2
)

// vnode is a tree node: a leaf holding elements or an inner node holding
// children. n counts the elements below. Nodes are never written once built.
type vnode struct {
	leaf []*node
	kids []*vnode
	n    int
	h    int32 // the largest height of the elements below
}

// newLeaf returns a leaf holding l, which it takes.
func newLeaf(l []*node) *vnode {
	t := &vnode{leaf: l, n: len(l)}
	for _, e := range l {
		t.h = max(t.h, e.height)
	}
	return t
}

// newInner returns an inner node holding kids, which it takes.
func newInner(kids []*vnode) *vnode {
	t := &vnode{kids: kids}
	for _, k := range kids {
		t.n += k.n
		t.h = max(t.h, k.h)
	}
	return t
}

// newArray takes ownership of elems.
func newArray(elems []*node) array {
	a := array{}
	for _, e := range elems {
		a.content += e.size
	}
	if len(elems) <= flatArray {
		a.flat = slices.Clip(elems)
		return a
	}
	a.tree = buildTree(elems)
	return a
}

// buildTree builds a balanced tree over elems (more than flatArray of them).
func buildTree(elems []*node) *vnode {
	var level []*vnode
	for i := 0; i < len(elems); i += buildLeaf {
		end := min(i+buildLeaf, len(elems))
		level = append(level, newLeaf(elems[i:end:end]))
	}
	for len(level) > 1 {
		var up []*vnode
		for i := 0; i < len(level); i += kidsMax / 2 {
			end := min(i+kidsMax/2, len(level))
			up = append(up, newInner(level[i:end:end]))
		}
		level = up
	}
	return level[0]
}

func (a *array) len() int {
	if a.tree != nil {
		return a.tree.n
	}
	return len(a.flat)
}

func (a *array) at(i int) *node {
	if a.tree == nil {
		return a.flat[i]
	}
	t := a.tree
	for t.kids != nil {
		k, off := t.find(i, false)
		t, i = t.kids[k], off
	}
	return t.leaf[i]
}

// each calls fn with every element in order until fn returns false.
func (a *array) each(fn func(*node) bool) {
	if a.tree == nil {
		for _, e := range a.flat {
			if !fn(e) {
				return
			}
		}
		return
	}
	a.tree.each(fn)
}

// elems returns the elements as a slice the caller must not modify.
func (a *array) elems() []*node {
	if a.tree == nil {
		return a.flat
	}
	s := make([]*node, 0, a.tree.n)
	a.tree.each(func(e *node) bool { s = append(s, e); return true })
	return s
}

func (t *vnode) each(fn func(*node) bool) bool {
	for _, e := range t.leaf {
		if !fn(e) {
			return false
		}
	}
	for _, k := range t.kids {
		if !k.each(fn) {
			return false
		}
	}
	return true
}

// maxHeight returns the largest height of the elements (0 when empty).
func (a *array) maxHeight() int32 {
	if a.tree != nil {
		return a.tree.h
	}
	h := int32(0)
	for _, e := range a.flat {
		h = max(h, e.height)
	}
	return h
}

func (a *array) encodedSize() int {
	n := a.len()
	if n == 0 {
		return 2
	}
	return 2 + a.content + n - 1
}

// set returns a new array node: a with element i replaced by v.
func (a *array) set(i int, v *node) *node {
	content := a.content - a.at(i).size + v.size
	if a.tree == nil {
		x, s := newFlatArray(len(a.flat))
		copy(s, a.flat)
		s[i] = v
		x.a = array{flat: s, content: content}
		return x.finish()
	}
	return newArrayNode(array{tree: a.tree.set(i, v), content: content})
}

// insert returns a new array node: a with v inserted before element i
// (0 <= i <= len).
func (a *array) insert(i int, v *node) *node {
	content := a.content + v.size
	if a.tree == nil {
		n := len(a.flat) + 1
		if n > flatArray {
			return newArrayNode(array{tree: buildTree(insertInto(make([]*node, n), a.flat, i, v)), content: content})
		}
		x, s := newFlatArray(n)
		x.a = array{flat: insertInto(s, a.flat, i, v), content: content}
		return x.finish()
	}
	left, right := a.tree.insert(i, v)
	if right != nil {
		left = newInner([]*vnode{left, right})
	}
	return newArrayNode(array{tree: left, content: content})
}

// insertInto fills dst (of length len(src)+1) with src and v inserted
// before element i, and returns it.
func insertInto(dst, src []*node, i int, v *node) []*node {
	copy(dst, src[:i])
	dst[i] = v
	copy(dst[i+1:], src[i:])
	return dst
}

// remove returns a new array node: a without element i.
func (a *array) remove(i int) *node {
	content := a.content - a.at(i).size
	if a.tree == nil {
		if len(a.flat) == 1 {
			return emptyArrayNode
		}
		x, s := newFlatArray(len(a.flat) - 1)
		copy(s, a.flat[:i])
		copy(s[i:], a.flat[i+1:])
		x.a = array{flat: s, content: content}
		return x.finish()
	}
	t := a.tree.remove(i)
	for len(t.kids) == 1 { // drop a root with a single child
		t = t.kids[0]
	}
	if t.n <= flatArray/2 {
		x, s := newFlatArray(t.n)
		i := 0
		t.each(func(e *node) bool { s[i] = e; i++; return true })
		x.a = array{flat: s, content: content}
		return x.finish()
	}
	return newArrayNode(array{tree: t, content: content})
}

// find returns the child holding index i and i's offset in it. With insert
// set, i may be the child's length (an insert at its end).
func (t *vnode) find(i int, insert bool) (int, int) {
	last := len(t.kids) - 1
	for k, c := range t.kids {
		if i < c.n || insert && i == c.n || k == last {
			return k, i
		}
		i -= c.n
	}
	panic("unreachable: an inner node has children")
}

func (t *vnode) set(i int, v *node) *vnode {
	if t.kids == nil {
		l := slices.Clone(t.leaf)
		l[i] = v
		return newLeaf(l)
	}
	k, off := t.find(i, false)
	kids := slices.Clone(t.kids)
	kids[k] = t.kids[k].set(off, v)
	return newInner(kids)
}

// insert returns t with v inserted at i, split in two when it outgrew its
// bounds (then both halves are returned).
func (t *vnode) insert(i int, v *node) (*vnode, *vnode) {
	if t.kids == nil {
		l := make([]*node, len(t.leaf)+1)
		copy(l, t.leaf[:i])
		l[i] = v
		copy(l[i+1:], t.leaf[i:])
		if len(l) <= leafMax {
			return newLeaf(l), nil
		}
		h := len(l) / 2
		return newLeaf(l[:h:h]), newLeaf(l[h:])
	}
	k, off := t.find(i, true)
	a, b := t.kids[k].insert(off, v)
	kids := make([]*vnode, 0, len(t.kids)+1)
	kids = append(kids, t.kids[:k]...)
	kids = append(kids, a)
	if b != nil {
		kids = append(kids, b)
	}
	kids = append(kids, t.kids[k+1:]...)
	if len(kids) <= kidsMax {
		return newInner(kids), nil
	}
	h := len(kids) / 2
	return newInner(kids[:h:h]), newInner(kids[h:])
}

// remove returns t without element i, or nil when t is left empty.
func (t *vnode) remove(i int) *vnode {
	if t.kids == nil {
		if len(t.leaf) == 1 {
			return nil
		}
		l := make([]*node, 0, len(t.leaf)-1)
		l = append(l, t.leaf[:i]...)
		l = append(l, t.leaf[i+1:]...)
		return newLeaf(l)
	}
	k, off := t.find(i, false)
	c := t.kids[k].remove(off)
	kids := make([]*vnode, 0, len(t.kids))
	kids = append(kids, t.kids[:k]...)
	if c != nil {
		kids = append(kids, c)
	}
	kids = append(kids, t.kids[k+1:]...)
	if len(kids) == 0 {
		return nil
	}
	return newInner(kids)
}
