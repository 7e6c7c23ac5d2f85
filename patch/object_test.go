package patch

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// objectModel is the obvious ordered map the persistent object must behave
// like.
type objectModel struct {
	keys []string
	vals map[string]string
}

func (m objectModel) clone() objectModel {
	c := objectModel{keys: slices.Clone(m.keys), vals: map[string]string{}}
	for k, v := range m.vals {
		c.vals[k] = v
	}
	return c
}

func (m *objectModel) set(k, v string) {
	if _, ok := m.vals[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
}

func (m *objectModel) del(k string) bool {
	if _, ok := m.vals[k]; !ok {
		return false
	}
	delete(m.vals, k)
	m.keys = slices.DeleteFunc(m.keys, func(x string) bool { return x == k })
	return true
}

func (m objectModel) encode() string {
	b := []byte{'{'}
	for i, k := range m.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, k)
		b = append(b, ':')
		b = append(b, m.vals[k]...)
	}
	return string(append(b, '}'))
}

// TestObjectAgainstModel drives objects through random sets and deletes that
// cross the slice/trie thresholds both ways, checking every version against
// the model, and that no earlier version changes.
func TestObjectAgainstModel(t *testing.T) {
	t.Parallel()
	for seed := range 8 {
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		var o object
		m := objectModel{vals: map[string]string{}}
		type version struct {
			o object
			m objectModel
		}
		var versions []version
		for step := range 600 {
			k := fmt.Sprintf("k%d", r.IntN(60))
			// Drift between growing and shrinking so the count crosses 16 and 8.
			grow := (step/100)%2 == 0
			if r.IntN(10) < 3 || grow && r.IntN(10) < 7 {
				v := fmt.Sprint(step)
				o = *o.set(k, newNumber(v)).obj
				m.set(k, v)
			} else {
				n, ok := o.del(k)
				assert.Equal(t, m.del(k), ok, "del(%s)", k)
				if ok {
					o = *n.obj
				}
			}
			require.Equal(t, len(m.keys), o.len())
			n := newObjectNode(o)
			enc := string(appendNode(nil, n))
			require.Equal(t, m.encode(), enc, "seed %d step %d", seed, step)
			require.Equal(t, len(enc), n.size, "size")
			for _, k := range m.keys {
				v, ok := o.get(k)
				require.True(t, ok)
				require.Equal(t, m.vals[k], v.text)
			}
			_, ok := o.get("absent")
			require.False(t, ok)
			if step%50 == 0 {
				versions = append(versions, version{o, m.clone()})
			}
		}
		for i, v := range versions {
			assert.Equal(t, v.m.encode(), string(appendNode(nil, newObjectNode(v.o))), "version %d changed", i)
		}
	}
}

// TestTrieCollisions exercises the trie with chosen hashes: keys whose 64-bit
// hashes are equal share a collision node; keys that differ only in the last
// bits go deep.
func TestTrieCollisions(t *testing.T) {
	t.Parallel()
	hashes := map[string]uint64{
		"a": 0, "b": 0, "c": 0, // full collisions
		"d": 1 << 60, // differs from a, b, c only at the last level
		"e": 1,       // differs at the first level
		"f": 1 | 1<<5,
	}
	mk := func(k, v string) *entry { return &entry{key: k, val: newString(v), hash: hashes[k]} }
	keys := []string{"a", "b", "c", "d", "e", "f"}

	check := func(t *testing.T, h *hnode, want map[string]string) {
		t.Helper()
		for _, k := range keys {
			e := h.get(hashes[k], 0, k)
			if v, ok := want[k]; ok {
				require.NotNil(t, e, "get(%s)", k)
				assert.Equal(t, v, e.val.text)
			} else {
				assert.Nil(t, e, "get(%s)", k)
			}
		}
		n := 0
		h.each(func(*entry) bool { n++; return true })
		assert.Equal(t, len(want), n, "each visits every entry once")
	}

	// Persistent inserts, then replacements.
	h := &hnode{}
	want := map[string]string{}
	var old []*hnode
	for _, k := range keys {
		old = append(old, h)
		var prev *entry
		h, prev = h.with(mk(k, k+"1"), 0)
		assert.Nil(t, prev)
		want[k] = k + "1"
		check(t, h, want)
	}
	for _, k := range keys {
		var prev *entry
		h, prev = h.with(mk(k, k+"2"), 0)
		require.NotNil(t, prev)
		assert.Equal(t, k+"1", prev.val.text)
		want[k] = k + "2"
		check(t, h, want)
	}
	check(t, old[3], map[string]string{"a": "a1", "b": "b1", "c": "c1"}) // untouched by later inserts

	// Fresh (mutating) inserts build the same trie.
	f := &hnode{}
	for _, k := range keys {
		f.insertFresh(mk(k, k+"2"), 0)
	}
	f.insertFresh(mk("b", "b2"), 0) // replacement in a collision node
	check(t, f, want)

	// Removals, including from the collision node down to nothing.
	before := h
	for _, k := range []string{"b", "zz", "d", "a", "e", "c", "f"} {
		h2, gone := h.without(hashes[k], 0, k)
		if _, ok := want[k]; !ok {
			assert.Nil(t, gone)
			assert.Same(t, h, h2, "removing an absent key returns the same trie")
			continue
		}
		require.NotNil(t, gone, "without(%s)", k)
		delete(want, k)
		if len(want) == 0 {
			assert.Nil(t, h2)
			break
		}
		h = h2
		check(t, h, want)
	}
	check(t, before, map[string]string{"a": "a2", "b": "b2", "c": "c2", "d": "d2", "e": "e2", "f": "f2"})

	// each stops when asked.
	n := 0
	before.each(func(*entry) bool { n++; return n < 3 })
	assert.Equal(t, 3, n)
}

