package persist

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// checkSeq asserts that s holds exactly want in order, through every
// accessor, and that its labels are strictly increasing.
func checkSeq(t require.TestingT, s Seq, want []string) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	require.Equal(t, len(want), s.Len(), "Len")
	require.Equal(t, s.root.count()+s.tn, s.Len(), "tree and tail sizes match label index")
	if len(want) == 0 {
		assert.Nil(t, s.Slice(), "Slice of an empty Seq")
		return
	}
	assert.Equal(t, want, slices.Collect(s.All()), "All")
	assert.Equal(t, want, s.Slice(), "Slice")
	type pos struct {
		has   bool
		index int
		at    string
		next  string
	}
	wantPos := make([]pos, len(want))
	gotPos := make([]pos, len(want))
	prev := ""
	for i, k := range want {
		wantPos[i] = pos{has: true, index: i, at: k}
		if i+1 < len(want) {
			wantPos[i].next = want[i+1]
		}
		idx, _ := s.Index(k)
		next, _ := s.Next(k)
		gotPos[i] = pos{has: s.Has(k), index: idx, at: s.At(i), next: next}
		label, _ := s.labels.Get(k)
		if !assert.Greater(t, label, prev, "labels increase at %d", i) ||
			!assert.NotEqual(t, byte(0), label[len(label)-1], "label of %q ends in 0x00", k) {
			return
		}
		prev = label
	}
	assert.Equal(t, wantPos, gotPos, "Has, Index, At and Next of every key")
	_, ok := s.Next(want[len(want)-1])
	assert.False(t, ok, "Next of the last key")
}

func TestSeqBasics(t *testing.T) {
	t.Parallel()
	type op struct {
		after string // "-" = Append
		key   string
	}
	cases := []struct {
		name string
		ops  []op
		want []string
	}{
		{"empty", nil, nil},
		{"appends", []op{{"-", "a"}, {"-", "b"}, {"-", "c"}}, []string{"a", "b", "c"}},
		{"insert after first", []op{{"-", "a"}, {"-", "b"}, {"a", "x"}}, []string{"a", "x", "b"}},
		{"insert after last", []op{{"-", "a"}, {"a", "b"}, {"b", "c"}, {"-", "d"}}, []string{"a", "b", "c", "d"}},
		{"tool results in order", []op{{"-", "m1"}, {"-", "m2"}, {"m1", "t1"}, {"t1", "t2"}, {"t2", "t3"}}, []string{"m1", "t1", "t2", "t3", "m2"}},
		{"repeated insert after one key", []op{{"-", "m"}, {"-", "z"}, {"m", "c"}, {"m", "b"}, {"m", "a"}}, []string{"m", "a", "b", "c", "z"}},
		{"empty key", []op{{"-", ""}, {"-", "b"}, {"", "a"}}, []string{"", "a", "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var s Seq
			for _, o := range tc.ops {
				if o.after == "-" {
					s = s.Append(o.key)
				} else {
					s = s.InsertAfter(o.after, o.key)
				}
			}
			checkSeq(t, s, tc.want)
		})
	}
}

func TestSeqRemove(t *testing.T) {
	t.Parallel()
	s := Seq{}.Append("a").Append("b").Append("c")
	assert.Equal(t, s, s.Remove("zz"), "Remove of an absent key returns the receiver")
	r := s.Remove("b")
	checkSeq(t, r, []string{"a", "c"})
	checkSeq(t, s, []string{"a", "b", "c"})
	r = r.Remove("a").Remove("c")
	checkSeq(t, r, nil)
	checkSeq(t, r.Append("b"), []string{"b"})
	_, ok := s.Next("zz")
	assert.False(t, ok, "Next of an absent key")
	i, ok := s.Index("zz")
	assert.False(t, ok, "Index of an absent key")
	assert.Equal(t, -1, i)
}

func TestSeqMisusePanics(t *testing.T) {
	t.Parallel()
	s := Seq{}.Append("a")
	cases := []struct {
		name string
		fn   func()
		msg  string
	}{
		{"Append present", func() { s.Append("a") }, `persist: Seq.Append: key "a" is already present`},
		{"InsertAfter absent anchor", func() { s.InsertAfter("x", "b") }, `persist: Seq.InsertAfter: key "x" is not present`},
		{"InsertAfter present key", func() { s.InsertAfter("a", "a") }, `persist: Seq.InsertAfter: key "a" is already present`},
		{"At out of range", func() { s.At(1) }, "persist: Seq.At: index out of range [1] with length 1"},
		{"At negative", func() { s.At(-1) }, "persist: Seq.At: index out of range [-1] with length 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.PanicsWithValue(t, tc.msg, tc.fn)
		})
	}
}

