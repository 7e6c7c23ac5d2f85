package persist

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
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
		if m.nlog == bufLen && m.log.table != nil && next.log.table.claimed != m.log.table.claimed {
			found = true
			break
		}
		m = next
	}
	require.True(t, found, "no write moved the map into a table of its own")
	tables := map[*tableClaim]bool{}
	for i := range 20 {
		f := m.Set("fork"+strconv.Itoa(i), i)
		tables[f.log.table.claimed] = true
		require.Equal(t, m.Len()+1, f.Len())
		v, ok := f.Get("fork" + strconv.Itoa(i))
		require.True(t, ok)
		require.Equal(t, i, v)
		_, ok = m.Get("fork" + strconv.Itoa(i))
		require.False(t, ok)
	}
	assert.Len(t, tables, 1, "forks of one version each moved it into a new table")
}

// withLimits returns an empty BufMap that flushes its log by lim rather
// than defaultLimits, as do the versions made from it: with a low
// rebuildMin, maps of a few dozen keys move their tries into new tables
// often, which the model tests would otherwise never see.
func withLimits[V any](lim limits) BufMap[V] {
	return BufMap[V]{log: &mapLog[V]{lim: &lim}}
}

// lowRebuild is defaultLimits with tries moved into new tables as soon as
// they hold 3 keys (and a quarter of the table).
var lowRebuild = limits{rebuildMin: 2, maxTableKey: maxTableKey}

// longKeys is lowRebuild with keys of two bytes too long for a table entry.
var longKeys = limits{rebuildMin: 2, maxTableKey: 1}

// TestBufMapProgramsRebuild runs runBufProgram's programs of hundreds to
// thousands of operations with tries moved into new tables as soon as they
// hold 3 keys and a quarter of the table: logs flush, forks lose the
// table's claim, keep tombstones and keys set again in their tries, and
// move, which TestBufMapModel's and FuzzBufMap's short programs, jumping
// back every few writes, never reach (they never fill a log).
func TestBufMapProgramsRebuild(t *testing.T) { rapid.Check(t, checkBufProgram(lowRebuild)) }

// TestBufMapPrograms is TestBufMapProgramsRebuild at the real threshold.
func TestBufMapPrograms(t *testing.T) { rapid.Check(t, checkBufProgram(defaultLimits)) }

// checkBufProgram returns a rapid check running runBufProgram's programs
// on maps with the limits lim.
func checkBufProgram(lim limits) func(*rapid.T) {
	return func(t *rapid.T) {
		prog := rapid.SliceOfN(rapid.Byte(), 200, 4000).Draw(t, "prog")
		hashBits := rapid.SampledFrom([]uint8{0, 2, 8, 40, 64}).Draw(t, "hashBits")
		runBufProgram(t, prog, hashBits, lim)
	}
}

// FuzzBufMapRebuild runs runBufProgram with a trie moved into a new table
// as soon as it holds 3 keys and a quarter of the table.
func FuzzBufMapRebuild(f *testing.F) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 1))
		prog := make([]byte, 600)
		for i := range prog {
			prog[i] = byte(r.Uint32())
		}
		f.Add(prog, uint8(seed*20))
	}
	f.Fuzz(func(t *testing.T, prog []byte, hashBits uint8) { runBufProgram(t, prog, hashBits, lowRebuild) })
}

// TestBufMapLongKeys runs runBufProgram's programs with keys of two bytes
// too long for a table entry (maxTableKey lowered to 1) and tries moved
// into new tables as soon as they hold 3 keys: the long keys stay in the
// tries through every flush and rebuild, beside the short ones in tables.
func TestBufMapLongKeys(t *testing.T) {
	rapid.Check(t, checkBufProgram(longKeys))
	// A map of only long keys keeps them all in its trie, and its table
	// (made for the short keys it never gets) empty.
	m := withLimits[int](longKeys)
	for i := range 1000 {
		m = m.Set(strconv.Itoa(100+i), i)
	}
	require.Equal(t, 1000-int(m.nlog), m.trie.Len())
	require.Zero(t, m.log.nt)
	for i := range 1000 {
		v, ok := m.Get(strconv.Itoa(100 + i))
		require.True(t, ok)
		require.Equal(t, i, v)
	}
}

// runBufProgram runs prog, a program of BufMap operations on up to 64 keys
// whose hashes keep their hashBits%65 low bits, against a Go map. Two
// bytes an operation: an opcode, then a key or a version. Mostly writes to
// the latest version, so that logs fill and flush; some writes to a fork
// that is dropped (a refused fold), which claims the log's next slot or
// the table's next entry; jumps back to a version kept every tenth
// operation. Every kept version is checked (Len, All, Get) at the end.
func runBufProgram(t fataler, prog []byte, hashBits uint8, lim limits) {
	mask := uint64(1)<<(hashBits%65) - 1
	if hashBits%65 == 64 {
		mask = ^uint64(0)
	}
	hash := func(k string) uint64 { return hashString(k) & mask }
	var snaps []mapSnap[BufMap[int]]
	m, model := withLimits[int](lim), map[string]int{}
	for pc := 0; pc+1 < len(prog); pc += 2 {
		k := strconv.Itoa(int(prog[pc+1] % 64))
		switch op := prog[pc] % 16; {
		case op < 9:
			m = m.set(hash(k), k, pc)
			model = maps.Clone(model)
			model[k] = pc
		case op < 12:
			m = m.delete(hash(k), k)
			model = maps.Clone(model)
			delete(model, k)
		case op < 13:
			got, ok := m.get(hash(k), k)
			want, wantOK := model[k]
			if ok != wantOK || got != want {
				t.Fatalf("op %d: Get(%q) = %d, %v, want %d, %v", pc/2, k, got, ok, want, wantOK)
			}
		case op < 15:
			f := m.set(hash(k), k, -1)
			if v, ok := f.get(hash(k), k); !ok || v != -1 {
				t.Fatalf("op %d: a dropped fork reads %q = %d, %v", pc/2, k, v, ok)
			}
			if op == 14 {
				f = f.delete(hash(k), k).set(hash("x"), "x", -2)
				if _, ok := f.get(hash(k), k); ok {
					t.Fatalf("op %d: a dropped fork still holds %q", pc/2, k)
				}
			}
		default:
			if len(snaps) > 0 {
				sn := snaps[int(prog[pc+1])%len(snaps)]
				m, model = sn.m, sn.model
			}
		}
		if pc%20 == 0 {
			snaps = append(snaps, mapSnap[BufMap[int]]{m, model})
		}
	}
	snaps = append(snaps, mapSnap[BufMap[int]]{m, model})
	checkSnaps(t, snaps, hash)
	for i, sn := range snaps { // and the keys they do not hold
		for j := range 65 {
			k := strconv.Itoa(j)
			got, ok := sn.m.get(hash(k), k)
			want, wantOK := sn.model[k]
			if ok != wantOK || got != want {
				t.Fatalf("version %d: Get(%q) = %d, %v, want %d, %v", i, k, got, ok, want, wantOK)
			}
		}
	}
}

