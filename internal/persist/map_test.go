package persist

import (
	"fmt"
	"iter"
	"maps"
	"strconv"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// checkMap asserts that m holds exactly want, through every accessor.
func checkMap[V any](t require.TestingT, m Map[V], want map[string]V) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	require.Equal(t, len(want), m.Len(), "Len")
	got := make(map[string]V, m.Len())
	for k, v := range m.All() {
		_, dup := got[k]
		require.False(t, dup, "All yielded key %q twice", k)
		got[k] = v
	}
	if len(want) == 0 {
		assert.Empty(t, got, "All of an empty map")
	} else {
		assert.Equal(t, want, got, "All")
	}
	gets := make(map[string]V, len(want))
	for k := range want {
		if g, ok := m.Get(k); ok {
			gets[k] = g
		}
	}
	if len(want) > 0 {
		assert.Equal(t, want, gets, "Get of every key")
	}
	_, ok := m.Get("\x00absent")
	assert.False(t, ok, "Get of an absent key")
	for k, v := range want {
		key, got, ok := m.Lookup(k)
		require.True(t, ok, "Lookup(%q)", k)
		assert.Equal(t, k, key, "Lookup(%q) key", k)
		assert.Equal(t, v, got, "Lookup(%q) value", k)
	}
	_, _, ok = m.Lookup("\x00absent")
	assert.False(t, ok, "Lookup of an absent key")
	assert.True(t, m.Same(m), "a map is the same as itself")
}

// TestMapSame checks that Same tells versions apart.
func TestMapSame(t *testing.T) {
	var m Map[int]
	a := m.Set("a", 1)
	assert.True(t, m.Same(Map[int]{}), "empty maps")
	assert.False(t, a.Same(m))
	b := a.Set("a", 1)
	assert.False(t, a.Same(b), "a new version, even with equal contents")
	c := a
	assert.True(t, a.Same(c), "copies of one version")
	assert.False(t, a.Same(a.Delete("a")))

	// Refs: unchanged keys keep theirs across versions.
	d := b.Set("d", 4)
	assert.Equal(t, b.Ref("a"), d.Ref("a"), "a key another Set left alone")
	assert.NotEqual(t, a.Ref("a"), b.Ref("a"), "a key set again")
	assert.Equal(t, Ref{}, d.Ref("zz"), "no entry")
	assert.NotEqual(t, Ref{}, d.Ref("d"))
	assert.Equal(t, Ref{}, d.Delete("d").Ref("d"))
}

func TestMapBasics(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 31, 33, 1000, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			var m Map[int]
			want := map[string]int{}
			for i := range n {
				k := fmt.Sprintf("k%d", i)
				m = m.Set(k, i)
				want[k] = i
			}
			checkMap(t, m, want)
			// Overwrite every third key, delete every fifth.
			m2, want2 := m, maps.Clone(want)
			for i := 0; i < n; i += 3 {
				k := fmt.Sprintf("k%d", i)
				m2 = m2.Set(k, -i)
				want2[k] = -i
			}
			for i := 0; i < n; i += 5 {
				k := fmt.Sprintf("k%d", i)
				m2 = m2.Delete(k)
				delete(want2, k)
				assert.False(t, m2.Has(k), "Has(%q) after Delete", k)
			}
			checkMap(t, m2, want2)
			checkMap(t, m, want) // m untouched
			// Delete everything.
			for k := range want2 {
				m2 = m2.Delete(k)
			}
			checkMap(t, m2, map[string]int{})
			assert.Nil(t, m2.root, "an emptied map drops its root")
		})
	}
}

func TestMapZeroValue(t *testing.T) {
	t.Parallel()
	var m Map[string]
	checkMap(t, m, nil)
	assert.Equal(t, m, m.Delete("x"), "Delete on an empty map")
	m1 := m.Set("", "empty key")
	checkMap(t, m1, map[string]string{"": "empty key"})
	checkMap(t, m, nil)
}

func TestMapDeleteAbsentReturnsReceiver(t *testing.T) {
	t.Parallel()
	m := Map[int]{}.Set("a", 1).Set("b", 2)
	d := m.Delete("c")
	assert.Same(t, m.root, d.root, "Delete of an absent key copies nothing")
	assert.Equal(t, 2, d.Len())
}

