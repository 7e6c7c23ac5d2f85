package reducer

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWayIndex covers a set of the stream tables: ids are found in the way
// that holds them, free ways are used before any is evicted, and eviction
// goes round the ways.
func TestWayIndex(t *testing.T) {
	var x wayIndex
	assert.Equal(t, -1, x.find("", hashID("")), "an empty set holds nothing, not even the empty id")
	for i, id := range []string{"a", "b", "c", "d"} {
		require.Equal(t, i, x.claim(id, hashID(id)))
	}
	assert.Equal(t, 2, x.claim("c", hashID("c")), "claiming a held id gives its way")
	assert.Equal(t, 0, x.claim("e", hashID("e")), "a full set evicts way 0 first")
	assert.Equal(t, -1, x.find("a", hashID("a")))
	assert.Equal(t, 1, x.claim("f", hashID("f")), "then way 1")
	x.drop(2)
	assert.Equal(t, -1, x.find("c", hashID("c")))
	assert.Equal(t, 2, x.claim("g", hashID("g")), "a dropped way is free again")
	assert.Equal(t, 3, x.find("d", hashID("d")))

	// Ids whose hashes agree are told apart by the ids themselves.
	a, b := "run-a/12345678", "run-b/12345678"
	require.Equal(t, hashID(a), hashID(b), "hashID reads the last eight bytes and the length")
	var y wayIndex
	wa, wb := y.claim(a, hashID(a)), y.claim(b, hashID(b))
	assert.NotEqual(t, wa, wb)
	assert.Equal(t, wa, y.find(a, hashID(a)))
	assert.Equal(t, wb, y.find(b, hashID(b)))
}

// TestStreamTableKeepsCollidingStreams: as many streams as a set has ways,
// all hashed into one set, are all remembered — what a table with one slot
// per hash could not do, and why the table has ways.
func TestStreamTableKeepsCollidingStreams(t *testing.T) {
	var tb streamTable[stream]
	var ids []string
	for i := 0; len(ids) < streamWays; i++ {
		if id := fmt.Sprintf("m%06d", i); hashID(id)%streamSets == 3 {
			ids = append(ids, id)
		}
	}
	for i, id := range ids {
		tb.put(id, stream{id: id, pos: i})
	}
	for i, id := range ids {
		s := tb.find(id)
		require.NotNil(t, s, id)
		assert.Equal(t, i, s.pos, id)
	}
	tb.forget(ids[1])
	assert.Nil(t, tb.find(ids[1]))
	assert.NotNil(t, tb.find(ids[2]))
}
