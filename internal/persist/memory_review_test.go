package persist

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBufMapSmallEntryChunks grows maps whose table entries are 16 bytes (a
// value of 4 bytes or less), whose full chunks hold 4096 entries where
// others hold 2048, past two full chunks, and forks versions kept inside
// the first and the second chunk: every version reads back as its model,
// and the table's full chunks are 4096 entries long.
func TestBufMapSmallEntryChunks(t *testing.T) {
	if strconv.IntSize != 64 {
		t.Skip("the entry sizes and chunk lengths pinned here are those of 64-bit platforms")
	}
	t.Run("uint32", func(t *testing.T) { checkSmallEntryChunks(t, func(i int) uint32 { return uint32(i) }) })
	t.Run("struct{}", func(t *testing.T) { checkSmallEntryChunks(t, func(int) struct{} { return struct{}{} }) })
}

func checkSmallEntryChunks[V comparable](t *testing.T, val func(int) V) {
	require.Equal(t, uintptr(16), TableEntrySize[V]())
	require.Equal(t, uint(12), chunkBits[V]())
	type snap struct {
		m     BufMap[V]
		model map[string]V
	}
	var snaps []snap
	m, model := BufMap[V]{}, map[string]V{}
	for i := range 10_000 {
		k := strconv.Itoa(i)
		m, model[k] = m.Set(k, val(i)), val(i)
		if i == 3000 || i == 6000 {
			snaps = append(snaps, snap{m, maps.Clone(model)})
		}
	}
	snaps = append(snaps, snap{m, model})
	for _, base := range snaps[:2] {
		// The fork loses the table's claim to m: its keys go to its trie,
		// and from there into a table of its own.
		f, fm := base.m, maps.Clone(base.model)
		for i := range 3000 {
			k := "f" + strconv.Itoa(i)
			f, fm[k] = f.Set(k, val(i)), val(i)
			if old := strconv.Itoa(i * 2); i%3 == 0 {
				f = f.Delete(old)
				delete(fm, old)
			}
		}
		snaps = append(snaps, snap{f, fm})
	}
	for i, sn := range snaps {
		require.Equal(t, len(sn.model), sn.m.Len(), "version %d: Len", i)
		require.Equal(t, sn.model, maps.Collect(sn.m.All()), "version %d: All", i)
		for k, want := range sn.model {
			got, ok := sn.m.Get(k)
			require.True(t, ok, "version %d: Get(%q)", i, k)
			require.Equal(t, want, got, "version %d: Get(%q)", i, k)
		}
	}
	tab := m.log.table
	require.Greater(t, m.log.nt, int32(2*4096), "the table fills two chunks")
	for c, chunk := range tab.dir[:len(tab.dir)-1] {
		require.Len(t, chunk, 4096, "chunk %d", c)
	}
}

// TestVectorLeafOwnsItsArray: a full tail pushed into the trie becomes a
// leaf of its own, an array of exactly 32 elements, not the tail's array,
// which would keep the tail (its claim counter, and for 8-byte elements the
// next size class) alive as the leaf.
func TestVectorLeafOwnsItsArray(t *testing.T) {
	var v Vector[int]
	for i := range 32 {
		v = v.Append(i)
	}
	w := v.Append(32)
	leaf := w.root.leaves[0]
	require.NotSame(t, &v.tail.vals, leaf, "the leaf is the full tail's array")
	require.Equal(t, v.tail.vals, *leaf)
	checkVector(t, w, append(slices.Collect(v.Values()), 32))
}

// FuzzVector interprets the input as a program of Vector operations run
// against slices: appends of one element or of up to 2047 (so that leaves,
// inner nodes right above them and nodes above those fill and the root
// grows), sets at any index, and jumps back to a kept version, which forks
// its tail and its trie. Every kept version is checked at the end.
func FuzzVector(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(randomBytes(seed, 2, 120))
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		type snap struct {
			v     Vector[int]
			model []int
		}
		var v Vector[int]
		var model []int
		snaps := []snap{{}}
		for pc := 0; pc+2 < len(prog); pc += 3 {
			arg := int(prog[pc+1])<<8 | int(prog[pc+2])
			switch prog[pc] % 4 {
			case 0:
				v, model = v.Append(arg), append(slices.Clip(model), arg)
			case 1:
				model = slices.Clip(model)
				for i := range arg % 2048 {
					v, model = v.Append(pc+i), append(model, pc+i)
				}
			case 2:
				if len(model) > 0 {
					i := arg % len(model)
					v, model = v.Set(i, -pc), slices.Clone(model)
					model[i] = -pc
				}
			default:
				sn := snaps[arg%len(snaps)]
				v, model = sn.v, sn.model
			}
			if pc%4 == 0 {
				snaps = append(snaps, snap{v, model})
			}
		}
		snaps = append(snaps, snap{v, model})
		for _, sn := range snaps {
			checkVector(t, sn.v, sn.model)
		}
	})
}

// FuzzBufMapLongKeys is FuzzBufMapRebuild with the keys of two bytes too
// long for a table entry (maxTableKey lowered to 1): they stay in the tries
// through every flush and rebuild.
func FuzzBufMapLongKeys(f *testing.F) {
	lowRebuildMin(f, 2)
	old := maxTableKey
	maxTableKey = 1
	f.Cleanup(func() { maxTableKey = old })
	for seed := range uint64(4) {
		f.Add(randomBytes(seed, 3, 600), uint8(seed*20))
	}
	f.Fuzz(func(t *testing.T, prog []byte, hashBits uint8) { runBufProgram(t, prog, hashBits) })
}

// randomBytes returns n pseudo-random bytes of the PCG stream (seed,
// stream): a seed program for a fuzz target.
func randomBytes(seed, stream uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, stream))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
