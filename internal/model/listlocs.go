package model

import (
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/agview/agview/internal/persist"
)

// locChunkLen is the number of locations a full chunk of a locVector holds.
const locChunkLen = 32

// locVector is where the messages appended to the list live, in list
// order: a persistent vector of packedLocs, kept in chunks of 32 so that a
// run of messages that follow one another in one invocation (a subagent
// answering at length: the list's order and the invocation's are the
// same) costs nothing per message. A full chunk is a run (inv, and pos
// going up one by one from pos0: no memory of its own beyond its slot in
// the chunk vector) or an array of 32 locations of its own; the last
// chunk, which appends fill, is an array with a claim counter, shared by
// successive versions as a Vector's tail is (the first successor to claim
// the next slot writes it in place). A chunk becomes a run, or an exact
// array, once it is full.
//
// Costs: Len is O(1); At and Set are O(log₃₂ n), as a Vector's; Append is
// O(1) amortised: a slot claimed in place, or the last chunk copied when
// another version has claimed it, and once every 32 appends the full chunk
// compacted and a new one started. The zero value is empty.
type locVector struct {
	chunks persist.Vector[locChunk]
	n      int32 // the number of locations (less than 2³¹, as packedLoc's)
}

// locChunk is one chunk of a locVector: growing (the last chunk, an array
// being filled), full (32 locations of its own), or, with both nil, a run
// of 32 locations in node inv from position pos0 on.
type locChunk struct {
	inv, pos0 int32
	growing   *locGrowing
	full      *[locChunkLen]packedLoc
}

// locGrowing is the array of a growing chunk: slots below used are
// claimed (some version's locations, never written again), and the slots
// from used on are written only by the version that advanced used over
// them with a compare-and-swap.
type locGrowing struct {
	used atomic.Int32
	locs [locChunkLen]packedLoc
}

// Len returns the number of locations.
func (v locVector) Len() int { return int(v.n) }

// chunkLen returns the number of locations of chunk c that v sees.
func (v locVector) chunkLen(c int) int {
	return min(locChunkLen, int(v.n)-c*locChunkLen)
}

// at returns location k of chunk c.
func (c locChunk) at(k int) packedLoc {
	switch {
	case c.growing != nil:
		return c.growing.locs[k]
	case c.full != nil:
		return c.full[k]
	}
	return packedLoc{inv: c.inv, pos: c.pos0 + int32(k)}
}

// At returns location i. It panics if i is out of range.
func (v locVector) At(i int) packedLoc {
	if uint(i) >= uint(v.n) {
		panic(fmt.Sprintf("model: list location %d out of range with %d", i, v.n))
	}
	return v.chunks.At(i / locChunkLen).at(i % locChunkLen)
}

// Set returns v with location i set to l. It panics if i is out of range.
func (v locVector) Set(i int, l packedLoc) locVector {
	if uint(i) >= uint(v.n) {
		panic(fmt.Sprintf("model: list location %d out of range with %d", i, v.n))
	}
	c, k := i/locChunkLen, i%locChunkLen
	old := v.chunks.At(c)
	if old.at(k) == l {
		return v
	}
	var chunk locChunk
	if old.growing != nil {
		g := new(locGrowing)
		n := v.chunkLen(c)
		copy(g.locs[:n], old.growing.locs[:n])
		g.locs[k] = l
		g.used.Store(int32(n))
		chunk.growing = g
	} else {
		full := new([locChunkLen]packedLoc)
		for j := range full {
			full[j] = old.at(j)
		}
		full[k] = l
		chunk.full = full
	}
	v.chunks = v.chunks.Set(c, chunk)
	return v
}

// Append returns v with l added after its last location.
func (v locVector) Append(l packedLoc) locVector {
	c, k := int(v.n)/locChunkLen, int(v.n)%locChunkLen
	if k == 0 {
		// The last chunk is full (or there is none): compact it, and start
		// a new one.
		if c > 0 {
			v.chunks = v.chunks.Set(c-1, compact(v.chunks.At(c-1)))
		}
		g := new(locGrowing)
		g.locs[0] = l
		g.used.Store(1)
		v.chunks = v.chunks.Append(locChunk{growing: g})
		v.n++
		return v
	}
	last := v.chunks.At(c)
	if last.growing.used.CompareAndSwap(int32(k), int32(k+1)) {
		// Slot k is ours alone: no version can see it yet.
		last.growing.locs[k] = l
		v.n++
		return v
	}
	g := new(locGrowing)
	copy(g.locs[:k], last.growing.locs[:k])
	g.locs[k] = l
	g.used.Store(int32(k + 1))
	v.chunks = v.chunks.Set(c, locChunk{growing: g})
	v.n++
	return v
}

// compact returns the full chunk c as a run when its locations are one,
// and as an exact array of its own otherwise.
func compact(c locChunk) locChunk {
	if c.growing == nil {
		return c
	}
	locs := &c.growing.locs
	first := locs[0]
	run := true
	for k, l := range locs {
		if l != (packedLoc{inv: first.inv, pos: first.pos + int32(k)}) {
			run = false
			break
		}
	}
	if run {
		return locChunk{inv: first.inv, pos0: first.pos}
	}
	full := new([locChunkLen]packedLoc)
	*full = *locs
	return locChunk{full: full}
}

// All iterates the locations in order.
func (v locVector) All() iter.Seq[packedLoc] {
	return func(yield func(packedLoc) bool) {
		for c, chunk := range v.chunks.All() {
			for k := range v.chunkLen(c) {
				if !yield(chunk.at(k)) {
					return
				}
			}
		}
	}
}
