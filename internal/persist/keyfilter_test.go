package persist

import (
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeyFilter checks a filter at the loads it runs at: never "no" for a
// key added, and "no" for most keys not added, even when full.
func TestKeyFilter(t *testing.T) {
	for _, n := range []int{1, 100, 10_000, 200_000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			f := newKeyFilter(n / 4) // filled to its limit (8 keys a word) or past it
			for i := range n {
				f.add(hashString("k" + strconv.Itoa(i)))
			}
			for i := range n {
				require.True(t, f.mayHave(hashString("k"+strconv.Itoa(i))), "key %d added", i)
			}
			if n >= 10_000 {
				fp := 0
				for i := range n {
					if f.mayHave(hashString("absent" + strconv.Itoa(i))) {
						fp++
					}
				}
				assert.Less(t, float64(fp)/float64(n), 0.08, "false positives at %d keys", n)
			}
		})
	}
	var none *keyFilter
	assert.True(t, none.mayHave(42), "a nil filter may hold any key")
}

// TestBufMapFilter changes many keys of a map's table, which its trie then
// holds, and checks that the trie's filter keeps up: it holds every key of
// the trie, is remade when full, and answers "no" for most absent keys, so
// that looking them up skips the trie.
func TestBufMapFilter(t *testing.T) {
	var m BufMap[int]
	for i := range 100_000 {
		m = m.Set(strconv.Itoa(i), i)
	}
	require.Nil(t, m.log.filter, "a stream's new keys go into the table")
	var sizes []int
	for i := range 20_000 {
		m = m.Set(strconv.Itoa(i), -i)
		if f := m.log.filter; f != nil && (len(sizes) == 0 || sizes[len(sizes)-1] != len(f.words)) {
			sizes = append(sizes, len(f.words))
		}
	}
	f := m.log.filter
	require.NotNil(t, f)
	assert.Greater(t, m.trie.Len(), 19_000, "the trie holds the changed keys")
	assert.False(t, f.full(m.trie.Len()))
	assert.Greater(t, len(sizes), 2, "remade as the trie grew: %v", sizes)
	m.trie.root.each(func(e *entryKey) bool {
		require.True(t, f.mayHave(e.hash), "trie key %q", e.key)
		return true
	})
	skipped := 0
	for i := range 10_000 {
		if !f.mayHave(hashString("x" + strconv.Itoa(i))) {
			skipped++
		}
		_, ok := m.Get("x" + strconv.Itoa(i))
		require.False(t, ok)
	}
	assert.Greater(t, skipped, 9_000, "absent keys the filter answers")
	v, ok := m.Get("19999")
	assert.True(t, ok)
	assert.Equal(t, -19999, v)
}

// TestBufMapFilterShared grows many versions from one map in parallel (run
// with -race): one adds its keys to the table they share, the others keep
// theirs in their tries, adding them to the filter they share at once, until
// each moves into a table of its own; each still finds all its own keys and
// none of the others'.
func TestBufMapFilterShared(t *testing.T) {
	var base BufMap[int]
	for i := range 5000 {
		base = base.Set("base"+strconv.Itoa(i), i)
	}
	const workers = 4
	got := make([]BufMap[int], workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			m := base
			for i := range 3000 {
				m = m.Set(strconv.Itoa(w)+"/"+strconv.Itoa(i), i)
			}
			got[w] = m
		})
	}
	wg.Wait()
	for w, m := range got {
		assert.Equal(t, 8000, m.Len())
		for i := range 3000 {
			v, ok := m.Get(strconv.Itoa(w) + "/" + strconv.Itoa(i))
			require.True(t, ok)
			require.Equal(t, i, v)
			_, ok = m.Get(strconv.Itoa((w+1)%workers) + "/" + strconv.Itoa(i))
			require.False(t, ok, "another version's key")
		}
		v, ok := m.Get("base42")
		require.True(t, ok)
		require.Equal(t, 42, v)
	}
}
