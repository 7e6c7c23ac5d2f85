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

// BufMap is a persistent hash map for an index that grows by one key per
// event, such as a stream's message ids. The zero value is an empty map.
//
// A Map's Set copies every node on the key's path: at a few hundred
// thousand keys its top levels are full 32-way nodes, about 700 bytes
// copied per new key. A BufMap holds its keys in three places, newest
// first:
//
//   - a log of up to 32 recent writes, shared by successive versions as a
//     Vector's tail is (the first successor of a version to claim the next
//     slot writes it in place);
//   - a trie (a Map) of the changes the table below cannot hold: new values
//     of keys it holds, deletions of them, and keys a version could not
//     add to it;
//   - a table of keys shared by every version that descends from the one
//     that made it (see keyTable), which a version adds keys to in place
//     when it is the latest to have added any, and which it sees a prefix
//     of.
//
// A full log moves into the table and the trie in one batch. A stream adds
// each new key to the table in place, with no node copied; only a version
// that forks from an older one (a fold refused, a view folded twice) keeps
// its new keys in the trie, and when the trie grows to a quarter of the
// table, both move into a new table of the version's own. The trie carries
// a filter of its keys (see keyFilter), so that looking up a key it does
// not hold seldom walks it.
//
// A version keeps alive the table as it saw it: the chunks and index of its
// header (see keyTable), and the entries its descendants wrote into its
// last chunk (at most 2047, or 4095 of 16 bytes; see chunkBits), not the
// rest of what they added. A version whose log is full likewise keeps the
// trie and table its first successor moved the log into.
//
// Costs: Get scans the log (at most 32 hashes), reads the filter, walks the
// trie when the filter says it may hold the key, and probes the table's
// index (one or two cache lines); Set and Delete cost a Get, an append
// and, once every 32 writes, the batch, with an occasional rebuild of the
// table amortised over the trie's growth. The rebuild is O(n): it walks
// the index of the version's header, whose size is of the order of the
// entries the version sees, however far its siblings grew the table since
// (BenchmarkBufMapRebuildOldFork). The amortisation holds along one line
// of versions: a program
// that writes many branches from one version whose trie is about to move
// pays it in each branch. Iteration order is unspecified but deterministic
// for a given BufMap value within a process. A BufMap is 32 bytes.
type BufMap[V any] struct {
	trie Map[item[V]]
	log  *mapLog[V]
	nlog int32 // the log entries this version sees
	n    int32 // its number of keys
}

// item is a value of a BufMap's trie: a value, or (gone) the deletion of
// a key its table holds. In the log, fresh marks the write of a key the
// version that wrote it had never seen (see find): its table and trie do
// not hold it, and its flush goes straight to adding it to the table.
type item[V any] struct {
	v     V
	gone  bool
	fresh bool
}

// mapLog holds a BufMap's recent writes, oldest first, inline: a value set,
// or (gone) a deletion. used counts the slots some version has claimed; a
// version sees only its first nlog, so the first successor to claim slot i
// by compare-and-swap may write it.
// table is the table of every version that sees the log (nil: none yet),
// of which they see the first nt entries, and filter holds at least the
// keys of their tries (nil: any key), which a lookup asks before walking a
// trie.
//
// Once full, a log is moved into a table and a trie by the first version
// that writes past it, and flushed records what that made (see
// flushOnce): every version that sees the whole log holds the same writes
// over the same trie, so the others take it rather than make it again.
type mapLog[V any] struct {
	used    atomic.Int32
	nt      int32
	table   *keyTable[V]
	filter  *keyFilter
	slots   [bufLen]mapEntry[item[V]]
	flushed atomic.Int32 // logOpen, logFlushing or logFlushed
	next    flushResult[V]
	lim     *limits // nil: defaultLimits; the log's successors keep it
}

// limits are the thresholds a BufMap flushes its log by: the size below
// which its trie never moves into a new table (rebuildMin), and the
// length of the longest key a table entry holds (maxTableKey). Every map
// but a test's has defaultLimits; a test lowers them to reach rebuilds and
// long keys in small maps (see withLimits).
type limits struct{ rebuildMin, maxTableKey int }

var defaultLimits = limits{rebuildMin: 1024, maxTableKey: maxTableKey}

