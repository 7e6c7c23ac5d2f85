package persist

import (
	"fmt"
	"maps"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestBufMapModel runs random Set/Delete/Get sequences on random older
// versions (so logs are shared, forked and flushed from anywhere) against a
// Go map model, with real and degenerate hashes, and checks every version at
// the end: old versions are unchanged by updates to old and new.
func TestBufMapModel(t *testing.T) {
	t.Parallel()
	// Mostly the latest version, as a stream does, so that logs fill.
	latest := func(t *rapid.T, _ int) bool { return rapid.IntRange(0, 3).Draw(t, "latest") > 0 }
	checkModel(t, latest, BufMap[int]{})
}

// TestBufMapGrow grows a map far past the log, overwriting and deleting on
// the way, and checks it against a Go map after every write and a kept
// version at the end.
func TestBufMapGrow(t *testing.T) {
	t.Parallel()
	var m BufMap[int]
	model := map[string]int{}
	var kept BufMap[int]
	for i := range 3000 {
		k := strconv.Itoa(i)
		m = m.Set(k, i)
		model[k] = i
		if i%7 == 0 {
			old := strconv.Itoa(i / 2)
			m = m.Set(old, -i)
			model[old] = -i
		}
		if i%11 == 0 {
			gone := strconv.Itoa(i / 3)
			m = m.Delete(gone)
			delete(model, gone)
		}
		require.Equal(t, len(model), m.Len(), "after %d", i)
		if i == 1000 {
			kept = m
		}
	}
	assert.Equal(t, model, maps.Collect(m.All()))
	for k, v := range model {
		got, ok := m.Get(k)
		require.True(t, ok, k)
		require.Equal(t, v, got, k)
	}
	got, ok := kept.Get("1000")
	assert.True(t, ok)
	assert.Equal(t, 1000, got)
	assert.False(t, kept.Has("2000"), "a kept version saw a later write")
}

// TestBufMapConcurrent forks one version from several goroutines: each
// fork's writes claim or copy the shared log, and none sees another's.
func TestBufMapConcurrent(t *testing.T) {
	t.Parallel()
	var base BufMap[int]
	for i := range 1010 { // a part-filled log shared by every worker
		base = base.Set(fmt.Sprint(i), i)
	}
	const workers = 8
	results := make([]BufMap[int], workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			m := base
			for i := range 300 {
				m = m.Set(fmt.Sprint(i), -w).Delete(fmt.Sprint(500 + i))
				if v, _ := base.Get(fmt.Sprint(i)); v != i {
					t.Errorf("base[%d] = %d during updates", i, v)
				}
			}
			results[w] = m
		})
	}
	wg.Wait()
	for w, m := range results {
		assert.Equal(t, 710, m.Len(), "worker %d", w)
		for i := range 300 {
			v, _ := m.Get(fmt.Sprint(i))
			require.Equal(t, -w, v, "worker %d key %d", w, i)
			require.False(t, m.Has(fmt.Sprint(500+i)), "worker %d kept a deleted key", w)
		}
	}
	assert.Equal(t, 1010, base.Len())
	for k, v := range base.All() {
		require.Equal(t, k, fmt.Sprint(v), "base changed")
	}
}