// hashFuncs force the trie shapes that real hashes rarely produce.
var hashFuncs = []struct {
	name string
	fn   func(string) uint64
}{
	{"real", hashString},
	{"all collide", func(string) uint64 { return 42 }},
	{"few buckets", func(k string) uint64 { return hashString(k) & 0x3 }},
	{"high bits only", func(k string) uint64 { return hashString(k) & (0xF << 60) }},
	{"shared prefix", func(k string) uint64 { return hashString(k)&0xF<<60 | 0x0FFFFFFFFFFFFFF }},
}

// hashedMap is what the model tests and fuzz targets need of Map[int] and
// BufMap[int]: the operations for a key whose hash the test chooses.
type hashedMap[M any] interface {
	get(h uint64, k string) (int, bool)
	set(h uint64, k string, v int) M
	delete(h uint64, k string) M
	Len() int
	All() iter.Seq2[string, int]
}

// TestMapModel runs random Set/Delete/Get sequences on random older versions
// against a Go map model, with real and degenerate hashes, and checks every
// version at the end: old versions are unchanged by updates to old and new.
func TestMapModel(t *testing.T) {
	t.Parallel()
	checkModel(t, func(*rapid.T, int) bool { return false }, Map[int]{})
}

// checkModel is TestMapModel for any map type: the version each operation
// starts from is drawn among all of them, or is the latest when latest says
// so (as a stream's is).
func checkModel[M hashedMap[M]](t *testing.T, latest func(t *rapid.T, n int) bool, empty M) {
	for _, hf := range hashFuncs {
		t.Run(hf.name, func(t *testing.T) {
			t.Parallel()
			rapid.Check(t, func(t *rapid.T) {
				versions := []M{empty}
				models := []map[string]int{{}}
				key := rapid.StringMatching(`k[0-9]{1,2}`)
				pick := func() int {
					if latest(t, len(versions)) {
						return len(versions) - 1
					}
					return rapid.IntRange(0, len(versions)-1).Draw(t, "version")
				}
				t.Repeat(map[string]func(*rapid.T){
					"Set": func(t *rapid.T) {
						i, k, v := pick(), key.Draw(t, "key"), rapid.Int().Draw(t, "value")
						m := maps.Clone(models[i])
						m[k] = v
						versions = append(versions, versions[i].set(hf.fn(k), k, v))
						models = append(models, m)
					},
					"Delete": func(t *rapid.T) {
						i, k := pick(), key.Draw(t, "key")
						m := maps.Clone(models[i])
						delete(m, k)
						versions = append(versions, versions[i].delete(hf.fn(k), k))
						models = append(models, m)
					},
					"Get": func(t *rapid.T) {
						i, k := pick(), key.Draw(t, "key")
						want, wantOK := models[i][k]
						got, ok := versions[i].get(hf.fn(k), k)
						assert.Equal(t, wantOK, ok, "Get(%q) presence", k)
						assert.Equal(t, want, got, "Get(%q)", k)
					},
				})
				for i := range versions {
					require.Equal(t, len(models[i]), versions[i].Len(), "Len of version %d", i)
					got := maps.Collect(versions[i].All())
					if len(models[i]) == 0 {
						assert.Empty(t, got, "version %d", i)
					} else {
						assert.Equal(t, models[i], got, "version %d", i)
					}
					for k, v := range models[i] {
						g, ok := versions[i].get(hf.fn(k), k)
						assert.True(t, ok, "version %d Get(%q)", i, k)
						assert.Equal(t, v, g, "version %d Get(%q)", i, k)
					}
				}
			})
		})
	}
}

func TestMapIterationDeterministic(t *testing.T) {
	t.Parallel()
	var m Map[int]
	for i := range 500 {
		m = m.Set(fmt.Sprint(i), i)
	}
	first := collectKeys(m)
	for range 3 {
		assert.Equal(t, first, collectKeys(m), "iteration order of one value changed")
	}
	n := 0
	for range m.All() {
		n++
		if n == 10 {
			break
		}
	}
	assert.Equal(t, 10, n, "All stops when yield returns false")
}

