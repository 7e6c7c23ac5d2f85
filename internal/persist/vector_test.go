package persist

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// checkVector asserts that v holds exactly want, through every accessor.
func checkVector[T any](t require.TestingT, v Vector[T], want []T) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	require.Equal(t, len(want), v.Len(), "Len")
	if len(want) == 0 {
		assert.Nil(t, v.Slice(), "Slice of an empty vector")
		_, ok := v.Last()
		assert.False(t, ok, "Last of an empty vector")
		return
	}
	assert.Equal(t, want, v.Slice(), "Slice")
	at := make([]T, len(want))
	for i := range want {
		at[i] = v.At(i)
	}
	assert.Equal(t, want, at, "At")
	var idx []int
	var got []T
	for i, x := range v.All() {
		idx = append(idx, i)
		got = append(got, x)
	}
	assert.Equal(t, want, got, "All values")
	assert.True(t, slices.Equal(idx, slices.Collect(func(yield func(int) bool) {
		for i := range want {
			yield(i)
		}
	})), "All yields indices 0..n-1 in order")
	assert.Equal(t, want, slices.Collect(v.Values()), "Values")
	last, ok := v.Last()
	assert.True(t, ok, "Last of a non-empty vector")
	assert.Equal(t, want[len(want)-1], last, "Last")
}

func TestVectorBasics(t *testing.T) {
	t.Parallel()
	sizes := []int{0, 1, 31, 32, 33, 64, 65, 1024, 1025, 1056, 1057, 32*32*32 + 33}
	for _, n := range sizes {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			var v Vector[int]
			want := make([]int, 0, n)
			for i := range n {
				v = v.Append(i * 3)
				want = append(want, i*3)
			}
			checkVector(t, v, want)
			checkVector(t, VectorOf(want...), want)
			if n > 0 {
				for _, i := range []int{0, n / 2, n - 1} {
					w := v.Set(i, -1)
					want2 := slices.Clone(want)
					want2[i] = -1
					checkVector(t, w, want2)
				}
				checkVector(t, v, want) // Set left v alone
			}
		})
	}
}

func TestVectorZeroValue(t *testing.T) {
	t.Parallel()
	var v Vector[string]
	checkVector(t, v, nil)
	checkVector(t, VectorOf[string](), nil)
	w := v.Append("a")
	checkVector(t, w, []string{"a"})
	checkVector(t, v, nil)
}

func TestVectorOutOfRangePanics(t *testing.T) {
	t.Parallel()
	v := VectorOf(1, 2, 3)
	cases := []struct {
		name string
		fn   func()
		msg  string
	}{
		{"At(-1)", func() { v.At(-1) }, "persist: Vector.At: index out of range [-1] with length 3"},
		{"At(len)", func() { v.At(3) }, "persist: Vector.At: index out of range [3] with length 3"},
		{"At on empty", func() { Vector[int]{}.At(0) }, "persist: Vector.At: index out of range [0] with length 0"},
		{"Set(len)", func() { v.Set(3, 0) }, "persist: Vector.Set: index out of range [3] with length 3"},
		{"Set(-5)", func() { v.Set(-5, 0) }, "persist: Vector.Set: index out of range [-5] with length 3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.PanicsWithValue(t, tc.msg, tc.fn)
		})
	}
}

// TestVectorNoAliasing appends and sets twice on the same older value, at
// every tail position and across trie pushes, and checks that neither result
// sees the other's element.
func TestVectorNoAliasing(t *testing.T) {
	t.Parallel()
	var base Vector[int]
	var model []int
	for n := range 1100 {
		a, b := base.Append(-1), base.Append(-2)
		require.Equal(t, -1, a.At(n), "first append to length %d", n)
		require.Equal(t, -2, b.At(n), "second append to length %d", n)
		a2, b2 := a.Append(-3), b.Append(-4)
		require.Equal(t, -3, a2.At(n+1))
		require.Equal(t, -4, b2.At(n+1))
		require.Equal(t, -1, a2.At(n), "the second branch wrote into the first")
		if n > 0 {
			s := base.Set(n-1, -5)
			require.Equal(t, -5, s.At(n-1))
			require.Equal(t, model[n-1], base.At(n-1), "Set wrote into its receiver")
			require.Equal(t, model[n-1], a.At(n-1), "Set wrote into a sibling")
		}
		base = base.Append(n)
		model = append(model, n)
	}
	checkVector(t, base, model)
}

