package patch

import (
	"hash/maphash"
	"math/bits"
	"slices"
)

// An object is an immutable JSON object that keeps its members in insertion
// order (JavaScript's order for the non-integer keys state documents use; a
// replaced member keeps its place, a new member goes last).
//
// Small objects are a slice copied on write. Objects with more than
// smallObject members are a hash array mapped trie (HAMT) of entries tagged
// with an insertion sequence number: get, set and delete cost O(log32 n) and
// copy only the trie nodes on the path; encoding sorts the entries by their
// sequence number once.
//
// The trie is not internal/persist's Map: each of its nodes keeps the
// largest height of the values below it (hnode.h), so that a member set
// deep in a large object gives the object's height, which the nesting
// limit checks on every patch, in O(log32 n) rather than a scan of the
// members. persist.Map has no per-node aggregate, and giving it one would
// cost every map of the view model a field and its upkeep.
type object struct {
	small   []member // members in order, when root is nil
	root    *hnode   // the trie, for large objects
	n       int      // number of members
	next    uint64   // next insertion sequence number (trie only)
	content int      // Σ quotedLen(key)+1+value.size over the members
}

// member is one member of a small object.
type member struct {
	key string
	val *node
}

// entry is one member of a trie object. Entries are immutable.
type entry struct {
	key  string
	val  *node
	hash uint64 // maphash of key (trie only)
	seq  uint64 // insertion order (trie only)
}

const (
	// smallObject is the largest member count kept as a plain slice.
	smallObject = 16
	// shrinkObject is the member count at which a trie turns back into a slice.
	shrinkObject = smallObject / 2
)

// hashSeed is fixed for the life of the process and never written after
// initialisation; a random seed keeps crafted member names from colliding.
var hashSeed = maphash.MakeSeed()

func hashKey(k string) uint64 { return maphash.String(hashSeed, k) }

func memberSize(k string, v *node) int { return quotedLen(k) + 1 + v.size }

func (o *object) len() int { return o.n }

// maxHeight returns the largest height of the members' values (0 when
// empty).
func (o *object) maxHeight() int32 {
	if o.root != nil {
		return o.root.h
	}
	h := int32(0)
	for _, m := range o.small {
		h = max(h, m.val.height)
	}
	return h
}

func (o *object) encodedSize() int {
	if o.n == 0 {
		return 2
	}
	return 2 + o.content + o.n - 1
}

func (o *object) get(k string) (*node, bool) {
	if o.root == nil {
		for i := range o.small {
			if o.small[i].key == k {
				return o.small[i].val, true
			}
		}
		return nil, false
	}
	if e := o.root.get(hashKey(k), 0, k); e != nil {
		return e.val, true
	}
	return nil, false
}

// set returns a new object node: o with member k set to v, replaced in place
// if k exists, appended otherwise. o is not modified.
func (o *object) set(k string, v *node) *node {
	if o.root == nil {
		for i := range o.small {
			if o.small[i].key == k {
				x, s := newSmallObject(o.n)
				copy(s, o.small)
				s[i].val = v
				x.o = object{small: s, n: o.n, content: o.content - o.small[i].val.size + v.size}
				return x.finish()
			}
		}
		if o.n < smallObject {
			x, s := newSmallObject(o.n + 1)
			copy(s, o.small)
			s[o.n] = member{key: k, val: v}
			x.o = object{small: s, n: o.n + 1, content: o.content + memberSize(k, v)}
			return x.finish()
		}
		big := o.toTrie()
		return big.set(k, v)
	}
	h := hashKey(k)
	if old := o.root.get(h, 0, k); old != nil {
		// Keep the old key: k may be a token of a patch's path, which the
		// document should not hold on to when it needs none of it.
		root, _ := o.root.with(&entry{key: old.key, val: v, hash: h, seq: old.seq}, 0)
		return newObjectNode(object{root: root, n: o.n, next: o.next, content: o.content - old.val.size + v.size})
	}
	root, _ := o.root.with(&entry{key: k, val: v, hash: h, seq: o.next}, 0)
	return newObjectNode(object{root: root, n: o.n + 1, next: o.next + 1, content: o.content + memberSize(k, v)})
}