// TestSeqLabelGrowth pins the documented label growth for the patterns the
// message list produces.
func TestSeqLabelGrowth(t *testing.T) {
	t.Parallel()
	maxLabel := func(s Seq) int {
		n := 0
		for _, l := range s.labels.All() {
			n = max(n, len(l))
		}
		return n
	}
	// Appending labels: a head byte plus a counter that widens at the 256th
	// and the (255+255²+1)th label.
	l := firstLabel
	for i := range 255 + 255*255 - 1 { // the first label is "\x81\x01"
		next := labelAfter(l)
		if next <= l {
			require.Failf(t, "labels must increase", "labelAfter(%q) = %q after %d appends", l, next, i)
		}
		l = next
	}
	assert.Equal(t, "\x82\xff\xff", l, "the last two-byte counter")
	assert.Equal(t, "\x83\x01\x01\x01", labelAfter(l), "the counter widens to three bytes")
	var s Seq
	for i := range 1000 {
		s = s.Append(strconv.Itoa(i))
	}
	assert.LessOrEqual(t, maxLabel(s), 3, "1000 appends need a head byte and 2 counter bytes")

	// A chain of 1000 inserts into one gap, each after the previous.
	c := Seq{}.Append("m").Append("end")
	prev := "m"
	for i := range 1000 {
		k := fmt.Sprint("t", i)
		c = c.InsertAfter(prev, k)
		prev = k
	}
	assert.LessOrEqual(t, maxLabel(c), 2+1000/255+2, "chained inserts grow labels by about a byte per 255")
	got := c.Slice()
	assert.Equal(t, "m", got[0])
	assert.Equal(t, "t999", got[1000])
	assert.Equal(t, "end", got[1001])
}

// TestSeqModel runs random operations on random older versions against a
// slice model and checks every version at the end.
func TestSeqModel(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		versions := []Seq{{}}
		models := [][]string{nil}
		fresh := 0
		newKey := func() string { fresh++; return fmt.Sprint("k", fresh) }
		pick := func() int { return rapid.IntRange(0, len(versions)-1).Draw(t, "version") }
		push := func(s Seq, m []string) {
			versions = append(versions, s)
			models = append(models, m)
		}
		t.Repeat(map[string]func(*rapid.T){
			"Append": func(t *rapid.T) {
				i, k := pick(), newKey()
				push(versions[i].Append(k), append(slices.Clip(models[i]), k))
			},
			"AppendMany": func(t *rapid.T) {
				i := pick()
				s, m := versions[i], slices.Clip(models[i])
				for range rapid.IntRange(1, 300).Draw(t, "n") {
					k := newKey()
					s, m = s.Append(k), append(m, k)
				}
				push(s, m)
			},
			"InsertAfter": func(t *rapid.T) {
				i := pick()
				if len(models[i]) == 0 {
					t.Skip("empty")
				}
				j := rapid.IntRange(0, len(models[i])-1).Draw(t, "anchor")
				k := newKey()
				push(versions[i].InsertAfter(models[i][j], k), slices.Insert(slices.Clone(models[i]), j+1, k))
			},
			"Remove": func(t *rapid.T) {
				i := pick()
				if len(models[i]) == 0 {
					t.Skip("empty")
				}
				j := rapid.IntRange(0, len(models[i])-1).Draw(t, "victim")
				push(versions[i].Remove(models[i][j]), slices.Delete(slices.Clone(models[i]), j, j+1))
			},
			"ReAppendRemoved": func(t *rapid.T) {
				i := pick()
				if len(models[i]) == 0 {
					t.Skip("empty")
				}
				k := models[i][rapid.IntRange(0, len(models[i])-1).Draw(t, "key")]
				m := slices.DeleteFunc(slices.Clone(models[i]), func(x string) bool { return x == k })
				push(versions[i].Remove(k).Append(k), append(m, k))
			},
			"": func(t *rapid.T) {
				i := pick()
				checkSeq(t, versions[i], models[i])
			},
		})
		for i := range versions {
			checkSeq(t, versions[i], models[i])
		}
	})
}

