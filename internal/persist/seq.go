package persist

import (
	"fmt"
	"iter"
)

// Seq is a persistent sequence of unique string keys in an order the caller
// defines by appending and inserting, such as the message list of a view
// (a tool result is inserted right after the assistant message holding the
// call). The zero value is empty.
//
// Each key carries a hidden order label, a byte string; labels sort like the
// sequence. A [Map] finds a key's label and a persistent treap ordered by
// label (priorities from the key hash, so the shape is deterministic) finds
// neighbours and positions. Costs: Len is O(1) and Has O(log₃₂ n);
// Append, InsertAfter, Remove, Next, Index and At are O(log n) expected,
// times the cost of comparing labels. Appended labels grow as log₂₅₅ n bytes;
// a chain of inserts into one gap, each after the previous one, grows labels
// by a byte per 255 inserts; repeatedly inserting directly after the same key
// grows them by a byte per insert.
type Seq struct {
	labels Map[string]
	root   *seqNode
}

// seqNode is a treap node. Nodes are never written after they are reachable
// from a Seq.
type seqNode struct {
	left, right *seqNode
	label       string
	key         string
	prio        uint64
	size        int // nodes in this subtree
}

func (n *seqNode) count() int {
	if n == nil {
		return 0
	}
	return n.size
}

// with returns a copy of n with the given children and its size recomputed.
func (n *seqNode) with(left, right *seqNode) *seqNode {
	c := *n
	c.left, c.right = left, right
	c.size = 1 + left.count() + right.count()
	return &c
}

// Len returns the number of keys in s.
func (s Seq) Len() int { return s.labels.Len() }

// Has reports whether k is in s.
func (s Seq) Has(k string) bool { return s.labels.Has(k) }

// Append returns s with k added at the end. It panics if k is already in s:
// keys are unique, and adding one twice is a bug in the caller.
func (s Seq) Append(k string) Seq {
	if s.Has(k) {
		panic(fmt.Sprintf("persist: Seq.Append: key %q is already present", k))
	}
	label := firstLabel
	if last := s.root.last(); last != nil {
		label = labelAfter(last.label)
	}
	return s.insert(k, label)
}

// InsertAfter returns s with k added directly after the key after. It panics
// if after is not in s or k already is: both are bugs in the caller.
func (s Seq) InsertAfter(after, k string) Seq {
	la, ok := s.labels.Get(after)
	if !ok {
		panic(fmt.Sprintf("persist: Seq.InsertAfter: key %q is not present", after))
	}
	if s.Has(k) {
		panic(fmt.Sprintf("persist: Seq.InsertAfter: key %q is already present", k))
	}
	if next := s.root.successor(la); next != nil {
		return s.insert(k, labelBetween(la, next.label))
	}
	return s.insert(k, labelAfter(la))
}

func (s Seq) insert(k, label string) Seq {
	n := &seqNode{label: label, key: k, prio: hashString(k), size: 1}
	return Seq{labels: s.labels.Set(k, label), root: treapInsert(s.root, n)}
}

// Remove returns s without k. It returns s itself when k is not in s.
func (s Seq) Remove(k string) Seq {
	label, ok := s.labels.Get(k)
	if !ok {
		return s
	}
	return Seq{labels: s.labels.Delete(k), root: treapDelete(s.root, label)}
}

// Next returns the key directly after k and true, or "" and false when k is
// last or not in s.
func (s Seq) Next(k string) (string, bool) {
	label, ok := s.labels.Get(k)
	if !ok {
		return "", false
	}
	if n := s.root.successor(label); n != nil {
		return n.key, true
	}
	return "", false
}

// Index returns the position of k in s and true, or -1 and false when k is
// not in s.
func (s Seq) Index(k string) (int, bool) {
	label, ok := s.labels.Get(k)
	if !ok {
		return -1, false
	}
	i := 0
	for n := s.root; n != nil; {
		switch {
		case label < n.label:
			n = n.left
		case label > n.label:
			i += n.left.count() + 1
			n = n.right
		default:
			return i + n.left.count(), true
		}
	}
	panic("persist: Seq: label index out of sync with tree") // unreachable
}

// At returns the key at position i. It panics if i is out of range, like
// indexing a slice.
func (s Seq) At(i int) string {
	if uint(i) >= uint(s.Len()) {
		panic(fmt.Sprintf("persist: Seq.At: index out of range [%d] with length %d", i, s.Len()))
	}
	n := s.root
	for {
		l := n.left.count()
		switch {
		case i < l:
			n = n.left
		case i > l:
			i -= l + 1
			n = n.right
		default:
			return n.key
		}
	}
}

