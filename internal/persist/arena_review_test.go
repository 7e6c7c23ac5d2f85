package persist

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chunkOf returns the chunk of a that s was cloned into, or nil when s is
// in none of the chunks listed.
func chunkOf(s string, chunks []*arenaChunk) *arenaChunk {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	for _, c := range chunks {
		lo := uintptr(unsafe.Pointer(&c.b[0]))
		if p >= lo && p < lo+uintptr(len(c.b)) {
			return c
		}
	}
	return nil
}

// TestArenaSplit splits two arenas from one: both go on filling its
// current chunk, back to back with what was cloned before, and once it is
// full each fills chunks of its own, which no clone of the other lands
// in. Splitting from nil, or from an arena that has cloned nothing, leaves
// an arena that starts a chunk of its own.
func TestArenaSplit(t *testing.T) {
	t.Parallel()
	var base Arena
	first := base.Clone("base")
	var a, b Arena
	a.Split(&base)
	b.Split(&base)
	sa, sb := a.Clone("a0"), b.Clone("b0")
	shared := base.cur.Load()
	require.Equal(t, []*arenaChunk{shared, shared, shared}, []*arenaChunk{
		chunkOf(first, []*arenaChunk{shared}), chunkOf(sa, []*arenaChunk{shared}), chunkOf(sb, []*arenaChunk{shared})},
		"split arenas go on in the chunk they split at")
	assert.Equal(t, unsafe.Add(unsafe.Pointer(unsafe.StringData(first)), 4), unsafe.Pointer(unsafe.StringData(sa)),
		"the split arena's first clone follows the last one before the split")

	var fromA, fromB []string
	for i := range 2 * arenaChunkSize / 64 {
		fromA = append(fromA, a.Clone(fmt.Sprintf("a%063d", i)))
		fromB = append(fromB, b.Clone(fmt.Sprintf("b%063d", i)))
	}
	ca, cb := a.cur.Load(), b.cur.Load()
	require.NotSame(t, shared, ca)
	require.NotSame(t, shared, cb)
	require.NotSame(t, ca, cb, "the split arenas went on in one chunk")
	for i := range fromA {
		require.Equal(t, fmt.Sprintf("a%063d", i), fromA[i])
		require.Equal(t, fmt.Sprintf("b%063d", i), fromB[i])
		require.Nil(t, chunkOf(fromA[i], []*arenaChunk{cb}), "a's clone %d is in b's chunk", i)
		require.Nil(t, chunkOf(fromB[i], []*arenaChunk{ca}), "b's clone %d is in a's chunk", i)
	}
	assert.Same(t, shared, base.cur.Load(), "splitting and cloning into the splits leaves the arena split from as it was")

	var none, fresh, c Arena
	c.Split(nil)
	fresh.Split(&none)
	assert.Nil(t, c.cur.Load())
	assert.Nil(t, fresh.cur.Load())
	assert.Equal(t, "x", fresh.Clone("x"))
	assert.Nil(t, none.cur.Load(), "an arena split from another does not fill it")
}

// TestArenaSplitConcurrent clones into arenas split from one, and into the
// one they were split from, in goroutines at once, across chunk ends:
// every clone reads back what it was given. Run with -race.
func TestArenaSplitConcurrent(t *testing.T) {
	t.Parallel()
	var base Arena
	for base.cur.Load() == nil || len(base.cur.Load().b) < arenaChunkSize || base.cur.Load().used.Load() < arenaChunkSize-100 {
		base.Clone(strings.Repeat("p", 100)) // a full-sized shared chunk, nearly full
	}
	const workers, each = 4, 3000
	arenas := make([]*Arena, workers)
	for w := range arenas {
		arenas[w] = new(Arena)
		if w > 0 {
			arenas[w].Split(&base)
		} else {
			arenas[w] = &base
		}
	}
	got := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				got[w] = append(got[w], arenas[w].Clone(fmt.Sprintf("w%d-%d-%s", w, i, strings.Repeat("z", i%100))))
			}
		})
	}
	wg.Wait()
	for w := range workers {
		for i, s := range got[w] {
			require.Equal(t, fmt.Sprintf("w%d-%d-%s", w, i, strings.Repeat("z", i%100)), s)
		}
	}
}