func collectKeys[V any](m Map[V]) []string {
	var ks []string
	for k := range m.Keys() {
		ks = append(ks, k)
	}
	return ks
}

func TestMapConcurrent(t *testing.T) {
	t.Parallel()
	var base Map[int]
	for i := range 2000 {
		base = base.Set(fmt.Sprint(i), i)
	}
	const workers = 8
	results := make([]Map[int], workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			m := base
			for i := range 500 {
				m = m.Set(fmt.Sprint(i), -w).Delete(fmt.Sprint(1000 + i))
				if v, _ := base.Get(fmt.Sprint(i)); v != i {
					t.Errorf("base[%d] = %d during updates", i, v)
				}
			}
			results[w] = m
		})
	}
	wg.Wait()
	for w, m := range results {
		assert.Equal(t, 1500, m.Len(), "worker %d", w)
		v, _ := m.Get("7")
		assert.Equal(t, -w, v, "worker %d", w)
		assert.False(t, m.Has("1200"), "worker %d kept a deleted key", w)
	}
	assert.Equal(t, 2000, base.Len())
	for k, v := range base.All() {
		require.Equal(t, k, fmt.Sprint(v), "base changed")
	}
}

// TestMapEveryNodeSize grows a map key by key and shrinks it again, with
// each hash of hashFuncs, checking every version on the way: nodes pass
// through every size newNode allocates, and with colliding hashes a
// collision list grows past 32 entries (an array of its own). Each version
// is checked against the model after later versions were made from it.
func TestMapEveryNodeSize(t *testing.T) {
	t.Parallel()
	const n = 70
	for _, hf := range hashFuncs {
		t.Run(hf.name, func(t *testing.T) {
			t.Parallel()
			versions := []Map[int]{{}}
			models := []map[string]int{{}}
			add := func(m Map[int], model map[string]int) {
				versions, models = append(versions, m), append(models, model)
			}
			for i := range n {
				k := fmt.Sprintf("key-%d", i)
				last := len(versions) - 1
				m := maps.Clone(models[last])
				m[k] = i
				add(versions[last].set(hf.fn(k), k, i), m)
			}
			for i := range n { // overwrite every value once
				k := fmt.Sprintf("key-%d", i)
				last := len(versions) - 1
				m := maps.Clone(models[last])
				m[k] = -i
				add(versions[last].set(hf.fn(k), k, -i), m)
			}
			for i := range n { // delete from the middle outwards
				k := fmt.Sprintf("key-%d", (i*37)%n)
				last := len(versions) - 1
				m := maps.Clone(models[last])
				delete(m, k)
				add(versions[last].delete(hf.fn(k), k), m)
			}
			for i, v := range versions {
				require.Equal(t, len(models[i]), v.Len(), "Len of version %d", i)
				for k, want := range models[i] {
					got, ok := v.get(hf.fn(k), k)
					require.True(t, ok, "version %d: Get(%q)", i, k)
					require.Equal(t, want, got, "version %d: Get(%q)", i, k)
				}
				if len(models[i]) == 0 {
					assert.Empty(t, maps.Collect(v.All()), "version %d", i)
				} else {
					assert.Equal(t, models[i], maps.Collect(v.All()), "version %d", i)
				}
			}
		})
	}
}

// TestMapNodeLayout checks what mapNode.slot relies on: a node's slots start
// right after its bitmaps, in every size newNode allocates.
func TestMapNodeLayout(t *testing.T) {
	assert.Equal(t, uintptr(8), unsafe.Sizeof(mapNode{}), "a node is its two bitmaps")
	assert.Equal(t, unsafe.Sizeof(mapNode{}), unsafe.Offsetof(slotted[[2]unsafe.Pointer]{}.slots))
	assert.Equal(t, unsafe.Sizeof(mapNode{}), unsafe.Offsetof(slotted[[32]unsafe.Pointer]{}.slots))
	if strconv.IntSize == 64 { // the size classes are laid out for 64-bit words
		assert.Equal(t, uintptr(264), unsafe.Sizeof(slotted[[32]unsafe.Pointer]{}), "a full node fits the 288-byte size class")
	}
}
