package model

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCallRecords: a call's owner and where it is held live in one record;
// UnholdCalls forgets every holder and answer and keeps the owners, also
// when the generations wrap; a state copied earlier reads as it was.
func TestCallRecords(t *testing.T) {
	c := &Cold{Rest: &Rest{}, Calls: &Calls{}}
	calls := callsOf(c)
	sub := Owner{Sub: true, ID: "s"}
	c.SetCallOwner("x", sub, calls, restOf(c))
	c.HoldCall("x", "m", 3, calls)
	c.HoldCall("y", "m", 4, calls) // held, no owner recorded
	before := *c
	c.SetCallAnswered("x", calls)
	c.SetCallAnswered("z", calls) // held nowhere: nothing to record

	holder, idx, ok := c.CallHolder("x")
	assert.Equal(t, []any{"m", 3, true}, []any{holder, idx, ok})
	assert.True(t, c.CallAnswered("x", "m", 3))
	assert.False(t, c.CallAnswered("x", "n", 3), "another holder")
	assert.False(t, c.CallAnswered("x", "m", 2), "another index")
	assert.False(t, c.CallAnswered("y", "m", 4), "not answered")
	assert.False(t, before.CallAnswered("x", "m", 3), "a state copied before the answer")
	_, ok = c.CallOwner("y")
	assert.False(t, ok, "y has no owner")
	_, _, ok = c.CallHolder("z")
	assert.False(t, ok)

	for _, gen := range []uint32{0, math.MaxUint32 - 1, math.MaxUint32} {
		t.Run(fmt.Sprint("gen ", gen), func(t *testing.T) {
			c := &Cold{Rest: before.Rest, Calls: &Calls{}}
			calls := callsOf(c)
			c.Calls.gen = gen
			c.SetCallOwner("x", sub, calls, restOf(c))
			c.HoldCall("x", "m", 3, calls)
			c.SetCallAnswered("x", calls)
			held := *c
			c.UnholdCalls(calls)
			_, _, ok := c.CallHolder("x")
			assert.False(t, ok, "held after UnholdCalls")
			assert.False(t, c.CallAnswered("x", "m", 3), "answered after UnholdCalls")
			o, ok := c.CallOwner("x")
			assert.Equal(t, []any{sub, true}, []any{o, ok}, "the owner stays")
			_, _, ok = held.CallHolder("x")
			assert.True(t, ok, "a state copied before UnholdCalls")
			// Held again: by the same message, but not answered.
			c.HoldCall("x", "m", 3, calls)
			holder, idx, ok := c.CallHolder("x")
			assert.Equal(t, []any{"m", 3, true}, []any{holder, idx, ok})
			assert.False(t, c.CallAnswered("x", "m", 3), "an answer before UnholdCalls")
			if gen == math.MaxUint32-1 {
				// Up to the last generation and past it: a record held in
				// generation 0 long ago must not read as held after the wrap.
				c.Calls.gen = 0
				c.HoldCall("old", "m", 0, calls)
				c.Calls.gen = math.MaxUint32
				c.UnholdCalls(calls)
				require.Zero(t, c.Calls.gen)
				_, _, ok = c.CallHolder("old")
				assert.False(t, ok, "a record of generation 0 held after the generations wrapped")
			}
		})
	}
}
