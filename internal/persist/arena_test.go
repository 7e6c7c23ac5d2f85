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

// TestArenaChunkSizes checks that chunks double from the first size to the
// full one, and that a stream with a few short strings takes one small
// chunk.
func TestArenaChunkSizes(t *testing.T) {
	t.Parallel()
	var a Arena
	a.Clone("m-1")
	assert.Equal(t, arenaFirstChunk, len(a.cur.Load().b), "a few strings take the first, small chunk")
	var sizes []int
	for range 20_000 {
		a.Clone("0123456789")
		if n := len(a.cur.Load().b); len(sizes) == 0 || sizes[len(sizes)-1] != n {
			sizes = append(sizes, n)
		}
	}
	assert.Equal(t, []int{128, 256, 512, 1024, 2048, 4096, 8192}, sizes)
	assert.Zero(t, arenaChunkSize&(arenaChunkSize-1), "a full chunk is a power of two, a size class")
	assert.GreaterOrEqual(t, arenaFirstChunk, arenaMaxLen, "the longest string packed fits in the first chunk")
}

// TestArenaClone checks that a clone equals its source and shares no
// memory with it, that short strings are packed into one chunk back to
// back, and that the empty string, long strings and a nil arena clone on
// their own.
func TestArenaClone(t *testing.T) {
	t.Parallel()
	var a Arena
	src := []byte("m-1m-22m-333")
	ids := []string{
		a.Clone(unsafe.String(&src[0], 3)),
		a.Clone(unsafe.String(&src[3], 4)),
		a.Clone(unsafe.String(&src[7], 5)),
	}
	for i := range src {
		src[i] = 'x' // the clones do not see the source change
	}
	assert.Equal(t, []string{"m-1", "m-22", "m-333"}, ids)
	for i := 1; i < len(ids); i++ {
		prev := unsafe.StringData(ids[i-1])
		assert.Equal(t, unsafe.Add(unsafe.Pointer(prev), len(ids[i-1])), unsafe.Pointer(unsafe.StringData(ids[i])),
			"clone %d follows clone %d in the chunk", i, i-1)
	}

	assert.Equal(t, "", a.Clone(""))
	long := strings.Repeat("y", arenaMaxLen+1)
	c := a.Clone(long)
	assert.Equal(t, long, c)
	assert.NotSame(t, unsafe.StringData(long), unsafe.StringData(c))
	assert.Equal(t, int32(3+4+5), a.cur.Load().used.Load(), "a long string takes no room in the chunk")

	var none *Arena
	assert.Equal(t, "abc", none.Clone("abc"))
}

// TestArenaChunks fills several chunks and checks every clone, including
// those whose claim ran past a chunk's end and went to the next chunk.
func TestArenaChunks(t *testing.T) {
	t.Parallel()
	var a Arena
	var got, want []string
	for i := range 3 * arenaChunkSize / 50 {
		s := fmt.Sprintf("%0*d", 20+i%80, i)
		want = append(want, s)
		got = append(got, a.Clone(s))
	}
	require.Equal(t, want, got)
	assert.LessOrEqual(t, a.cur.Load().used.Load(), int32(arenaChunkSize), "the current chunk is not overrun")
}

// TestArenaConcurrent has goroutines clone into one arena at once (as
// forks of one view folding in parallel do) and checks that no clone was
// overwritten by another: run it with -race.
func TestArenaConcurrent(t *testing.T) {
	t.Parallel()
	var a Arena
	const workers, each = 4, 2000
	got := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				got[w] = append(got[w], a.Clone(fmt.Sprintf("w%d-%d-%s", w, i, strings.Repeat("z", i%90))))
			}
		})
	}
	wg.Wait()
	for w := range workers {
		for i, s := range got[w] {
			require.Equal(t, fmt.Sprintf("w%d-%d-%s", w, i, strings.Repeat("z", i%90)), s)
		}
	}
}

// TestTextCompactIn checks that a finished short text is copied into the
// arena, that its deltas are not while it streams, and that a long text is
// compacted as Compact does.
func TestTextCompactIn(t *testing.T) {
	t.Parallel()
	var a Arena
	first := Text{}.Append("hello")
	more := first.Append(" world")
	assert.Nil(t, a.cur.Load(), "deltas are not copied into the arena")
	done := more.CompactIn(&a)
	assert.Equal(t, "hello world", done.String())
	assert.Equal(t, int32(len("hello world")), a.cur.Load().used.Load(), "the finished text is in the arena")
	assert.Nil(t, done.buf(), "a compacted text is finished")
	assert.Equal(t, "hello", first.String(), "the earlier texts are unchanged")
	assert.Equal(t, "hello world", more.String())

	single := Text{}.Append("one delta").CompactIn(&a)
	assert.Equal(t, "one delta", single.String())
	assert.Equal(t, int32(len("hello world")+len("one delta")), a.cur.Load().used.Load())

	long := Text{}.Append(strings.Repeat("x", arenaMaxLen)).Append("y")
	c := long.CompactIn(&a)
	assert.Equal(t, long.String(), c.String())
	assert.Nil(t, c.buf(), "a long text is finished too")
	assert.Equal(t, int32(len("hello world")+len("one delta")), a.cur.Load().used.Load(), "a long text is not copied into the arena")

	assert.Equal(t, "hello world", more.CompactIn(nil).String())
	assert.True(t, Text{}.CompactIn(&a).IsEmpty())
}

// sink keeps the benchmarks' clones alive, as a view keeps its ids.
var sink []string

// BenchmarkArenaClone compares cloning a short id into an arena with
// strings.Clone.
func BenchmarkArenaClone(b *testing.B) {
	sink = make([]string, 1024)
	ids := make([]string, 1024)
	for i := range ids {
		ids[i] = fmt.Sprintf("m-%d", i*7919)
	}
	b.Run("arena", func(b *testing.B) {
		var a Arena
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			sink[i%len(sink)] = a.Clone(ids[i%len(ids)])
		}
	})
	b.Run("strings.Clone", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			sink[i%len(sink)] = strings.Clone(ids[i%len(ids)])
		}
	})
}
