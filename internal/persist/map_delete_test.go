package persist

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMapDeleteLastKeyShapes deletes keys down to none from every root
// shape a map of one or two keys takes: a lone entry at the root, two keys
// whose hashes share a prefix (a chain of one-kid nodes under the root),
// two keys whose full hashes collide (a collision node at mapMaxShift), and
// an absent key that shares the last key's full hash or nothing with it.
// Deleting the last key leaves the zero map (nil root) and allocates
// nothing; deleting an absent key returns the receiver; the versions
// before are unchanged; and the map takes new keys afterwards. (Not
// parallel: it counts allocations.)
func TestMapDeleteLastKeyShapes(t *testing.T) {
	type step struct {
		del     string
		wantLen int
		same    bool // the receiver comes back: the key was absent
	}
	for _, c := range []struct {
		name  string
		hash  func(string) uint64
		keys  []string
		steps []step
	}{
		{"one key", hashString, []string{"a"},
			[]step{{"b", 1, true}, {"a", 0, false}, {"a", 0, true}}},
		{"full collision, absent key of the same hash", func(string) uint64 { return 7 }, []string{"a"},
			[]step{{"b", 1, true}, {"a", 0, false}}},
		{"two colliding keys, first deleted", func(string) uint64 { return 7 }, []string{"a", "b"},
			[]step{{"a", 1, false}, {"a", 1, true}, {"c", 1, true}, {"b", 0, false}}},
		{"two colliding keys, last deleted", func(string) uint64 { return 7 }, []string{"a", "b"},
			[]step{{"b", 1, false}, {"a", 0, false}}},
		{"shared 60-bit prefix", func(k string) uint64 { return uint64(k[0]-'a')<<60 | 0x0FFFFFFFFFFFFFFF }, []string{"a", "b"},
			[]step{{"a", 1, false}, {"b", 0, false}}},
		{"prefix of one level", func(k string) uint64 { return uint64(k[0]-'a') << 5 }, []string{"a", "b", "c"},
			[]step{{"b", 2, false}, {"c", 1, false}, {"x", 1, true}, {"a", 0, false}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m Map[int]
			model := map[string]int{}
			for i, k := range c.keys {
				m = m.set(c.hash(k), k, i)
				model[k] = i
			}
			type kept struct {
				m     Map[int]
				model map[string]int
			}
			var history []kept
			for _, s := range c.steps {
				history = append(history, kept{m, maps.Clone(model)})
				before := m
				m = m.delete(c.hash(s.del), s.del)
				delete(model, s.del)
				require.Equal(t, s.wantLen, m.Len(), "after deleting %q", s.del)
				assert.Equal(t, s.same, m.Same(before), "deleting %q returns the receiver", s.del)
				if s.wantLen == 0 {
					assert.Nil(t, m.root, "an empty map has no root")
					if !s.same {
						allocs := testing.AllocsPerRun(20, func() { _ = before.delete(c.hash(s.del), s.del) })
						assert.Zero(t, allocs, "deleting the last key allocates")
					}
				} else {
					require.NotNil(t, m.root)
				}
				checkHashed(t, m, model, c.hash)
			}
			for _, h := range history {
				checkHashed(t, h.m, h.model, c.hash)
			}
			m = m.set(c.hash("z"), "z", 9)
			checkHashed(t, m, map[string]int{"z": 9}, c.hash)
		})
	}
}

// checkHashed checks m against want with the keys' hashes under hash.
func checkHashed(t *testing.T, m Map[int], want map[string]int, hash func(string) uint64) {
	t.Helper()
	require.Equal(t, len(want), m.Len())
	got := map[string]int{}
	for k, v := range m.All() {
		got[k] = v
	}
	assert.Equal(t, want, got)
	for k, v := range want {
		g, ok := m.get(hash(k), k)
		require.True(t, ok, "Get(%q)", k)
		require.Equal(t, v, g, "Get(%q)", k)
	}
}
