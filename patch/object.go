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

// set returns o with member k set to v: replaced in place if k exists,
// appended otherwise. o is not modified.
func (o *object) set(k string, v *node) object {
	if o.root == nil {
		for i := range o.small {
			if o.small[i].key == k {
				s := slices.Clone(o.small)
				s[i].val = v
				return object{small: s, n: o.n, content: o.content - o.small[i].val.size + v.size}
			}
		}
		if o.n < smallObject {
			s := make([]member, o.n+1)
			copy(s, o.small)
			s[o.n] = member{key: k, val: v}
			return object{small: s, n: o.n + 1, content: o.content + memberSize(k, v)}
		}
		big := o.toTrie()
		return big.set(k, v)
	}
	h := hashKey(k)
	if old := o.root.get(h, 0, k); old != nil {
		root, _ := o.root.with(&entry{key: k, val: v, hash: h, seq: old.seq}, 0)
		return object{root: root, n: o.n, next: o.next, content: o.content - old.val.size + v.size}
	}
	root, _ := o.root.with(&entry{key: k, val: v, hash: h, seq: o.next}, 0)
	return object{root: root, n: o.n + 1, next: o.next + 1, content: o.content + memberSize(k, v)}
}

// del returns o without member k, and whether k was there.
func (o *object) del(k string) (object, bool) {
	if o.root == nil {
		for i := range o.small {
			if o.small[i].key == k {
				s := make([]member, 0, o.n-1)
				s = append(s, o.small[:i]...)
				s = append(s, o.small[i+1:]...)
				return object{small: s, n: o.n - 1, content: o.content - memberSize(k, o.small[i].val)}, true
			}
		}
		return *o, false
	}
	root, old := o.root.without(hashKey(k), 0, k)
	if old == nil {
		return *o, false
	}
	r := object{root: root, n: o.n - 1, next: o.next, content: o.content - memberSize(k, old.val)}
	if r.n <= shrinkObject {
		return object{small: r.ordered(), n: r.n, content: r.content}, true
	}
	return r, true
}

// toTrie converts a small object to trie form, keeping its order.
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

// objectBuilder builds an object member by member, mutating its own fresh
// storage until build hands it out. A repeated member name keeps its first
// position and takes the last value, as JavaScript's JSON.parse does.
type objectBuilder struct {
	o object
}

func (b *objectBuilder) add(k string, v *node) {
	o := &b.o
	if o.root == nil {
		for i := range o.small {
			if o.small[i].key == k {
				o.content += v.size - o.small[i].val.size
				o.small[i].val = v
				return
			}
		}
		if o.n < smallObject {
			if o.small == nil {
				o.small = make([]member, 0, 4)
			}
			o.small = append(o.small, member{key: k, val: v})
			o.n++
			o.content += memberSize(k, v)
			return
		}
		*o = o.toTrie()
	}
	h := hashKey(k)
	if old := o.root.get(h, 0, k); old != nil {
		o.content += v.size - old.val.size
		o.root.insertFresh(&entry{key: k, val: v, hash: h, seq: old.seq}, 0)
		return
	}
	o.root.insertFresh(&entry{key: k, val: v, hash: h, seq: o.next}, 0)
	o.next++
	o.n++
	o.content += memberSize(k, v)
}

func (b *objectBuilder) build() object {
	o := b.o
	if o.root == nil {
		o.small = slices.Clip(o.small)
	}
	b.o = object{}
	return o
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
	slots  []hslot
	coll   []*entry
}

// hslot holds an entry or a child node.
type hslot struct {
	e   *entry
	sub *hnode
}

func slotIndex(bitmap, bit uint32) int { return bits.OnesCount32(bitmap & (bit - 1)) }

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
		return &hnode{coll: []*entry{a, b}}
	}
	ia, ib := (a.hash>>shift)&trieMask, (b.hash>>shift)&trieMask
	if ia == ib {
		return &hnode{bitmap: 1 << ia, slots: []hslot{{sub: pair(a, b, shift+trieBits)}}}
	}
	if ia > ib {
		a, b = b, a
		ia, ib = ib, ia
	}
	return &hnode{bitmap: 1<<ia | 1<<ib, slots: []hslot{{e: a}, {e: b}}}
}

// with returns h with e stored (replacing an entry with the same key, which
// it returns), copying only the nodes on e's path.
func (h *hnode) with(e *entry, shift uint) (*hnode, *entry) {
	if shift >= hashBits {
		for i, x := range h.coll {
			if x.key == e.key {
				c := slices.Clone(h.coll)
				c[i] = e
				return &hnode{coll: c}, x
			}
		}
		c := make([]*entry, len(h.coll), len(h.coll)+1)
		copy(c, h.coll)
		return &hnode{coll: append(c, e)}, nil
	}
	bit := uint32(1) << ((e.hash >> shift) & trieMask)
	idx := slotIndex(h.bitmap, bit)
	if h.bitmap&bit == 0 {
		s := make([]hslot, len(h.slots)+1)
		copy(s, h.slots[:idx])
		s[idx] = hslot{e: e}
		copy(s[idx+1:], h.slots[idx:])
		return &hnode{bitmap: h.bitmap | bit, slots: s}, nil
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
	s := slices.Clone(h.slots)
	s[idx] = repl
	return &hnode{bitmap: h.bitmap, slots: s}, old
}

// insertFresh stores e in h by mutating h and the nodes below it. Only for
// nodes that the caller has just built and nobody else can see.
func (h *hnode) insertFresh(e *entry, shift uint) {
	for {
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
				return &hnode{coll: slices.Delete(slices.Clone(h.coll), i, i+1)}, x
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
		s := make([]hslot, 0, len(h.slots)-1)
		s = append(s, h.slots[:idx]...)
		s = append(s, h.slots[idx+1:]...)
		return &hnode{bitmap: h.bitmap &^ bit, slots: s}, old
	}
	s := slices.Clone(h.slots)
	s[idx] = repl
	return &hnode{bitmap: h.bitmap, slots: s}, old
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
