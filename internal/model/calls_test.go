package model

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCallList checks a CallList against a plain slice through appends and
// sets across the flat and vector forms, and that every earlier version
// keeps its calls (nothing is written in place).
func TestCallList(t *testing.T) {
	var l CallList
	var model []*Call
	type version struct {
		l    CallList
		want []*Call
	}
	var versions []version
	for i := range 100 {
		c := &Call{ID: fmt.Sprint("c", i)}
		l = l.Append(c)
		model = append(model, c)
		if i%7 == 3 {
			j := (i * 13) % len(model)
			r := &Call{ID: model[j].ID, Name: "set"}
			l = l.Set(j, r)
			model = append([]*Call(nil), model...)
			model[j] = r
		}
		require.Equal(t, len(model), l.Len())
		for k, c := range l.All() {
			require.Same(t, model[k], c, "call %d after %d appends", k, i+1)
			require.Same(t, model[k], l.At(k))
		}
		versions = append(versions, version{l, append([]*Call(nil), model...)})
	}
	for i, v := range versions {
		for k, c := range v.want {
			assert.Same(t, c, v.l.At(k), "version %d, call %d", i, k)
		}
	}
	assert.Equal(t, 42, l.Find("c42", 0), "found without a hint")
	assert.Equal(t, 42, l.Find("c42", 42), "found at the hint")
	assert.Equal(t, -1, l.Find("nope", 3))
	assert.Equal(t, 4, CallsOf(model[:3]...).Append(model[3]).Len())
	var empty CallList
	assert.Zero(t, empty.Len())
	assert.Equal(t, -1, empty.Find("c0", 0))
	// A list of one call, the common case, set and grown.
	a, b := &Call{ID: "a"}, &Call{ID: "a", Name: "set"}
	one := CallsOf(a)
	set := one.Set(0, b)
	two := one.Append(b)
	assert.Same(t, a, one.At(0), "Set left the list of one as it was")
	assert.Same(t, b, set.At(0))
	assert.Equal(t, 1, set.Len())
	assert.Equal(t, 0, set.Find("a", 5))
	assert.Equal(t, []*Call{a, b}, []*Call{two.At(0), two.At(1)})
	n := 0
	for i, c := range one.All() {
		assert.Equal(t, 0, i)
		assert.Same(t, a, c)
		n++
	}
	assert.Equal(t, 1, n)
	assert.Panics(t, func() { one.At(1) })
}