// del returns a new object node, o without member k, and whether k was
// there (if not, the node is nil).
func (o *object) del(k string) (*node, bool) {
	if o.root == nil {
		for i := range o.small {
			if o.small[i].key == k {
				if o.n == 1 {
					return emptyObjectNode, true
				}
				x, s := newSmallObject(o.n - 1)
				copy(s, o.small[:i])
				copy(s[i:], o.small[i+1:])
				x.o = object{small: s, n: o.n - 1, content: o.content - memberSize(k, o.small[i].val)}
				return x.finish(), true
			}
		}
		return nil, false
	}
	root, old := o.root.without(hashKey(k), 0, k)
	if old == nil {
		return nil, false
	}
	r := object{root: root, n: o.n - 1, next: o.next, content: o.content - memberSize(k, old.val)}
	if r.n <= shrinkObject {
		x, s := newSmallObject(r.n)
		copy(s, r.ordered())
		x.o = object{small: s, n: r.n, content: r.content}
		return x.finish(), true
	}
	return newObjectNode(r), true
}

// toTrie converts a small object to trie form, keeping its order. It does
// not retain o.small.
func (o *object) toTrie() object {
	r := object{root: &hnode{}, n: o.n, next: uint64(o.n), content: o.content}
	for i, e := range o.small {
		r.root.insertFresh(&entry{key: e.key, val: e.val, hash: hashKey(e.key), seq: uint64(i)}, 0)
	}
	return r
}

// each calls fn for every member, in no particular order, until fn returns
// false.
func (o *object) each(fn func(k string, v *node) bool) {
	if o.root == nil {
		for _, e := range o.small {
			if !fn(e.key, e.val) {
				return
			}
		}
		return
	}
	o.root.each(func(e *entry) bool { return fn(e.key, e.val) })
}

// eachInOrder calls fn for every member in insertion order.
func (o *object) eachInOrder(fn func(k string, v *node)) {
	if o.root == nil {
		for _, e := range o.small {
			fn(e.key, e.val)
		}
		return
	}
	for _, e := range o.ordered() {
		fn(e.key, e.val)
	}
}

