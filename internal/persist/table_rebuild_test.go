package persist

import (
	"fmt"
	"maps"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkTableIndex checks the index of t over its first n entries, keyed
// with hash: every entry is indexed exactly once, in a slot carrying its
// hash's tag, and find locates it from its key's hash; t's index is at
// most three quarters full.
func checkTableIndex[V any](tb testing.TB, t *keyTable[V], n int32, hash func(string) uint64) {
	tb.Helper()
	x := t.index
	seen := make([]bool, n)
	used := 0
	for i := range x.slots {
		s := x.slots[i].Load()
		if s == 0 {
			continue
		}
		used++
		j := int32(uint32(s)) - 1
		if j >= n {
			continue // an entry a later version sees
		}
		require.False(tb, seen[j], "entry %d indexed twice", j)
		seen[j] = true
		k := t.entry(j).key()
		require.Equal(tb, hash(k)>>32, s>>32, "slot %d of entry %d (%q) carries another tag", i, j, k)
	}
	for j := range n {
		require.True(tb, seen[j], "entry %d is not indexed", j)
		k := t.entry(j).key()
		require.Equal(tb, j, t.find(hash(k), k, n), "find(%q)", k)
	}
	assert.LessOrEqual(tb, used, len(x.slots)*3/4, "the index is over three quarters full")
}

// TestBufMapRebuildForkOfGrownTable forks a version that saw a few hundred
// entries of a table that its sibling (the main line) then grew to
// thousands, so that the shared index was reindexed several times and
// holds far more slots, and entries, than the fork sees. The fork changes,
// deletes and adds keys until its trie moves into a table of its own (the
// rebuild, which walks the shared index): the new table holds exactly the
// fork's keys, each indexed once under its own tag, and neither the
// sibling's keys nor the shadowed entries' old values; the main line is
// unchanged. Run for real and degenerate hashes (all tags equal, tags
// only).
func TestBufMapRebuildForkOfGrownTable(t *testing.T) {
	for _, hf := range []struct {
		name string
		fn   func(string) uint64
		n    int // keys of the main line; the fork sees a twentieth
	}{
		{"real", hashString, 6000},
		{"equal tags", func(k string) uint64 { return hashString(k) & (1<<32 - 1) }, 1500},
		{"tags only", func(k string) uint64 { return hashString(k) &^ (1<<32 - 1) }, 6000},
		{"eight tags", func(k string) uint64 { return hashString(k)&(7<<32) | 1 }, 2000},
	} {
		t.Run(hf.name, func(t *testing.T) {
			h := hf.fn
			m := withLimits[int](limits{rebuildMin: 64, maxTableKey: maxTableKey})
			model := map[string]int{}
			var fork BufMap[int]
			var forkModel map[string]int
			for i := range hf.n {
				k := "k" + strconv.Itoa(i)
				m = m.set(h(k), k, i)
				model[k] = i
				if i == hf.n/20 {
					fork, forkModel = m, maps.Clone(model)
				}
			}
			shared := fork.log.table
			require.NotNil(t, shared)
			require.Same(t, shared.claimed, m.log.table.claimed, "the main line added to the table the fork sees")
			require.Greater(t, len(m.log.table.index.slots), 8*int(fork.log.nt), "the main line's index grew far past the fork's entries")
			checkTableIndex(t, m.log.table, m.log.nt, h)

			for i := 0; fork.log.table.claimed == shared.claimed; i++ {
				require.Less(t, i, 10_000, "the fork never moved into a table of its own")
				switch k := "k" + strconv.Itoa(i%(hf.n/20)); i % 4 {
				case 0:
					fork = fork.set(h(k), k, -i)
					forkModel[k] = -i
				case 1:
					fork = fork.delete(h(k), k)
					delete(forkModel, k)
				default:
					k = "f" + strconv.Itoa(i)
					fork = fork.set(h(k), k, i)
					forkModel[k] = i
				}
			}
			own := fork.log.table
			checkTableIndex(t, own, fork.log.nt, h)
			assert.Equal(t, own.claimed.used.Load(), fork.log.nt, "the fork sees every entry of its new table")
			for j := range fork.log.nt {
				e := own.entry(j)
				want, ok := forkModel[e.key()]
				if ok && !logOrTrieHas(fork, h, e.key()) {
					require.Equal(t, want, e.val, "entry %q holds a shadowed value", e.key())
				}
				require.True(t, ok || logOrTrieHas(fork, h, e.key()), "entry %q is not the fork's", e.key())
			}
			checkSnaps(t, []mapSnap[BufMap[int]]{{fork, forkModel}, {m, model}}, h)
			for i := hf.n/20 + 1; i < hf.n; i += 97 {
				k := "k" + strconv.Itoa(i)
				_, ok := fork.get(h(k), k)
				require.False(t, ok, "the fork sees the main line's %q", k)
			}
		})
	}
}

// logOrTrieHas reports whether m's log or trie holds a write of k, which
// then shadows m's table.
func logOrTrieHas[V any](m BufMap[V], h func(string) uint64, k string) bool {
	for i := range m.nlog {
		if m.log.slots[i].key == k {
			return true
		}
	}
	_, ok := m.trie.get(h(k), k)
	return ok
}

// TestBufMapRebuildWhileTableGrows forks one version in several
// goroutines, each fork moving its trie into a table of its own (the
// rebuild reads the shared index slot by slot) while the main line goes on
// adding to that shared table, reindexing it: a rebuild that read a slot
// half written, or took an entry it does not see, would hold a key of the
// main line or miss one of its own. Run with -race.
func TestBufMapRebuildWhileTableGrows(t *testing.T) {
	base := withLimits[int](limits{rebuildMin: 16, maxTableKey: maxTableKey})
	for i := range 400 {
		base = base.Set("b"+strconv.Itoa(i), i)
	}
	// The trie of a fork of base: keys the table cannot take, as a fork
	// that lost the claim keeps them.
	sibling := base.Set("sib", 0)
	for i := range 2 * bufLen {
		sibling = sibling.Set("s"+strconv.Itoa(i), i)
	}
	const forks = 4
	var wg sync.WaitGroup
	results := make([]BufMap[int], forks)
	wg.Go(func() { // the main line, growing the shared table
		m := sibling
		for i := range 20_000 {
			m = m.Set("main"+strconv.Itoa(i), i)
		}
	})
	for w := range forks {
		wg.Go(func() {
			f := base
			for i := 0; i < 3000; i++ {
				f = f.Set(fmt.Sprint("w", w, ".", i), i)
				if i%5 == 0 {
					f = f.Delete("b" + strconv.Itoa(i%400))
				}
			}
			results[w] = f
		})
	}
	wg.Wait()
	for w, f := range results {
		want := map[string]int{}
		for i := range 400 {
			want["b"+strconv.Itoa(i)] = i
		}
		for i := range 3000 {
			want[fmt.Sprint("w", w, ".", i)] = i
			if i%5 == 0 {
				delete(want, "b"+strconv.Itoa(i%400))
			}
		}
		assert.NotSame(t, base.log.table.claimed, f.log.table.claimed, "fork %d never moved into a table of its own", w)
		checkSnaps(t, []mapSnap[BufMap[int]]{{f, want}}, hashString)
		checkTableIndex(t, f.log.table, f.log.nt, hashString)
		for _, k := range []string{"sib", "s0", "main0", "main19999"} {
			_, ok := f.Get(k)
			require.False(t, ok, "fork %d sees %q", w, k)
		}
	}
}

// BenchmarkBufMapRebuildOldFork moves the trie of a fork of an early
// version of a large table into a table of the fork's own: the fork sees
// 2,000 entries of a table its sibling grew to 500,000. The rebuild reads
// the index of the fork's header, the size it was when the fork was made,
// not the sibling's, the size of the large table.
func BenchmarkBufMapRebuildOldFork(b *testing.B) {
	var m BufMap[int]
	var early BufMap[int]
	for i := range 500_000 {
		m = m.Set("k"+strconv.Itoa(i), i)
		if i == 2000 {
			early = m
		}
	}
	// A fork with a trie of a quarter of the keys it sees.
	f := early
	for i := range 1000 {
		f = f.Set("f"+strconv.Itoa(i), i)
	}
	require.Same(b, m.log.table.claimed, f.log.table.claimed)
	require.Greater(b, f.trie.Len(), 500)
	b.ReportAllocs()
	for b.Loop() {
		if _, n, _ := f.rebuild(f.log.table, f.log.nt, f.log.limits()); int(n) != f.Len()-int(f.nlog) && n == 0 {
			b.Fatal("empty rebuild")
		}
	}
}