// All returns an iterator over the keys of s in order.
func (s Seq) All() iter.Seq[string] {
	return func(yield func(string) bool) {
		s.root.each(yield)
	}
}

// Slice returns the keys of s in order in a newly allocated slice, or nil
// when s is empty.
func (s Seq) Slice() []string {
	if s.Len() == 0 {
		return nil
	}
	out := make([]string, 0, s.Len())
	for k := range s.All() {
		out = append(out, k)
	}
	return out
}

func (n *seqNode) each(yield func(string) bool) bool {
	for n != nil {
		if !n.left.each(yield) || !yield(n.key) {
			return false
		}
		n = n.right
	}
	return true
}

func (n *seqNode) last() *seqNode {
	if n == nil {
		return nil
	}
	for n.right != nil {
		n = n.right
	}
	return n
}

// successor returns the node with the smallest label greater than label.
func (n *seqNode) successor(label string) *seqNode {
	var best *seqNode
	for n != nil {
		if n.label > label {
			best, n = n, n.left
		} else {
			n = n.right
		}
	}
	return best
}

// treapInsert returns root with node x added; x's label is not in root.
func treapInsert(root, x *seqNode) *seqNode {
	if root == nil {
		return x
	}
	if x.prio > root.prio {
		l, r := treapSplit(root, x.label)
		return x.with(l, r)
	}
	if x.label < root.label {
		return root.with(treapInsert(root.left, x), root.right)
	}
	return root.with(root.left, treapInsert(root.right, x))
}

// treapSplit returns the nodes of n with labels below and above label.
func treapSplit(n *seqNode, label string) (*seqNode, *seqNode) {
	if n == nil {
		return nil, nil
	}
	if n.label < label {
		l, r := treapSplit(n.right, label)
		return n.with(n.left, l), r
	}
	l, r := treapSplit(n.left, label)
	return l, n.with(r, n.right)
}

// treapDelete returns n without the node labelled label, which is present.
func treapDelete(n *seqNode, label string) *seqNode {
	switch {
	case label < n.label:
		return n.with(treapDelete(n.left, label), n.right)
	case label > n.label:
		return n.with(n.left, treapDelete(n.right, label))
	default:
		return treapMerge(n.left, n.right)
	}
}

// treapMerge joins l and r, where every label in l is below every label in r.
func treapMerge(l, r *seqNode) *seqNode {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	case l.prio > r.prio:
		return l.with(l.left, treapMerge(l.right, r))
	default:
		return r.with(treapMerge(l, r.left), r.right)
	}
}

// Order labels are byte strings compared bytewise. No label ends in 0x00, so
// a label strictly between any two labels a < b always exists. Every label
// starts with a head byte 0x80+d (d ≥ 1): labelAfter reads the d bytes after
// it as a base-256 counter, so labels made by appending grow as log₂₅₅ n.
// Every label is ≥ firstLabel, because each new label is made greater than an
// existing one, so the head byte is always at least 0x81.

const firstLabel = "\x81\x01"

// labelAfter returns a label greater than a, made by incrementing the counter
// that a's head byte announces.
func labelAfter(a string) string {
	d := int(a[0]) - 0x80
	digits := make([]byte, d) // a's counter, padded with zeros
	copy(digits, a[1:])
	for i := d - 1; i >= 0; i-- {
		if digits[i] < 0xff {
			digits[i]++
			for j := i + 1; j < d; j++ {
				digits[j] = 0x01
			}
			return a[:1] + string(digits)
		}
	}
	// The counter is all 0xff: widen it by one byte.
	if a[0] == 0xff {
		panic("persist: Seq: order label counter overflow") // needs 255^127 appends
	}
	wide := make([]byte, d+2)
	wide[0] = a[0] + 1
	for j := 1; j < len(wide); j++ {
		wide[j] = 0x01
	}
	return string(wide)
}

// labelBetween returns a short label c with a < c < b, close to a: it
// increments a (padded with zero bytes) at the shortest length that stays
// below b. b must not end in 0x00.
func labelBetween(a, b string) string {
	buf := make([]byte, 0, len(a)+2)
	for l := 1; ; l++ {
		buf = buf[:0]
		for i := range l {
			if i < len(a) {
				buf = append(buf, a[i])
			} else {
				buf = append(buf, 0)
			}
		}
		if buf[l-1] == 0xff {
			continue
		}
		buf[l-1]++
		if string(buf) < b {
			return string(buf)
		}
	}
}
