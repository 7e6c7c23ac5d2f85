package persist

import (
	"fmt"
	"iter"
	"sync/atomic"
)

// Seq is a persistent sequence of unique string keys in an order the caller
// defines by appending and inserting, such as the message list of a view
// (a tool result is inserted right after the assistant message holding the
// call). The zero value is empty.
//
// Each key carries a hidden order label, a byte string; labels sort like the
// sequence. A [Map] finds a key's label. The last keys (at most 32) live in a
// small sorted tail that appends extend in place, the way [Vector] does; the
// rest live in a persistent treap ordered by label (priorities from the key
// hash, so the shape is deterministic), which takes in the whole tail when it
// is full. Costs: Len is O(1) and Has O(log₃₂ n); Append is O(log₃₂ n)
// amortised (the label index, and a treap join once per 32 appends); a change
// within the tail (InsertAfter or Remove of one of the last keys) copies the
// tail; elsewhere InsertAfter and Remove are O(log n) expected; Next, Index
// and At are O(log n) expected; all times the cost of comparing labels.
// Appended labels grow as log₂₅₅ n bytes; a chain of inserts into one gap,
// each after the previous one, grows labels by a byte per 255 inserts;
// repeatedly inserting directly after the same key grows them by a byte per
// insert.
type Seq struct {
	labels Map[string]
	root   *seqNode
	tail   *seqTail
	tn     int // keys in the tail: tail.items[:tn]
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

// seqItem is one key of the tail and its label.
type seqItem struct {
	label, key string
}

// seqTailMax is the most keys a tail holds.
const seqTailMax = 32

// seqTail holds the last keys of a Seq, in order; every label in it is
// greater than every label in the treap. used counts the items claimed by
// some Seq; items at or beyond a Seq's own tn are invisible to it, so the
// first Append to claim item i by compare-and-swap may write it. Items below
// used are never written again.
//
// A full tail also remembers the treap it last made by joining its items to a
// treap (merged), so that appending to the same full value again, as
// branching does, does not rebuild it.
type seqTail struct {
	used   atomic.Int32
	items  []seqItem // fixed length: the capacity
	merged atomic.Pointer[seqMerged]
}

// seqMerged is a treap root and the join of that root with a full tail.
type seqMerged struct {
	root, joined *seqNode
}

// joinTo returns the treap holding the keys of root and then those of the
// full tail t.
func (t *seqTail) joinTo(root *seqNode) *seqNode {
	if m := t.merged.Load(); m != nil && m.root == root {
		return m.joined
	}
	joined := treapMerge(root, treapOf(t.items))
	t.merged.Store(&seqMerged{root: root, joined: joined})
	return joined
}

// newSeqTail returns a tail holding the items of head, then it (unless
// skip), then the items of rest, with room to grow (up to seqTailMax items).
func newSeqTail(head []seqItem, it seqItem, skip bool, rest []seqItem) *seqTail {
	n := len(head) + len(rest)
	if !skip {
		n++
	}
	t := &seqTail{items: make([]seqItem, min(max(4, 2*n), seqTailMax))}
	i := copy(t.items, head)
	if !skip {
		t.items[i] = it
		i++
	}
	copy(t.items[i:], rest)
	t.used.Store(int32(n))
	return t
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

// items returns the keys of the tail.
func (s Seq) items() []seqItem {
	if s.tn == 0 {
		return nil
	}
	return s.tail.items[:s.tn]
}

// inTail reports whether label is at or after the first label of the tail,
// and if so the position of the first tail item not below it.
func (s Seq) inTail(label string) (int, bool) {
	items := s.items()
	if len(items) == 0 || label < items[0].label {
		return 0, false
	}
	i := 0
	for i < len(items) && items[i].label < label {
		i++
	}
	return i, true
}

// lastLabel returns the label of the last key, "" when s is empty.
func (s Seq) lastLabel() string {
	if s.tn > 0 {
		return s.tail.items[s.tn-1].label
	}
	if last := s.root.last(); last != nil {
		return last.label
	}
	return ""
}

// Append returns s with k added at the end. It panics if k is already in s:
// keys are unique, and adding one twice is a bug in the caller.
func (s Seq) Append(k string) Seq {
	if s.Has(k) {
		panic(fmt.Sprintf("persist: Seq.Append: key %q is already present", k))
	}
	label := firstLabel
	if last := s.lastLabel(); last != "" {
		label = labelAfter(last)
	}
	return s.push(seqItem{label: label, key: k})
}

// push returns s with it added after every key; its label is greater than
// every label in s.
func (s Seq) push(it seqItem) Seq {
	labels := s.labels.Set(it.key, it.label)
	t := s.tail
	switch {
	case t != nil && s.tn < len(t.items) && t.used.CompareAndSwap(int32(s.tn), int32(s.tn+1)):
		// Item tn is ours alone: no Seq can see it yet.
		t.items[s.tn] = it
		return Seq{labels: labels, root: s.root, tail: t, tn: s.tn + 1}
	case s.tn < seqTailMax:
		return Seq{labels: labels, root: s.root, tail: newSeqTail(s.items(), it, false, nil), tn: s.tn + 1}
	default: // the tail is full: the treap takes it in
		return Seq{labels: labels, root: t.joinTo(s.root), tail: newSeqTail(nil, it, false, nil), tn: 1}
	}
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
	next, ok := s.successor(la)
	if !ok {
		return s.push(seqItem{label: labelAfter(la), key: k})
	}
	it := seqItem{label: labelBetween(la, next), key: k}
	if i, in := s.inTail(it.label); in {
		if s.tn < seqTailMax {
			items := s.items()
			return Seq{labels: s.labels.Set(k, it.label), root: s.root, tail: newSeqTail(items[:i], it, false, items[i:]), tn: s.tn + 1}
		}
		s = s.flush()
	}
	n := &seqNode{label: it.label, key: k, prio: hashString(k), size: 1}
	return Seq{labels: s.labels.Set(k, it.label), root: treapInsert(s.root, n), tail: s.tail, tn: s.tn}
}

// flush returns s with the keys of its tail moved into the treap.
func (s Seq) flush() Seq {
	return Seq{labels: s.labels, root: treapMerge(s.root, treapOf(s.items()))}
}

// successor returns the smallest label in s greater than label.
func (s Seq) successor(label string) (string, bool) {
	if n := s.root.successor(label); n != nil {
		return n.label, true
	}
	for _, it := range s.items() {
		if it.label > label {
			return it.label, true
		}
	}
	return "", false
}

// Remove returns s without k. It returns s itself when k is not in s.
func (s Seq) Remove(k string) Seq {
	label, ok := s.labels.Get(k)
	if !ok {
		return s
	}
	labels := s.labels.Delete(k)
	if i, in := s.inTail(label); in {
		var tail *seqTail
		if items := s.items(); len(items) > 1 {
			tail = newSeqTail(items[:i], seqItem{}, true, items[i+1:])
		}
		return Seq{labels: labels, root: s.root, tail: tail, tn: s.tn - 1}
	}
	return Seq{labels: labels, root: treapDelete(s.root, label), tail: s.tail, tn: s.tn}
}

// Next returns the key directly after k and true, or "" and false when k is
// last or not in s.
func (s Seq) Next(k string) (string, bool) {
	label, ok := s.labels.Get(k)
	if !ok {
		return "", false
	}
	if i, in := s.inTail(label); in {
		if i+1 < s.tn {
			return s.tail.items[i+1].key, true
		}
		return "", false
	}
	if n := s.root.successor(label); n != nil {
		return n.key, true
	}
	if s.tn > 0 {
		return s.tail.items[0].key, true
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
	if i, in := s.inTail(label); in {
		return s.root.count() + i, true
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
	if c := s.root.count(); i >= c {
		return s.tail.items[i-c].key
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
		if !s.root.each(yield) {
			return
		}
		for _, it := range s.items() {
			if !yield(it.key) {
				return
			}
		}
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

// treapOf returns a new treap holding items, which are in label order.
func treapOf(items []seqItem) *seqNode {
	if len(items) == 0 {
		return nil
	}
	top, prio := 0, hashString(items[0].key)
	for i := 1; i < len(items); i++ {
		if p := hashString(items[i].key); p > prio {
			top, prio = i, p
		}
	}
	left, right := treapOf(items[:top]), treapOf(items[top+1:])
	return &seqNode{left: left, right: right, label: items[top].label, key: items[top].key, prio: prio,
		size: 1 + left.count() + right.count()}
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