// TestBufMapConcurrentTable forks versions of one map in several
// goroutines at once: every fork of base flushes base's full log (racing
// on its record and on the table's claim), the winner's lineage adds keys
// to the shared table (growing its first chunk, appending chunks to its
// directory, reindexing) while the others' lineages, and readers of base
// and of versions handed over from other goroutines, probe the same index
// and chunks. Run with -race; each lineage and each handed-over version is
// checked against what it was given.
func TestBufMapConcurrentTable(t *testing.T) {
	for _, low := range []bool{false, true} {
		t.Run(fmt.Sprint("lowRebuild=", low), func(t *testing.T) {
			base := withLimits[int](defaultLimits)
			if low {
				base = withLimits[int](lowRebuild)
			}
			for i := range 3 * bufLen {
				base = base.Set("b"+strconv.Itoa(i), i)
			}
			require.Equal(t, int32(bufLen), base.nlog, "base's log is full")
			type handed struct {
				m BufMap[int]
				w int // writer
				n int // its keys
			}
			const writers, keys = 4, 3000
			ch := make(chan handed, writers*keys)
			var wg sync.WaitGroup
			errs := make(chan string, 16*writers)
			fail := func(format string, args ...any) {
				select {
				case errs <- fmt.Sprintf(format, args...):
				default:
				}
			}
			check := func(h handed) {
				if h.m.Len() != 3*bufLen+h.n {
					fail("writer %d at %d: Len %d", h.w, h.n, h.m.Len())
				}
				for _, i := range []int{0, h.n / 2, h.n - 1} {
					if v, ok := h.m.Get(fmt.Sprint("w", h.w, ".", i)); !ok || v != i {
						fail("writer %d at %d: Get(%d) = %d, %v", h.w, h.n, i, v, ok)
					}
				}
				if _, ok := h.m.Get(fmt.Sprint("w", h.w, ".", h.n)); ok {
					fail("writer %d at %d sees a later key", h.w, h.n)
				}
				if v, ok := h.m.Get("b7"); !ok || v != 7 {
					fail("writer %d at %d: Get(b7) = %d, %v", h.w, h.n, v, ok)
				}
			}
			for w := range writers {
				wg.Go(func() {
					m := base
					for i := range keys {
						m = m.Set(fmt.Sprint("w", w, ".", i), i)
						if i%3 == 0 {
							m = m.Delete(fmt.Sprint("b", i%(3*bufLen))).Set(fmt.Sprint("b", i%(3*bufLen)), i%(3*bufLen))
						}
						if i%50 == 49 {
							ch <- handed{m, w, i + 1}
						}
					}
					check(handed{m, w, keys})
					if got := len(maps.Collect(m.All())); got != 3*bufLen+keys {
						fail("writer %d: All holds %d keys", w, got)
					}
				})
			}
			for range 2 {
				wg.Go(func() {
					for range 200 {
						for i := range 3 * bufLen {
							if v, ok := base.Get("b" + strconv.Itoa(i)); !ok || v != i {
								fail("base: Get(b%d) = %d, %v", i, v, ok)
							}
						}
						if _, ok := base.Get("w0.0"); ok {
							fail("base sees a writer's key")
						}
					}
				})
			}
			// Forks of versions handed over by the writers, while the
			// writers go on adding to the tables those versions share.
			wg.Go(func() {
				for range writers * keys / 50 {
					h := <-ch
					check(h)
					f := h.m.Set("fork", -1)
					for j := range bufLen + 1 {
						f = f.Set(fmt.Sprint("f", j), j)
					}
					if v, ok := f.Get("fork"); !ok || v != -1 || f.Len() != h.m.Len()+bufLen+2 {
						fail("fork of writer %d at %d: Get(fork) = %d, %v; Len %d", h.w, h.n, v, ok, f.Len())
					}
					check(h)
				}
			})
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
		})
	}
}

// FuzzBufMapLongKeys is FuzzBufMapRebuild with the keys of two bytes too
// long for a table entry (maxTableKey lowered to 1): they stay in the tries
// through every flush and rebuild.
func FuzzBufMapLongKeys(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(randomBytes(seed, 3, 600), uint8(seed*20))
	}
	f.Fuzz(func(t *testing.T, prog []byte, hashBits uint8) { runBufProgram(t, prog, hashBits, longKeys) })
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
