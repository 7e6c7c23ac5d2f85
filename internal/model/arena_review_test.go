package model

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cloned is a string a fold copied into its stream's arena, and the line
// of versions that copied it.
type cloned struct {
	s    string
	line int
}

// foldLines folds lines lines of n folds each from v, one fold of each in
// turn (as concurrent streams started from one view interleave), each fold
// making its view with next and copying one 60-byte string into its
// state's arena; it returns the copies in the order they were made.
func foldLines(v *View, lines, n int, next func(*View) *View) []cloned {
	cur := make([]*View, lines)
	for l := range cur {
		cur[l] = v
	}
	var out []cloned
	for i := range n {
		for l := range cur {
			nv := next(cur[l])
			st := nv.Data()
			st.Step++
			out = append(out, cloned{st.Strings().Clone(fmt.Sprintf("%d:%057d", l, i)), l})
			cur[l] = nv
		}
	}
	return out
}

// follows reports whether b starts where a ends in memory: a clone made
// right after another in the same chunk.
func follows(a, b string) bool {
	return unsafe.Add(unsafe.Pointer(unsafe.StringData(a)), len(a)) == unsafe.Pointer(unsafe.StringData(b))
}

// TestArenaOneStreamFillsChunks folds one stream far past its view slabs:
// the arena it copies strings into goes on in the same chunk when its
// slabs are replaced (every slabSize folds), so that a new chunk is
// started only when one is full, not once per slab (nor, chunks growing
// from small to full-sized, a small one once per slab).
func TestArenaOneStreamFillsChunks(t *testing.T) {
	t.Parallel()
	const n = 3000
	out := foldLines(NewView(State{}), 1, n, (*View).Next)
	breaks := 0
	for i := 1; i < len(out); i++ {
		require.Equal(t, fmt.Sprintf("%d:%057d", 0, i), out[i].s)
		if !follows(out[i-1].s, out[i].s) {
			breaks++
		}
	}
	// Full chunks of 8 KB hold 136 clones; the first chunks, from 128
	// bytes up, take eight breaks more.
	perChunk := 8000 / 60
	assert.LessOrEqual(t, breaks, n/perChunk+8,
		"%d clones of 60 bytes started %d chunks: a chunk was left part-filled (once every %d folds: every slab?)",
		n, breaks+1, n/max(breaks, 1))
}

// TestArenaForksPart folds several lines of versions from one view, their
// folds interleaved, for each way a fold makes its view: from the view
// slab (Next, as Fold does), one at a time from a detached view (Next of
// a Detached view, as Fold from a Builder's view does) and by DetachedInto
// (as a Builder does). While the lines share the slabs of the view they
// started from they fill one chunk together, but once each has slabs of
// its own (after at most slabSize folds, then the chunk they split at), no
// line copies a string right after another line's, that is into a chunk
// that line fills, so that keeping one line does not keep alive the
// strings of the others.
func TestArenaForksPart(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		base func() *View
		next func(*View) *View
	}{
		{"view slab", func() *View { return NewView(State{}).Next() }, (*View).Next},
		{"detached", func() *View { return NewView(State{}).Next().Detached() }, (*View).Next},
		{"DetachedInto", func() *View { return NewView(State{}).Next().Detached() },
			func(v *View) *View { return v.DetachedInto(nil) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			const lines, n = 4, 1000
			out := foldLines(c.base(), lines, n, c.next)
			sorted := slices.Clone(out)
			slices.SortFunc(sorted, func(a, b cloned) int {
				pa, pb := uintptr(unsafe.Pointer(unsafe.StringData(a.s))), uintptr(unsafe.Pointer(unsafe.StringData(b.s)))
				switch {
				case pa < pb:
					return -1
				case pa > pb:
					return 1
				}
				return 0
			})
			// The folds made after the lines parted: past the shared view
			// slab and the chunk after it.
			late := map[string]bool{}
			for _, c := range out[lines*(slabSize+2*8192/60):] {
				late[c.s] = true
			}
			crossings := 0
			for i := 1; i < len(sorted); i++ {
				a, b := sorted[i-1], sorted[i]
				if a.line != b.line && follows(a.s, b.s) && late[b.s] {
					crossings++
				}
			}
			assert.Zero(t, crossings, "strings of one line of versions copied right after another's, %d times, long after they parted", crossings)
			for i, c := range out {
				require.Equal(t, fmt.Sprintf("%d:%057d", c.line, i/lines), c.s)
			}
		})
	}
}