func TestVectorModel(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		versions := []Vector[int]{{}}
		models := [][]int{nil}
		pick := func() int { return rapid.IntRange(0, len(versions)-1).Draw(t, "version") }
		push := func(v Vector[int], m []int) {
			versions = append(versions, v)
			models = append(models, m)
		}
		t.Repeat(map[string]func(*rapid.T){
			"Append": func(t *rapid.T) {
				i := pick()
				x := rapid.Int().Draw(t, "x")
				push(versions[i].Append(x), append(slices.Clip(models[i]), x))
			},
			"AppendMany": func(t *rapid.T) {
				i := pick()
				n := rapid.IntRange(1, 300).Draw(t, "n")
				v, m := versions[i], slices.Clip(models[i])
				for j := range n {
					v = v.Append(j)
					m = append(m, j)
				}
				push(v, m)
			},
			"Set": func(t *rapid.T) {
				i := pick()
				if len(models[i]) == 0 {
					t.Skip("empty")
				}
				j := rapid.IntRange(0, len(models[i])-1).Draw(t, "index")
				x := rapid.Int().Draw(t, "x")
				m := slices.Clone(models[i])
				m[j] = x
				push(versions[i].Set(j, x), m)
			},
			"": func(t *rapid.T) {
				i := pick()
				checkVector(t, versions[i], models[i])
			},
		})
		for i := range versions {
			checkVector(t, versions[i], models[i])
		}
	})
}

// TestVectorConcurrent races many goroutines appending to and setting the
// same shared values (contending for the tail's spare slots) while others
// read; run under -race.
func TestVectorConcurrent(t *testing.T) {
	t.Parallel()
	base := VectorOf[int]()
	for i := range 1000 {
		base = base.Append(i)
	}
	const workers = 8
	results := make([]Vector[int], workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			v := base
			for i := range 200 {
				v = v.Append(w*1000 + i)
				_ = base.At(i)
				if i%10 == 0 {
					v = v.Set(i, -w)
				}
			}
			results[w] = v
		})
		wg.Go(func() {
			for range 5 {
				for i, x := range base.All() {
					if x != i {
						t.Errorf("base[%d] = %d, want %d", i, x, i)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	for w, v := range results {
		require.Equal(t, 1200, v.Len())
		for i := range 200 {
			want := w*1000 + i
			assert.Equal(t, want, v.At(1000+i), "worker %d element %d", w, i)
		}
		assert.Equal(t, -w, v.At(0), "worker %d Set(0)", w)
	}
	for i, x := range base.All() {
		require.Equal(t, i, x, "base changed at %d", i)
	}
}

func TestVectorIteratorsStopEarly(t *testing.T) {
	t.Parallel()
	v := VectorOf(slices.Collect(func(yield func(int) bool) {
		for i := range 100 {
			if !yield(i) {
				return
			}
		}
	})...)
	for _, stop := range []int{0, 31, 32, 50, 99} {
		var seen []int
		for i, x := range v.All() {
			seen = append(seen, x)
			if i == stop {
				break
			}
		}
		assert.Len(t, seen, stop+1, "All stops after index %d", stop)
		seen = seen[:0]
		for x := range v.Values() {
			seen = append(seen, x)
			if x == stop {
				break
			}
		}
		assert.Len(t, seen, stop+1, "Values stops after %d", stop)
	}
}

// TestVectorDeep grows a vector to three levels of inner nodes above its
// leaves (past 32·32·32 elements), setting elements on every level of the
// way, and checks it and a version kept at two levels against models.
func TestVectorDeep(t *testing.T) {
	t.Parallel()
	var v, kept Vector[int]
	var model, keptModel []int
	for n := range 40_000 {
		v = v.Append(n)
		model = append(model, n)
		if n%997 == 0 {
			i := n / 3
			v = v.Set(i, -n)
			model[i] = -n
		}
		if n == 2000 {
			kept, keptModel = v, slices.Clone(model)
		}
	}
	checkVector(t, v, model)
	checkVector(t, kept, keptModel)
	require.Equal(t, uint(3*vecBits), v.shift, "the root is three levels above the leaves")
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