// limits returns the limits of the map whose log is l (nil: none yet).
func (l *mapLog[V]) limits() *limits {
	if l == nil || l.lim == nil {
		return &defaultLimits
	}
	return l.lim
}

// The states of a full log's record of its flush: none, being written by
// the one version that claimed it, written (next may be read).
const (
	logOpen = iota
	logFlushing
	logFlushed
)

// flushResult is what a log's flush made: the trie, the table, the number
// of its entries seen and the trie's filter.
type flushResult[V any] struct {
	trie   Map[item[V]]
	table  *keyTable[V]
	nt     int32
	filter *keyFilter
}

// logSlot is one write of a batch into a trie: the entry set, or a
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
	v, ok, _ := m.find(h, k)
	return v, ok
}

// find is get, and also reports whether k is anywhere in m's log, trie or
// table, as a value or a deletion (seen): a key m has not seen is new to
// its table and trie, which the flush of a write of it need not ask again.
func (m BufMap[V]) find(h uint64, k string) (v V, ok, seen bool) {
	if m.log == nil {
		return v, false, false
	}
	for i := m.nlog - 1; i >= 0; i-- {
		if s := &m.log.slots[i]; s.hash == h && s.key == k {
			if s.val.gone {
				return v, false, true
			}
			return s.val.v, true, true
		}
	}
	if m.trie.root != nil && m.log.filter.mayHave(h) {
		if it, ok := m.trie.get(h, k); ok {
			if it.gone {
				return v, false, true
			}
			return it.v, true, true
		}
	}
	if t := m.log.table; t != nil {
		if e := t.get(h, k, m.log.nt); e != nil {
			return e.val, true, true
		}
	}
	return v, false, false
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
	_, ok, seen := m.find(h, k)
	if !ok {
		m.n++
	}
	return m.push(h, k, item[V]{v: v, fresh: !seen})
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
	return m.push(h, k, item[V]{gone: true})
}

// push returns m with the write of it to k, whose hash is h, appended to
// its log, moving a full log into the table and the trie first.
func (m BufMap[V]) push(h uint64, k string, it item[V]) BufMap[V] {
	s := mapEntry[item[V]]{entryKey: entryKey{hash: h, key: k}, val: it}
	var (
		table  *keyTable[V]
		nt     int32
		filter *keyFilter
		lim    *limits
	)
	if m.log != nil {
		table, nt, filter, lim = m.log.table, m.log.nt, m.log.filter, m.log.lim
	}
	if m.nlog == bufLen {
		table, nt, filter = m.flushOnce()
		m.log, m.nlog = nil, 0
	}
	if m.log != nil && m.log.used.CompareAndSwap(m.nlog, m.nlog+1) {
		// Slot nlog is ours alone: no version can see it yet.
		m.log.slots[m.nlog] = s
		m.nlog++
		return m
	}
	l := &mapLog[V]{table: table, nt: nt, filter: filter, lim: lim}
	if m.log != nil {
		copy(l.slots[:m.nlog], m.log.slots[:m.nlog])
	}
	l.slots[m.nlog] = s
	m.nlog++
	l.used.Store(m.nlog)
	m.log = l
	return m
}

// flushOnce is flush, done once for all the versions that see the whole
// of m's log: the first to finish records what it made in the log, and the
// others take that. Without it, each of many versions forked from one
// whose log is full (a stream whose refused folds all start from the same
// view) would move the log again, and when that moves its trie into a new
// table, copy the whole table each time.
func (m *BufMap[V]) flushOnce() (*keyTable[V], int32, *keyFilter) {
	l := m.log
	if l.flushed.Load() == logFlushed {
		m.trie = l.next.trie
		return l.next.table, l.next.nt, l.next.filter
	}
	table, nt, filter := m.flush()
	if l.flushed.CompareAndSwap(logOpen, logFlushing) {
		l.next = flushResult[V]{trie: m.trie, table: table, nt: nt, filter: filter}
		l.flushed.Store(logFlushed)
	}
	return table, nt, filter
}