// ordered returns the members of a trie object in insertion order.
func (o *object) ordered() []member {
	es := make([]*entry, 0, o.n)
	if o.root != nil {
		o.root.each(func(e *entry) bool {
			es = append(es, e)
			return true
		})
	}
	slices.SortFunc(es, func(a, b *entry) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	ms := make([]member, len(es))
	for i, e := range es {
		ms[i] = member{key: e.key, val: e.val}
	}
	return ms
}

// objectBuilder builds an object member by member for the parser. While the
// object is small its members sit on the parser's member stack (from base
// on; nested objects use the stack above them), so building one costs a
// single allocation, made by build; a larger object is a trie the builder
// mutates until build hands it out. A repeated member name keeps its first
// position and takes the last value, as JavaScript's JSON.parse does.
type objectBuilder struct {
	base int    // where this object's members start on the stack
	big  object // the trie, once the object has outgrown a small one
	// replaced: a repeated member name replaced a value of the trie, whose
	// heights may then be too high until build fixes them.
	replaced bool
}

// add adds a member and returns the stack.
func (b *objectBuilder) add(stack []member, k string, v *node) []member {
	if b.big.root == nil {
		ms := stack[b.base:]
		for i := range ms {
			if ms[i].key == k {
				ms[i].val = v
				return stack
			}
		}
		if len(ms) < smallObject {
			return append(stack, member{key: k, val: v})
		}
		small := object{small: ms, n: len(ms), content: membersSize(ms)}
		b.big = small.toTrie()
		stack = b.pop(stack)
	}
	o := &b.big
	h := hashKey(k)
	if old := o.root.get(h, 0, k); old != nil {
		o.content += v.size - old.val.size
		o.root.insertFresh(&entry{key: k, val: v, hash: h, seq: old.seq}, 0)
		b.replaced = true
		return stack
	}
	o.root.insertFresh(&entry{key: k, val: v, hash: h, seq: o.next}, 0)
	o.next++
	o.n++
	o.content += memberSize(k, v)
	return stack
}

// build returns the object's node, and the stack without its members.
func (b *objectBuilder) build(stack []member) (*node, []member) {
	if b.big.root != nil {
		if b.replaced {
			b.big.root.fixAll()
		}
		return newObjectNode(b.big), stack
	}
	ms := stack[b.base:]
	if len(ms) == 0 {
		return emptyObjectNode, stack
	}
	x, s := newSmallObject(len(ms))
	copy(s, ms)
	x.o = object{small: s, n: len(s), content: membersSize(s)}
	return x.finish(), b.pop(stack)
}

// pop returns the stack without the object's members, dropping the
// references they hold.
func (b *objectBuilder) pop(stack []member) []member {
	clear(stack[b.base:])
	return stack[:b.base]
}

// membersSize is the content size of an object with the members ms.
func membersSize(ms []member) int {
	n := 0
	for _, m := range ms {
		n += memberSize(m.key, m.val)
	}
	return n
}

// ---------------------------------------------------------------------------
// Hash array mapped trie

const (
	trieBits = 5
	trieMask = 1<<trieBits - 1
	// hashBits is the width of the hash; below it, keys whose hashes are
	// equal share a collision node.
	hashBits = 64
)

// hnode is a trie node: either a bitmap node whose slots are entries or
// children, or (at depth hashBits) a collision list. Nodes reachable from an
// object are never written; insertFresh writes only nodes it just built.
type hnode struct {
	bitmap uint32
	h      int32 // the largest height of the values below
	slots  []hslot
	coll   []*entry
}

// fix sets h.h from h's slots and collisions (whose own h are set) and
// returns h; h must not be published yet.
func (h *hnode) fix() *hnode {
	m := int32(0)
	for _, e := range h.coll {
		m = max(m, e.val.height)
	}
	for _, s := range h.slots {
		if s.e != nil {
			m = max(m, s.e.val.height)
		} else {
			m = max(m, s.sub.h)
		}
	}
	h.h = m
	return h
}

// fixAll is fix for h and every node below it, for a trie that
// insertFresh built and that is not published yet.
func (h *hnode) fixAll() {
	for _, s := range h.slots {
		if s.sub != nil {
			s.sub.fixAll()
		}
	}
	h.fix()
}

// hslot holds an entry or a child node.
type hslot struct {
	e   *entry
	sub *hnode
}

func slotIndex(bitmap, bit uint32) int { return bits.OnesCount32(bitmap & (bit - 1)) }

// newHnode returns a trie node with the bitmap and room for n slots
// (1 <= n <= 32) in the same allocation, for the caller to fill before the
// node is handed out.
func newHnode(bitmap uint32, n int) (*hnode, []hslot) {
	var h *hnode
	var s []hslot
	switch {
	case n <= 1:
		h, s = block[hnode](n, func(a *[1]hslot) []hslot { return a[:] })
	case n <= 2:
		h, s = block[hnode](n, func(a *[2]hslot) []hslot { return a[:] })
	case n <= 3:
		h, s = block[hnode](n, func(a *[3]hslot) []hslot { return a[:] })
	case n <= 4:
		h, s = block[hnode](n, func(a *[4]hslot) []hslot { return a[:] })
	case n <= 6:
		h, s = block[hnode](n, func(a *[6]hslot) []hslot { return a[:] })
	case n <= 8:
		h, s = block[hnode](n, func(a *[8]hslot) []hslot { return a[:] })
	case n <= 12:
		h, s = block[hnode](n, func(a *[12]hslot) []hslot { return a[:] })
	case n <= 16:
		h, s = block[hnode](n, func(a *[16]hslot) []hslot { return a[:] })
	case n <= 24:
		h, s = block[hnode](n, func(a *[24]hslot) []hslot { return a[:] })
	default:
		h, s = block[hnode](n, func(a *[32]hslot) []hslot { return a[:] })
	}
	h.bitmap, h.slots = bitmap, s
	return h, s
}

func (h *hnode) get(hash uint64, shift uint, k string) *entry {
	for {
		if shift >= hashBits {
			for _, e := range h.coll {
				if e.key == k {
					return e
				}
			}
			return nil
		}
		bit := uint32(1) << ((hash >> shift) & trieMask)
		if h.bitmap&bit == 0 {
			return nil
		}
		s := &h.slots[slotIndex(h.bitmap, bit)]
		if s.e != nil {
			if s.e.key == k {
				return s.e
			}
			return nil
		}
		h = s.sub
		shift += trieBits
	}
}

// pair builds the smallest subtrie holding two entries with different keys.
func pair(a, b *entry, shift uint) *hnode {
	if shift >= hashBits {
		return (&hnode{coll: []*entry{a, b}}).fix()
	}
	ia, ib := (a.hash>>shift)&trieMask, (b.hash>>shift)&trieMask
	if ia == ib {
		h, s := newHnode(1<<ia, 1)
		s[0] = hslot{sub: pair(a, b, shift+trieBits)}
		return h.fix()
	}
	if ia > ib {
		a, b = b, a
		ia, ib = ib, ia
	}
	h, s := newHnode(1<<ia|1<<ib, 2)
	s[0], s[1] = hslot{e: a}, hslot{e: b}
	return h.fix()
}

// with returns h with e stored (replacing an entry with the same key, which
// it returns), copying only the nodes on e's path.
func (h *hnode) with(e *entry, shift uint) (*hnode, *entry) {
	if shift >= hashBits {
		for i, x := range h.coll {
			if x.key == e.key {
				c := slices.Clone(h.coll)
				c[i] = e
				return (&hnode{coll: c}).fix(), x
			}
		}
		c := make([]*entry, len(h.coll), len(h.coll)+1)
		copy(c, h.coll)
		return (&hnode{coll: append(c, e)}).fix(), nil
	}
	bit := uint32(1) << ((e.hash >> shift) & trieMask)
	idx := slotIndex(h.bitmap, bit)
	if h.bitmap&bit == 0 {
		n, s := newHnode(h.bitmap|bit, len(h.slots)+1)
		copy(s, h.slots[:idx])
		s[idx] = hslot{e: e}
		copy(s[idx+1:], h.slots[idx:])
		return n.fix(), nil
	}
	cur := h.slots[idx]
	var repl hslot
	var old *entry
	switch {
	case cur.e != nil && cur.e.key == e.key:
		repl, old = hslot{e: e}, cur.e
	case cur.e != nil:
		repl = hslot{sub: pair(cur.e, e, shift+trieBits)}
	default:
		var sub *hnode
		sub, old = cur.sub.with(e, shift+trieBits)
		repl = hslot{sub: sub}
	}
	n, s := newHnode(h.bitmap, len(h.slots))
	copy(s, h.slots)
	s[idx] = repl
	return n.fix(), old
}

// insertFresh stores e in h by mutating h and the nodes below it. Only for
// nodes that the caller has just built and nobody else can see. The heights
// on e's path grow to cover e; an entry it replaces may leave them too high
// (the caller then calls fixAll).
func (h *hnode) insertFresh(e *entry, shift uint) {
	for {
		h.h = max(h.h, e.val.height)
		if shift >= hashBits {
			for i, x := range h.coll {
				if x.key == e.key {
					h.coll[i] = e
					return
				}
			}
			h.coll = append(h.coll, e)
			return
		}
		bit := uint32(1) << ((e.hash >> shift) & trieMask)
		idx := slotIndex(h.bitmap, bit)
		if h.bitmap&bit == 0 {
			h.slots = slices.Insert(h.slots, idx, hslot{e: e})
			h.bitmap |= bit
			return
		}
		cur := &h.slots[idx]
		switch {
		case cur.e != nil && cur.e.key == e.key:
			cur.e = e
			return
		case cur.e != nil:
			*cur = hslot{sub: pair(cur.e, e, shift+trieBits)}
			return
		}
		h = cur.sub
		shift += trieBits
	}
}

// without returns h minus the entry with key k (nil when h ends up empty) and
// the removed entry (nil, with h itself, when k is absent).
func (h *hnode) without(hash uint64, shift uint, k string) (*hnode, *entry) {
	if shift >= hashBits {
		for i, x := range h.coll {
			if x.key == k {
				if len(h.coll) == 1 {
					return nil, x
				}
				return (&hnode{coll: slices.Delete(slices.Clone(h.coll), i, i+1)}).fix(), x
			}
		}
		return h, nil
	}
	bit := uint32(1) << ((hash >> shift) & trieMask)
	if h.bitmap&bit == 0 {
		return h, nil
	}
	idx := slotIndex(h.bitmap, bit)
	cur := h.slots[idx]
	var old *entry
	var repl hslot
	if cur.e != nil {
		if cur.e.key != k {
			return h, nil
		}
		old = cur.e
	} else {
		var sub *hnode
		sub, old = cur.sub.without(hash, shift+trieBits, k)
		if old == nil {
			return h, nil
		}
		if sub != nil {
			// A child left with a single entry collapses into this slot.
			if e := sub.only(); e != nil {
				repl = hslot{e: e}
			} else {
				repl = hslot{sub: sub}
			}
		}
	}
	if repl.e == nil && repl.sub == nil {
		if h.bitmap == bit {
			return nil, old
		}
		n, s := newHnode(h.bitmap&^bit, len(h.slots)-1)
		copy(s, h.slots[:idx])
		copy(s[idx:], h.slots[idx+1:])
		return n.fix(), old
	}
	n, s := newHnode(h.bitmap, len(h.slots))
	copy(s, h.slots)
	s[idx] = repl
	return n.fix(), old
}

// only returns the node's single entry when it holds exactly one entry and no
// children, else nil.
func (h *hnode) only() *entry {
	if len(h.coll) == 1 {
		return h.coll[0]
	}
	if len(h.slots) == 1 && h.slots[0].e != nil {
		return h.slots[0].e
	}
	return nil
}

func (h *hnode) each(fn func(*entry) bool) bool {
	for _, e := range h.coll {
		if !fn(e) {
			return false
		}
	}
	for _, s := range h.slots {
		if s.e != nil {
			if !fn(s.e) {
				return false
			}
		} else if !s.sub.each(fn) {
			return false
		}
	}
	return true
}