// TestArrayAgainstModel drives arrays through random inserts, replacements
// and removals at random positions, growing past several tree levels and
// shrinking back to a slice, and checks every version against a plain slice
// and that no earlier version changes.
func TestArrayAgainstModel(t *testing.T) {
	t.Parallel()
	for seed := range 2 {
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		var a array
		var m []string
		type version struct {
			a array
			m []string
		}
		var versions []version
		encode := func(m []string) string {
			if len(m) == 0 {
				return "[]"
			}
			return "[" + strings.Join(m, ",") + "]"
		}
		maxLen, sawTree := 0, false
		for step := 0; step < 8000 || len(m) > 0; step++ {
			// Grow for 8000 steps (past two tree levels), then shrink to nothing.
			grow := step < 8000
			switch x := r.IntN(10); {
			case len(m) > 0 && x < 2:
				i := r.IntN(len(m))
				v := fmt.Sprint(step)
				a = *a.set(i, newNumber(v)).arr
				m[i] = v
			case len(m) > 0 && (x < 4 || !grow && x < 9):
				i := r.IntN(len(m))
				if r.IntN(3) == 0 {
					i = 0 // a queue: remove from the front
				}
				a = *a.remove(i).arr
				m = slices.Delete(m, i, i+1)
			default:
				i := r.IntN(len(m) + 1)
				if r.IntN(2) == 0 {
					i = len(m) // append
				}
				v := fmt.Sprint(step)
				a = *a.insert(i, newNumber(v)).arr
				m = slices.Insert(m, i, v)
			}
			require.Equal(t, len(m), a.len())
			maxLen = max(maxLen, len(m))
			sawTree = sawTree || a.tree != nil && a.tree.kids != nil && a.tree.kids[0].kids != nil
			if len(m) > 0 {
				i := r.IntN(len(m))
				require.Equal(t, m[i], a.at(i).text, "at(%d)", i)
			}
			if step%97 == 0 || len(m) < 3 {
				n := newArrayNode(a)
				enc := string(appendNode(nil, n))
				require.Equal(t, encode(m), enc, "seed %d step %d", seed, step)
				require.Equal(t, len(enc), n.size)
				versions = append(versions, version{a, slices.Clone(m)})
			}
		}
		assert.Greater(t, maxLen, 1000, "the array grew large")
		assert.True(t, sawTree, "the tree grew three levels deep")
		assert.Nil(t, a.tree, "the empty array is a slice again")
		for i, v := range versions {
			assert.Equal(t, encode(v.m), string(appendNode(nil, newArrayNode(v.a))), "version %d changed", i)
		}
	}
}

func TestNewLargeArray(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, flatArray, flatArray + 1, 1000, 40000} {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprint(i)
		}
		raw := "[" + strings.Join(parts, ",") + "]"
		d := MustNew(raw)
		assert.Equal(t, raw, d.String())
		assert.Equal(t, len(raw), d.Size())
		assert.True(t, d.Equal(MustNew(raw)))
		if n > 0 {
			got, _, err := Apply(d, json.RawMessage(fmt.Sprintf(`[{"op":"test","path":"/%d","value":%d}]`, n-1, n-1)), nil)
			require.NoError(t, err)
			assert.Equal(t, d, got)
		}
	}
}
