package model

import (
	"slices"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// TestLocVectorModel runs random Append and Set sequences on random older
// versions against slices: runs of consecutive positions (which compact
// to runs) and scattered ones, long appends that fill and compact chunks,
// versions forked from one another that claim or copy the growing chunk.
// Every version must read back as its slice at the end: a later write to
// any version changes no other.
func TestLocVectorModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		versions := []locVector{{}}
		models := [][]packedLoc{nil}
		pick := func() int {
			if rapid.IntRange(0, 3).Draw(t, "latest") > 0 {
				return len(versions) - 1
			}
			return rapid.IntRange(0, len(versions)-1).Draw(t, "version")
		}
		loc := func() packedLoc {
			return packedLoc{inv: int32(rapid.IntRange(-1, 2).Draw(t, "inv")), pos: int32(rapid.IntRange(0, 40).Draw(t, "pos"))}
		}
		t.Repeat(map[string]func(*rapid.T){
			"Append": func(t *rapid.T) {
				i := pick()
				l := loc()
				versions = append(versions, versions[i].Append(l))
				models = append(models, append(slices.Clip(models[i]), l))
			},
			"AppendRun": func(t *rapid.T) {
				// A subagent answering at length: positions one after
				// another in one node, sometimes broken by one elsewhere.
				i := pick()
				v, m := versions[i], slices.Clip(models[i])
				start := loc()
				for k := range rapid.IntRange(1, 100).Draw(t, "n") {
					l := packedLoc{inv: start.inv, pos: start.pos + int32(k)}
					if rapid.IntRange(0, 40).Draw(t, "break") == 0 {
						l = loc()
					}
					v, m = v.Append(l), append(m, l)
				}
				versions, models = append(versions, v), append(models, m)
			},
			"Set": func(t *rapid.T) {
				i := pick()
				if len(models[i]) == 0 {
					t.Skip("empty")
				}
				j := rapid.IntRange(0, len(models[i])-1).Draw(t, "index")
				l := models[i][j]
				if rapid.Bool().Draw(t, "change") {
					l = loc()
				}
				m := slices.Clone(models[i])
				m[j] = l
				versions, models = append(versions, versions[i].Set(j, l)), append(models, m)
			},
			"": func(t *rapid.T) {
				i := pick()
				checkLocVector(t, versions[i], models[i])
			},
		})
		for i := range versions {
			checkLocVector(t, versions[i], models[i])
		}
	})
}

func checkLocVector(t interface{ Fatalf(string, ...any) }, v locVector, want []packedLoc) {
	if v.Len() != len(want) {
		t.Fatalf("Len %d, want %d", v.Len(), len(want))
	}
	for i, l := range want {
		if got := v.At(i); got != l {
			t.Fatalf("At(%d) = %v, want %v", i, got, l)
		}
	}
	if got := slices.Collect(v.All()); !slices.Equal(got, want) && len(want) > 0 {
		t.Fatalf("All = %v, want %v", got, want)
	}
}

// TestLocVectorRuns: a long run of consecutive positions in one node keeps
// no array per full chunk, only the growing one; a chunk broken by another
// node keeps an exact array of its own.
func TestLocVectorRuns(t *testing.T) {
	var v locVector
	for k := range 10 * locChunkLen {
		v = v.Append(packedLoc{inv: 3, pos: int32(k)})
	}
	v = v.Append(packedLoc{inv: 3, pos: 10 * locChunkLen})
	for c, chunk := range v.chunks.All() {
		last := c == v.chunks.Len()-1
		if last != (chunk.growing != nil) || chunk.full != nil {
			t.Fatalf("chunk %d of a run: growing %v, full %v", c, chunk.growing != nil, chunk.full != nil)
		}
	}
	v = v.Set(5, packedLoc{inv: 4, pos: 0})
	if c := v.chunks.At(0); c.full == nil || c.full[5] != (packedLoc{inv: 4, pos: 0}) || c.full[6] != (packedLoc{inv: 3, pos: 6}) {
		t.Fatalf("a run set elsewhere: %+v", c)
	}
	if v.chunks.At(1).full != nil {
		t.Fatal("a set into one chunk gave another an array")
	}
}

// TestLocVectorConcurrent forks one version from several goroutines: each
// fork's appends claim or copy the shared growing chunk, and none sees
// another's. Run under -race.
func TestLocVectorConcurrent(t *testing.T) {
	var base locVector
	for k := range 40 {
		base = base.Append(packedLoc{inv: 0, pos: int32(k)})
	}
	var wg sync.WaitGroup
	got := make([]locVector, 8)
	want := make([][]packedLoc, 8)
	for g := range got {
		wg.Go(func() {
			v, m := base, slices.Collect(base.All())
			for k := range 100 {
				l := packedLoc{inv: int32(g), pos: int32(k)}
				v, m = v.Append(l), append(m, l)
			}
			got[g], want[g] = v, m
		})
	}
	wg.Wait()
	for g := range got {
		checkLocVector(t, got[g], want[g])
	}
	checkLocVector(t, base, slices.Collect(base.All()))
}