func TestSeqConcurrent(t *testing.T) {
	t.Parallel()
	var base Seq
	var model []string
	for i := range 500 {
		k := fmt.Sprint(i)
		base, model = base.Append(k), append(model, k)
	}
	var wg sync.WaitGroup
	results := make([]Seq, 8)
	for w := range results {
		wg.Go(func() {
			s := base
			for i := range 100 {
				s = s.InsertAfter(fmt.Sprint(i*5), fmt.Sprint("w", w, "-", i))
				if got := base.At(i); got != model[i] {
					t.Errorf("base.At(%d) = %q during updates, want %q", i, got, model[i])
				}
			}
			results[w] = s
		})
	}
	wg.Wait()
	checkSeq(t, base, model)
	for w, s := range results {
		require.Equal(t, 600, s.Len(), "worker %d", w)
		next, _ := s.Next("5")
		assert.Equal(t, fmt.Sprint("w", w, "-1"), next, "worker %d", w)
	}
}

// seqOf returns a Seq holding keys p0..p(n-1), appended in order.
func seqOf(prefix string, n int) (Seq, []string) {
	var s Seq
	var keys []string
	for i := range n {
		k := fmt.Sprint(prefix, i)
		s, keys = s.Append(k), append(keys, k)
	}
	return s, keys
}

// TestSeqTail covers the tail of recent keys: changes inside it, a full tail
// joining the tree, and branches from one value sharing its tail.
func TestSeqTail(t *testing.T) {
	t.Parallel()
	with := func(keys []string, at int, k string) []string { return slices.Insert(slices.Clone(keys), at, k) }
	without := func(keys []string, at int) []string { return slices.Delete(slices.Clone(keys), at, at+1) }
	cases := []struct {
		name string
		n    int // keys appended first
		op   func(Seq, []string) (Seq, []string)
	}{
		{"insert in the tail", 40, func(s Seq, ks []string) (Seq, []string) {
			return s.InsertAfter(ks[35], "x"), with(ks, 36, "x")
		}},
		{"insert after the last key", 40, func(s Seq, ks []string) (Seq, []string) {
			return s.InsertAfter(ks[39], "x"), append(slices.Clone(ks), "x")
		}},
		{"insert before the tail", 40, func(s Seq, ks []string) (Seq, []string) {
			return s.InsertAfter(ks[31], "x"), with(ks, 32, "x")
		}},
		{"insert in a full tail", 64, func(s Seq, ks []string) (Seq, []string) {
			return s.InsertAfter(ks[40], "x"), with(ks, 41, "x")
		}},
		{"remove from the tail", 40, func(s Seq, ks []string) (Seq, []string) {
			return s.Remove(ks[33]), without(ks, 33)
		}},
		{"remove the only tail key", 33, func(s Seq, ks []string) (Seq, []string) {
			return s.Remove(ks[32]), without(ks, 32)
		}},
		{"remove from the tree", 40, func(s Seq, ks []string) (Seq, []string) {
			return s.Remove(ks[3]), without(ks, 3)
		}},
		{"append to a full tail", 64, func(s Seq, ks []string) (Seq, []string) {
			return s.Append("x"), append(slices.Clone(ks), "x")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, keys := seqOf("k", tc.n)
			got, want := tc.op(s, keys)
			checkSeq(t, got, want)
			checkSeq(t, s, keys) // the original is untouched
			// The result goes on growing like any other.
			got, want = got.Append("y").Append("z"), append(want, "y", "z")
			checkSeq(t, got, want)
			checkSeq(t, s, keys)
		})
	}
}

// TestSeqTailBranches appends twice to one value, with room left in its tail
// and with its tail full: the branches never see each other's keys.
func TestSeqTailBranches(t *testing.T) {
	t.Parallel()
	for _, n := range []int{5, 32, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			base, keys := seqOf("k", n)
			a := base.Append("a1").Append("a2")
			b := base.Append("b1")
			c := base.Append("c1")
			checkSeq(t, a, append(slices.Clone(keys), "a1", "a2"))
			checkSeq(t, b, append(slices.Clone(keys), "b1"))
			checkSeq(t, c, append(slices.Clone(keys), "c1"))
			checkSeq(t, base, keys)
		})
	}
}
