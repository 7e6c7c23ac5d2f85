package persist

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBufMapKeptVersionKeepsItsTable keeps an early version of a map (a
// view kept as the start of many streams) while a descendant grows the
// shared table in place to 200,000 keys, then drops the descendant: the
// early version keeps the chunks and index of its own time, not the
// descendant's. Before versions had headers of their own, it kept the whole
// table the descendant grew, about 13 MB here. Not parallel: it measures
// the heap.
func TestBufMapKeptVersionKeepsItsTable(t *testing.T) {
	var base BufMap[int]
	for i := range 3000 {
		base = base.Set("base"+strconv.Itoa(i), i)
	}
	require.NotNil(t, base.log.table)
	baseDir, baseSlots := len(base.log.table.dir), len(base.log.table.index.slots)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	grow := func() int {
		m := base
		for i := range 200_000 {
			m = m.Set("k"+strconv.Itoa(i), i)
		}
		require.Same(t, base.log.table.claimed, m.log.table.claimed, "the descendant grew the base's table in place")
		require.Greater(t, len(m.log.table.dir), baseDir+200_000>>chunkBits[int]()-1)
		return m.Len()
	}
	require.Equal(t, 203_000, grow())
	runtime.GC()
	runtime.ReadMemStats(&after)

	assert.Equal(t, baseDir, len(base.log.table.dir), "the base's directory is the one of its time")
	assert.Equal(t, baseSlots, len(base.log.table.index.slots), "the base's index is the one of its time")
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	assert.Less(t, kept, int64(1<<20), "the base keeps %d bytes of what its dropped descendant added", kept)
	for i := range 3000 {
		v, ok := base.Get("base" + strconv.Itoa(i))
		require.True(t, ok)
		require.Equal(t, i, v)
	}
	_, ok := base.Get("k0")
	assert.False(t, ok)
	runtime.KeepAlive(base)
}
