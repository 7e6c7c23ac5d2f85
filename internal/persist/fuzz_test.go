package persist

import (
	"maps"
	"strconv"
	"testing"
)

// FuzzMap interprets the input as a program of Map operations with a
// deliberately weak hash (so collisions and deep paths are common), run
// against a Go map; every tenth version is checked again at the end.
func FuzzMap(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 1, 0, 3, 2, 0}, uint8(3))
	f.Add([]byte{0, 1, 0, 1, 0, 2, 1, 2, 1, 1}, uint8(0))
	f.Add([]byte{0, 5, 0, 6, 0, 7, 3, 0, 1, 6}, uint8(64))
	f.Fuzz(func(t *testing.T, prog []byte, hashBits uint8) { runMapProgram(t, Map[int]{}, prog, hashBits) })
}

// runMapProgram runs prog, a program of map operations, from empty, with
// the hash of a key masked to its hashBits%65 low bits (all of them at
// 64), against a Go map; every tenth version is checked again at the end.
func runMapProgram[M hashedMap[M]](t *testing.T, empty M, prog []byte, hashBits uint8) {
	mask := uint64(1)<<(hashBits%65) - 1
	if hashBits%65 == 64 {
		mask = ^uint64(0)
	}
	hash := func(k string) uint64 { return hashString(k) & mask }
	m := empty
	model := map[string]int{}
	var snaps []mapSnap[M]
	for pc := 0; pc+1 < len(prog); pc += 2 {
		op, k := prog[pc]%4, strconv.Itoa(int(prog[pc+1]%40))
		switch op {
		case 0:
			m = m.set(hash(k), k, pc)
			model = maps.Clone(model)
			model[k] = pc
		case 1:
			m = m.delete(hash(k), k)
			model = maps.Clone(model)
			delete(model, k)
		case 2:
			got, ok := m.get(hash(k), k)
			want, wantOK := model[k]
			if ok != wantOK || got != want {
				t.Fatalf("Get(%q) = %d, %v, want %d, %v", k, got, ok, want, wantOK)
			}
		default:
			if len(snaps) > 0 {
				sn := snaps[int(prog[pc+1])%len(snaps)]
				m, model = sn.m, sn.model
			}
		}
		if pc%20 == 0 {
			snaps = append(snaps, mapSnap[M]{m, model})
		}
	}
	snaps = append(snaps, mapSnap[M]{m, model})
	checkSnaps(t, snaps, hash)
}

// mapSnap is a version of a map kept by a program, and its model.
type mapSnap[M any] struct {
	m     M
	model map[string]int
}

// fataler is what the program runners need of a *testing.T or a *rapid.T.
type fataler interface {
	Fatalf(format string, args ...any)
}

// checkSnaps checks the Len, All and Get of every key of each kept version
// against its model; hash is the programs' hash.
func checkSnaps[M hashedMap[M]](t fataler, snaps []mapSnap[M], hash func(string) uint64) {
	for i, sn := range snaps {
		if sn.m.Len() != len(sn.model) {
			t.Fatalf("version %d: Len() = %d, want %d", i, sn.m.Len(), len(sn.model))
		}
		if got := maps.Collect(sn.m.All()); !maps.Equal(got, sn.model) {
			t.Fatalf("version %d: All() = %v, want %v", i, got, sn.model)
		}
		for k, v := range sn.model {
			if got, ok := sn.m.get(hash(k), k); !ok || got != v {
				t.Fatalf("version %d: Get(%q) = %d, %v, want %d", i, k, got, ok, v)
			}
		}
	}
}

// FuzzBufMap is FuzzMap for BufMap: jumping back to a kept version forks a
// shared log. Its programs jump back so often that a log seldom fills;
// FuzzBufMapRebuild runs programs that fill logs, move them into the table
// and the trie, and move tries into new tables.
func FuzzBufMap(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 1, 0, 3, 2, 0}, uint8(3))
	f.Add([]byte{0, 1, 0, 1, 0, 2, 1, 2, 1, 1}, uint8(0))
	f.Add([]byte{0, 5, 0, 6, 0, 7, 3, 0, 1, 6}, uint8(64))
	f.Fuzz(func(t *testing.T, prog []byte, hashBits uint8) { runMapProgram(t, BufMap[int]{}, prog, hashBits) })
}
