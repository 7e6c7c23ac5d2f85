package persist

import (
	"iter"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// bufLen is the number of writes a BufMap holds in its log before it moves
// them into its trie.
const bufLen = 32

// BufMap is a Map that takes writes into a short log before its trie: a
// persistent hash map for an index that grows by one key per event, such
// as a stream's message ids. The zero value is an empty map.
//
// A Map's Set copies every node on the key's path, and at a few hundred
// thousand keys the top three levels are full 32-way nodes: about 1 KB
// copied per new key. A BufMap appends the write to a log of up to 32
// entries instead, shared by successive versions as a Vector's tail is (the
// first successor of a version to claim the next slot writes it in place),
// and moves a full log into the trie in one batch that copies each node it
// touches once: the top levels once per 32 writes, not once per write.
//
// A lookup of a key the map does not hold, what every new key costs, would
// walk the trie down to a leaf, and at that size miss the cache at every
// level: the log carries a filter of the trie's keys (see keyFilter) that
// answers most such lookups from one cached word.
//
// Costs: Get scans the log (at most 32 hashes), then reads the filter, then
// walks the trie unless the filter rules the key out; Set and Delete cost a
// Get, an append and, once every 32 writes, the batch, which adds its keys
// to the filter (or, when the filter is full, makes one 4 times as big).
// Iteration order is unspecified but deterministic for a given BufMap value
// within a process. A BufMap is 32 bytes.
type BufMap[V any] struct {
	base Map[V]
	log  *mapLog
	nlog int32 // the log entries this version sees
	n    int32 // its number of keys
}

// mapLog holds a BufMap's recent writes, oldest first. used counts the
// slots some version has claimed; a version sees only its first nlog, so
// the first successor to claim slot i by compare-and-swap may write it.
// filter holds at least the keys of the trie of every version that sees the
// log (nil: none yet), which a lookup asks before walking the trie.
type mapLog struct {
	used   atomic.Int32
	filter *keyFilter
	slots  [bufLen]logSlot
}

// logSlot is one write: the entry set (an entry of the BufMap's Map), or a
// deletion of e's key (del).
type logSlot struct {
	e   *entryKey
	del bool
}

// Len returns the number of entries in m.
func (m BufMap[V]) Len() int { return int(m.n) }

// Get returns the value stored under k and true, or the zero value and false
// when m has no entry for k.
func (m BufMap[V]) Get(k string) (V, bool) { return m.get(hashString(k), k) }

// get is Get for a key whose hash is h.
func (m BufMap[V]) get(h uint64, k string) (V, bool) {
	for i := m.nlog - 1; i >= 0; i-- {
		if s := &m.log.slots[i]; s.e.hash == h && s.e.key == k {
			if s.del {
				var zero V
				return zero, false
			}
			return entryOf[V](s.e).val, true
		}
	}
	if m.log != nil && !m.log.filter.mayHave(h) {
		var zero V
		return zero, false
	}
	return m.base.get(h, k)
}

// Has reports whether m has an entry for k.
func (m BufMap[V]) Has(k string) bool {
	_, ok := m.Get(k)
	return ok
}

// Set returns a map equal to m except that k maps to v.
func (m BufMap[V]) Set(k string, v V) BufMap[V] { return m.set(hashString(k), k, v) }

// set is Set for a key whose hash is h.
func (m BufMap[V]) set(h uint64, k string, v V) BufMap[V] {
	if _, ok := m.get(h, k); !ok {
		m.n++
	}
	return m.push(logSlot{e: newEntry(h, k, v)})
}

// Delete returns a map equal to m without an entry for k. It returns m
// itself when m has no entry for k.
func (m BufMap[V]) Delete(k string) BufMap[V] { return m.delete(hashString(k), k) }

// delete is Delete for a key whose hash is h.
func (m BufMap[V]) delete(h uint64, k string) BufMap[V] {
	if _, ok := m.get(h, k); !ok {
		return m
	}
	m.n--
	return m.push(logSlot{e: &entryKey{hash: h, key: k}, del: true})
}

// push returns m with s appended to its log, moving a full log into the
// trie first.
func (m BufMap[V]) push(s logSlot) BufMap[V] {
	var filter *keyFilter
	if m.log != nil {
		filter = m.log.filter
	}
	if m.nlog == bufLen {
		m.base = m.base.apply(m.log.slots[:])
		filter = m.base.filtered(filter, m.log.slots[:])
		m.log, m.nlog = nil, 0
	}
	if m.log != nil && m.log.used.CompareAndSwap(m.nlog, m.nlog+1) {
		// Slot nlog is ours alone: no version can see it yet.
		m.log.slots[m.nlog] = s
		m.nlog++
		return m
	}
	l := &mapLog{filter: filter}
	if m.log != nil {
		copy(l.slots[:m.nlog], m.log.slots[:m.nlog])
	}
	l.slots[m.nlog] = s
	m.nlog++
	l.used.Store(m.nlog)
	m.log = l
	return m
}

// All returns an iterator over the entries of m.
func (m BufMap[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		// The log's latest write of each key, newest first, then the trie's
		// entries the log does not shadow.
		seen := make(map[string]struct{}, m.nlog)
		for i := m.nlog - 1; i >= 0; i-- {
			s := m.log.slots[i]
			if _, dup := seen[s.e.key]; dup {
				continue
			}
			seen[s.e.key] = struct{}{}
			if !s.del && !yield(s.e.key, entryOf[V](s.e).val) {
				return
			}
		}
		for k, v := range m.base.All() {
			if _, shadowed := seen[k]; !shadowed && !yield(k, v) {
				return
			}
		}
	}
}

// apply returns m with the writes of log applied in order, copying each
// node of m it changes once: a node made by this batch is not reachable from
// any Map yet, so later writes of the batch change it in place.
func (m Map[V]) apply(log []logSlot) Map[V] {
	var b batch
	b.warm(m.root, log)
	for _, s := range log {
		switch {
		case s.del:
			m = m.delete(s.e.hash, s.e.key)
		case m.root == nil:
			m = m.setEntry(s.e)
		default:
			root, added := b.set(m.root, 0, s.e)
			m.root = root
			if added {
				m.n++
			}
		}
	}
	return m
}

// filtered returns a filter holding m's keys, m being a trie into which the
// writes of log were just applied: f (which held the keys m had before, or
// is nil when m had none) with the keys of log added, or a new filter made
// from all of m's keys when f is too small for them.
func (m Map[V]) filtered(f *keyFilter, log []logSlot) *keyFilter {
	if f == nil || f.full(m.n) {
		f = newKeyFilter(m.n)
		if m.root != nil {
			m.root.each(func(e *entryKey) bool { f.add(e.hash); return true })
		}
		return f
	}
	for _, s := range log {
		if !s.del {
			f.add(s.e.hash)
		}
	}
	return f
}

// batch is one apply: the nodes it made, which it may still change, in a
// small open-addressed set. A batch makes about four nodes a write; when the
// set is full (deep paths of colliding hashes), further nodes are simply not
// recorded, and a later write copies them again.
type batch struct {
	mine   [4 * bufLen * 2]*mapNode
	n      int
	warmed uint64 // see warm
}

// warm reads, for every write of log, the nodes on its key's path below
// root and the entry at the end of it, level by level for all the writes at
// once. The reads for different keys do not depend on one another, so the
// processor overlaps their cache misses; the writes then find their paths
// in the cache instead of missing it one level after another.
func (b *batch) warm(root *mapNode, log []logSlot) {
	if root == nil {
		return
	}
	var path [bufLen]*mapNode
	for i := range log {
		path[i] = root
	}
	var sum uint64
	for shift := uint(0); shift < mapMaxShift; shift += mapBits {
		deeper := false
		for i, s := range log {
			n := path[i]
			if n == nil {
				continue
			}
			path[i] = nil
			bit := uint32(1) << ((s.e.hash >> shift) & mapMask)
			switch {
			case n.collision():
			case n.datamap&bit != 0:
				sum += (*(**entryKey)(n.slot(index(n.datamap, bit)))).hash
			case n.nodemap&bit != 0:
				path[i] = *(**mapNode)(n.slot(bits.OnesCount32(n.datamap) + index(n.nodemap, bit)))
				deeper = true
			}
		}
		if !deeper {
			break
		}
	}
	b.warmed = sum // keeps the entry reads
}

// slot returns where n is, or would go, in b.mine.
func (b *batch) slot(n *mapNode) int {
	const mask = len(batch{}.mine) - 1
	i := int(uintptr(unsafe.Pointer(n))>>4) & mask
	for b.mine[i] != nil && b.mine[i] != n {
		i = (i + 1) & mask
	}
	return i
}

// own records n as made by the batch and returns it.
func (b *batch) own(n *mapNode) *mapNode {
	if b.n < len(b.mine)*3/4 {
		if i := b.slot(n); b.mine[i] == nil {
			b.mine[i] = n
			b.n++
		}
	}
	return n
}

// made reports whether the batch made n.
func (b *batch) made(n *mapNode) bool { return b.mine[b.slot(n)] == n }

// set is mapSet, changing in place the nodes the batch made.
func (b *batch) set(node *mapNode, shift uint, e *entryKey) (*mapNode, bool) {
	mine := b.made(node)
	if shift >= mapMaxShift {
		for i := range node.entries() {
			if node.entries()[i].key == e.key {
				if mine {
					node.entries()[i] = e
					return node, false
				}
				return b.own(node.withEntry(i, e)), false
			}
		}
		c, added := mapSet(node, shift, e)
		return b.own(c), added
	}
	bit := uint32(1) << ((e.hash >> shift) & mapMask)
	switch {
	case node.datamap&bit != 0:
		i := index(node.datamap, bit)
		if old := node.entries()[i]; old.hash == e.hash && old.key == e.key {
			if mine {
				node.entries()[i] = e
				return node, false
			}
			return b.own(node.withEntry(i, e)), false
		}
	case node.nodemap&bit != 0:
		i := index(node.nodemap, bit)
		kid, added := b.set(node.kids()[i], shift+mapBits, e)
		if mine {
			node.kids()[i] = kid
			return node, added
		}
		return b.own(node.withKid(i, kid)), added
	}
	// A new entry in this node, or two keys moving down into a new node:
	// the node changes size, so it is made anew either way.
	c, added := mapSet(node, shift, e)
	return b.own(c), added
}