// flush moves m's full log into its table and trie: a key new to m into
// the table while m may add to it, any other write into the trie. It sets
// m's trie and returns m's table, the number of its entries m sees and
// the filter of m's trie.
func (m *BufMap[V]) flush() (*keyTable[V], int32, *keyFilter) {
	l := m.log
	lim := l.limits()
	table, nt, filter := l.table, l.nt, l.filter
	if table == nil {
		table = newKeyTable[V](bufLen)
	}
	var rest [bufLen]logSlot
	n, adding := 0, true
	for i := range l.slots {
		s := &l.slots[i]
		h, k := s.hash, s.key
		held := !s.val.fresh && table.get(h, k, nt) != nil
		switch {
		case s.val.gone && !held:
			// The trie reads the key of a deletion and keeps nothing.
			rest[n] = logSlot{e: &s.entryKey, del: true}
		case s.val.gone || held || len(k) > lim.maxTableKey || !s.val.fresh && filter.mayHave(h) && m.trie.has(h, k):
			// A tombstone, a new value or a key the table cannot take.
			rest[n] = logSlot{e: newEntry(h, k, s.val)}
		case adding && table.claim(nt):
			table = table.add(nt, h, k, s.val.v)
			nt++
			continue
		default:
			adding = false // a sibling claimed the table's next entry
			rest[n] = logSlot{e: newEntry(h, k, s.val)}
		}
		n++
	}
	if n > 0 {
		m.trie = m.trie.apply(rest[:n])
		filter = m.trie.filtered(filter, rest[:n])
	}
	if m.trie.n > lim.rebuildMin && m.trie.n > int(nt)/4 {
		table, nt, filter = m.rebuild(table, nt, lim)
	}
	return table, nt, filter
}

// rebuild moves m's trie into a new table holding m's keys other than
// those of its log, given that m sees the first nt entries of table, and
// returns the table, its number of entries and the filter of m's trie,
// which is left with the keys longer than lim.maxTableKey (nil when there
// are none). The trie's keys shadow the table's: the
// entries they shadow are marked first, then the others are copied in the
// order of the table's index, whose slots hold their hashes' tags.
func (m *BufMap[V]) rebuild(table *keyTable[V], nt int32, lim *limits) (*keyTable[V], int32, *keyFilter) {
	shadowed := make([]bool, nt)
	m.trie.root.each(func(e *entryKey) bool {
		if j := table.find(e.hash, e.key, nt); j >= 0 {
			shadowed[j] = true
		}
		return true
	})
	fresh := newKeyTable[V](int(nt) + m.trie.n)
	var n int32
	x := table.index
	for i := range x.slots {
		s := x.slots[i].Load()
		if j := int32(uint32(s)) - 1; s != 0 && j < nt && !shadowed[j] {
			e := table.entry(j)
			fresh = fresh.add(n, s&^(1<<32-1), e.key(), e.val)
			n++
		}
	}
	var long []logSlot
	m.trie.root.each(func(e *entryKey) bool {
		switch it := entryOf[item[V]](e).val; {
		case it.gone:
		case len(e.key) > lim.maxTableKey:
			long = append(long, logSlot{e: e})
		default:
			fresh = fresh.add(n, e.hash, e.key, it.v)
			n++
		}
		return true
	})
	fresh.claimed.used.Store(n)
	m.trie = Map[item[V]]{}
	if long == nil {
		return fresh, n, nil
	}
	m.trie = m.trie.apply(long)
	return fresh, n, m.trie.filtered(nil, long)
}

// All returns an iterator over the entries of m.
func (m BufMap[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		if m.log == nil {
			return
		}
		// The log's latest write of each key, newest first, then the
		// trie's entries the log does not shadow, then the table's entries
		// neither shadows.
		seen := make(map[string]struct{}, m.nlog)
		for i := m.nlog - 1; i >= 0; i-- {
			s := &m.log.slots[i]
			if _, dup := seen[s.key]; dup {
				continue
			}
			seen[s.key] = struct{}{}
			if !s.val.gone && !yield(s.key, s.val.v) {
				return
			}
		}
		if m.trie.root != nil && !m.trie.root.each(func(e *entryKey) bool {
			if _, dup := seen[e.key]; dup {
				return true
			}
			seen[e.key] = struct{}{}
			it := entryOf[item[V]](e).val
			return it.gone || yield(e.key, it.v)
		}) {
			return
		}
		if t := m.log.table; t != nil {
			for i := range m.log.nt {
				e := t.entry(i)
				if _, dup := seen[e.key()]; !dup && !yield(e.key(), e.val) {
					return
				}
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
