package persist

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBufMapForksOfOneVersionFlushOnce forks one version many times, as a
// stream whose events are refused after writing to the index does (each
// refused fold starts again from the same view), at the write after which
// the version's full log moves into its trie and the trie into a new
// table: the move is done once, not once per fork, so that n refused
// events cost O(n), not O(n) copies of the whole table each.
func TestBufMapForksOfOneVersionFlushOnce(t *testing.T) {
	var m BufMap[int]
	found := false
	for i := range 40_000 {
		// A dropped fork that writes twice: at a batch it flushes a log the
		// map no longer shares (the map lost the claim of the log's last
		// slot) and wins the table's claim.
		_ = m.Set("dropped"+strconv.Itoa(i), -1).Set("dropped2"+strconv.Itoa(i), -1)
		next := m.Set(strconv.Itoa(i), i)
		if m.nlog == bufLen && m.log.table != nil && next.log.table != m.log.table {
			found = true
			break
		}
		m = next
	}
	require.True(t, found, "no write moved the map into a table of its own")
	tables := map[*keyTable[int]]bool{}
	for i := range 20 {
		f := m.Set("fork"+strconv.Itoa(i), i)
		tables[f.log.table] = true
		require.Equal(t, m.Len()+1, f.Len())
		v, ok := f.Get("fork" + strconv.Itoa(i))
		require.True(t, ok)
		require.Equal(t, i, v)
		_, ok = m.Get("fork" + strconv.Itoa(i))
		require.False(t, ok)
	}
	assert.Len(t, tables, 1, "forks of one version each moved it into a new table")
}
