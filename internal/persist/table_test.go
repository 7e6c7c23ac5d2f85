package persist

import (
	"fmt"
	"maps"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBufMapStreamInTable adds keys one version after another, as a stream
// does: every key goes into the shared table, none into the trie, and the
// versions kept on the way still see only their own keys.
func TestBufMapStreamInTable(t *testing.T) {
	var m BufMap[int]
	var kept []BufMap[int]
	for i := range 5000 {
		m = m.Set("k"+strconv.Itoa(i), i)
		if i%700 == 0 {
			kept = append(kept, m)
		}
	}
	assert.Zero(t, m.trie.Len(), "a stream's keys stay out of the trie")
	require.NotNil(t, m.log.table)
	assert.Equal(t, 5000, int(m.log.nt+m.nlog), "every key is in the table or the log")
	for j, old := range kept {
		n := j*700 + 1
		assert.Equal(t, n, old.Len())
		_, ok := old.Get("k" + strconv.Itoa(n))
		assert.False(t, ok, "version %d sees a later key", j)
		v, ok := old.Get("k" + strconv.Itoa(n-1))
		assert.True(t, ok)
		assert.Equal(t, n-1, v)
	}
}

// TestBufMapForkedTable forks a map whose table a sibling has added to
// since: the fork's new keys go into its trie until the trie outgrows a
// quarter of the table, then both move into a table of the fork's own,
// into which its later keys go again. The sibling, the fork and the base
// never see one another's keys.
func TestBufMapForkedTable(t *testing.T) {
	var base BufMap[int]
	for i := range 8 * bufLen {
		base = base.Set("base"+strconv.Itoa(i), i)
	}
	sibling := base
	for i := range 2 * bufLen {
		sibling = sibling.Set("sib"+strconv.Itoa(i), i)
	}
	fork := base
	for i := range 2 * bufLen {
		fork = fork.Set("fork"+strconv.Itoa(i), i)
	}
	assert.Same(t, base.log.table.claimed, fork.log.table.claimed)
	assert.Greater(t, fork.trie.Len(), 0, "the sibling claimed the table first")
	assert.Equal(t, base.log.nt+bufLen, fork.log.nt, "the fork took the move of base's full log the sibling made")
	assert.Zero(t, sibling.trie.Len())
	for i := range 3 * defaultLimits.rebuildMin {
		fork = fork.Set("more"+strconv.Itoa(i), i)
	}
	assert.NotSame(t, base.log.table.claimed, fork.log.table.claimed, "the fork moved into a table of its own")
	assert.Less(t, fork.trie.Len(), defaultLimits.rebuildMin, "its later keys went into its table")
	for _, c := range []struct {
		name string
		m    BufMap[int]
		want map[string]bool
	}{
		{"base", base, map[string]bool{"base": true}},
		{"sibling", sibling, map[string]bool{"base": true, "sib": true}},
		{"fork", fork, map[string]bool{"base": true, "fork": true, "more": true}},
	} {
		n := 0
		for prefix, count := range map[string]int{"base": 8 * bufLen, "sib": 2 * bufLen, "fork": 2 * bufLen, "more": 3 * defaultLimits.rebuildMin} {
			for i := range count {
				v, ok := c.m.Get(prefix + strconv.Itoa(i))
				require.Equal(t, c.want[prefix], ok, "%s: %s%d", c.name, prefix, i)
				if ok {
					require.Equal(t, i, v)
					n++
				}
			}
		}
		assert.Equal(t, n, c.m.Len(), c.name)
		all := 0
		for k, v := range c.m.All() {
			got, ok := c.m.Get(k)
			require.True(t, ok, k)
			require.Equal(t, got, v, k)
			all++
		}
		assert.Equal(t, n, all, "%s: All", c.name)
	}
}

// TestBufMapTableChanges changes and deletes keys of the table: the trie
// holds the new values and the deletions, which hide the table's entries,
// and a deleted key set again reads back its new value.
func TestBufMapTableChanges(t *testing.T) {
	var m BufMap[int]
	for i := range 1000 {
		m = m.Set(strconv.Itoa(i), i)
	}
	before := m
	for i := range 100 {
		m = m.Set(strconv.Itoa(i), -i).Delete(strconv.Itoa(100 + i))
	}
	for i := range 50 {
		m = m.Set(strconv.Itoa(100+i), 7)
	}
	for range bufLen { // flush the log
		m = m.Set("0", 0)
	}
	assert.Greater(t, m.trie.Len(), 0)
	assert.Equal(t, 950, m.Len())
	got := map[string]int{}
	for k, v := range m.All() {
		got[k] = v
	}
	assert.Len(t, got, 950)
	for i := range 1000 {
		k := strconv.Itoa(i)
		v, ok := m.Get(k)
		switch {
		case i < 100:
			require.True(t, ok, k)
			require.Equal(t, -i, v, k)
		case i < 150:
			require.True(t, ok, k)
			require.Equal(t, 7, v, k)
		case i < 200:
			require.False(t, ok, k)
		default:
			require.True(t, ok, k)
			require.Equal(t, i, v, k)
		}
		require.Equal(t, ok, got[k] == v && ok, k)
		w, ok := before.Get(k)
		require.True(t, ok)
		require.Equal(t, i, w, "the older version changed")
	}
}

// TestBufMapForkEveryWrite forks a map before every write and drops the
// fork, as a stream whose every other event is refused after it wrote to
// the map might.
//
// A fork that writes once moves, at a batch, the full log the map shares
// into the table, and the map takes that move (see flushOnce): it never
// loses the table's claim, and all its keys stay in the one table, none
// in its trie (a refused TOOL_CALL_START records the call's owner, then
// fails with A1).
//
// A fork that writes twice flushes, at a batch, a log the map no longer
// shares (the map lost the claim of its last slot) and wins the claim on
// the shared table every time: the map keeps its keys in its trie and
// moves into a table of its own whenever the trie reaches a quarter of the
// table, so it changes tables a logarithmic number of times (each move
// copying the keys once), not once per batch.
func TestBufMapForkEveryWrite(t *testing.T) {
	for _, c := range []struct {
		forkWrites   int
		tables, trie [2]int // at least, at most
	}{
		{1, [2]int{1, 1}, [2]int{0, 0}},
		{2, [2]int{3, 39}, [2]int{0, 40_000}},
	} {
		t.Run(strconv.Itoa(c.forkWrites), func(t *testing.T) {
			var m BufMap[int]
			tables := map[*tableClaim]bool{}
			const n = 40_000
			for i := range n {
				f := m
				for j := range c.forkWrites {
					f = f.Set(fmt.Sprint("dropped", j, ".", i), -1)
				}
				m = m.Set(strconv.Itoa(i), i)
				if m.log.table != nil {
					tables[m.log.table.claimed] = true
				}
			}
			assert.GreaterOrEqual(t, len(tables), c.tables[0], "tables the map moved through")
			assert.LessOrEqual(t, len(tables), c.tables[1], "tables the map moved through")
			assert.GreaterOrEqual(t, m.trie.Len(), c.trie[0], "keys in its trie")
			assert.LessOrEqual(t, m.trie.Len(), c.trie[1], "keys in its trie")
			assert.Equal(t, n, m.Len())
			for i := range n {
				v, ok := m.Get(strconv.Itoa(i))
				require.True(t, ok, i)
				require.Equal(t, i, v)
				_, ok = m.Get(fmt.Sprint("dropped0.", i))
				require.False(t, ok, i)
			}
		})
	}
}

// TestTableChunkPages: a full table chunk is a large object of whole
// pages, whatever the entry: above 32 KB, so that the allocator adds no
// 8-byte header (which takes a chunk of exactly 32 KB to a 40 KB object),
// and a multiple of the 8 KB page, so that none of it is rounding.
func TestTableChunkPages(t *testing.T) {
	for _, tc := range []struct {
		name       string
		size, bits uintptr
	}{
		{"uint32", TableEntrySize[uint32](), uintptr(chunkBits[uint32]())},
		{"int", TableEntrySize[int](), uintptr(chunkBits[int]())},
		{"12-byte record", TableEntrySize[[3]uint32](), uintptr(chunkBits[[3]uint32]())},
		{"16-byte record", TableEntrySize[[4]uint32](), uintptr(chunkBits[[4]uint32]())},
		{"string", TableEntrySize[string](), uintptr(chunkBits[string]())},
		{"24-byte record", TableEntrySize[[6]uint32](), uintptr(chunkBits[[6]uint32]())},
		{"struct{string; int}", TableEntrySize[struct {
			s string
			i int
		}](), uintptr(chunkBits[struct {
			s string
			i int
		}]())},
	} {
		if n := tc.size << tc.bits; n <= 32<<10 || n%(8<<10) != 0 {
			t.Errorf("a chunk of %d entries of %d bytes (%s) is %d bytes: not whole pages above 32 KB", 1<<tc.bits, tc.size, tc.name, n)
		}
	}
	if got := TableEntrySize[[3]uint32](); strconv.IntSize == 64 && got != 24 {
		t.Errorf("an entry of a 12-byte value aligned to 4 is %d bytes, not 24: the key is no longer a pointer and a 32-bit length", got)
	}
}

// TestBufMapSmallEntryChunks grows maps whose table entries are 16 bytes (a
// value of 4 bytes or less), whose full chunks hold 4096 entries where
// others hold 2048, past two full chunks, and forks versions kept inside
// the first and the second chunk: every version reads back as its model,
// and the table's full chunks are 4096 entries long.
func TestBufMapSmallEntryChunks(t *testing.T) {
	if strconv.IntSize != 64 {
		t.Skip("the entry sizes and chunk lengths pinned here are those of 64-bit platforms")
	}
	t.Run("uint32", func(t *testing.T) { checkSmallEntryChunks(t, func(i int) uint32 { return uint32(i) }) })
	t.Run("struct{}", func(t *testing.T) { checkSmallEntryChunks(t, func(int) struct{} { return struct{}{} }) })
}

func checkSmallEntryChunks[V comparable](t *testing.T, val func(int) V) {
	require.Equal(t, uintptr(16), TableEntrySize[V]())
	require.Equal(t, uint(12), chunkBits[V]())
	type snap struct {
		m     BufMap[V]
		model map[string]V
	}
	var snaps []snap
	m, model := BufMap[V]{}, map[string]V{}
	for i := range 10_000 {
		k := strconv.Itoa(i)
		m, model[k] = m.Set(k, val(i)), val(i)
		if i == 3000 || i == 6000 {
			snaps = append(snaps, snap{m, maps.Clone(model)})
		}
	}
	snaps = append(snaps, snap{m, model})
	for _, base := range snaps[:2] {
		// The fork loses the table's claim to m: its keys go to its trie,
		// and from there into a table of its own.
		f, fm := base.m, maps.Clone(base.model)
		for i := range 3000 {
			k := "f" + strconv.Itoa(i)
			f, fm[k] = f.Set(k, val(i)), val(i)
			if old := strconv.Itoa(i * 2); i%3 == 0 {
				f = f.Delete(old)
				delete(fm, old)
			}
		}
		snaps = append(snaps, snap{f, fm})
	}
	for i, sn := range snaps {
		require.Equal(t, len(sn.model), sn.m.Len(), "version %d: Len", i)
		require.Equal(t, sn.model, maps.Collect(sn.m.All()), "version %d: All", i)
		for k, want := range sn.model {
			got, ok := sn.m.Get(k)
			require.True(t, ok, "version %d: Get(%q)", i, k)
			require.Equal(t, want, got, "version %d: Get(%q)", i, k)
		}
	}
	tab := m.log.table
	require.Greater(t, m.log.nt, int32(2*4096), "the table fills two chunks")
	for c, chunk := range tab.dir[:len(tab.dir)-1] {
		require.Len(t, chunk, 4096, "chunk %d", c)
	}
}
