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

// TestCallListAnswer: LastAnswer is the index the last Answer replaced,
// kept by Append and Set across the list's forms (one call, flat, vector)
// while that call is marked answered; ForgetAnswer forgets it in a new
// list; an earlier version keeps its own.
func TestCallListAnswer(t *testing.T) {
	var l CallList
	_, ok := l.LastAnswer()
	assert.False(t, ok, "empty")
	want, answered := 0, false
	type version struct {
		l        CallList
		answered int
		ok       bool
	}
	var versions []version
	for i := range 40 {
		l = l.Append(&Call{ID: fmt.Sprint("c", i)})
		switch {
		case i%5 == 2:
			j := i * 7 % l.Len()
			l = l.Answer(j, &Call{ID: fmt.Sprint("c", j), HasResult: true})
			want, answered = j, true
			require.True(t, l.At(j).HasResult, "Answer replaced call %d", j)
		case i%5 == 4:
			l = l.Set((want+1)%l.Len(), &Call{ID: "set"}) // another call
		case i%5 == 3:
			c := *l.At(want) // a copy of the call answered last, as the reducer changes it
			l = l.Set(want, &c)
		case i == 33:
			l = l.ForgetAnswer()
			answered = false
		}
		got, ok := l.LastAnswer()
		require.Equal(t, answered, ok, "after call %d", i)
		if ok {
			require.Equal(t, want, got, "after call %d", i)
		}
		versions = append(versions, version{l, got, ok})
	}
	for i, v := range versions {
		got, ok := v.l.LastAnswer()
		assert.Equal(t, []any{v.answered, v.ok}, []any{got, ok}, "version %d", i)
	}
	one := CallsOf(&Call{ID: "a"})
	answeredOne := one.Answer(0, &Call{ID: "a", HasResult: true})
	for _, tc := range []struct {
		name string
		l    CallList
		want bool
	}{
		{"one call", one, false},
		{"one call answered", answeredOne, true},
		{"then another", answeredOne.Append(&Call{ID: "b"}), true},
		{"forgotten", answeredOne.ForgetAnswer(), false},
	} {
		i, ok := tc.l.LastAnswer()
		assert.Equal(t, []any{0, tc.want}, []any{i, ok}, tc.name)
	}
	_, ok = one.LastAnswer()
	assert.False(t, ok, "Answer left the list it answered in as it was")
	assert.Same(t, one.At(0), one.ForgetAnswer().At(0), "ForgetAnswer with nothing to forget")
}
