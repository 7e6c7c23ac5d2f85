package model

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCallRecords: a call's owner and where it is held live in one record;
// HoldCall records the owner with the holder or keeps the one recorded;
// UnholdCalls forgets every holder and keeps the owners, also when the
// generations wrap; a state copied earlier reads as it was.
func TestCallRecords(t *testing.T) {
	sub, other := Owner{Sub: true, ID: "s"}, Owner{Sub: true, ID: "o"}
	c := &Cold{Rest: &Rest{}, Calls: &Calls{}}
	calls, rest := callsOf(c), restOf(c)
	c.SetCallOwner("x", sub, calls, rest)
	before := *c
	c.HoldCall("x", "m", 3, nil, calls, rest)   // keeps the owner
	c.HoldCall("y", "m", 4, nil, calls, rest)   // held, no owner
	c.HoldCall("z", "", 0, &other, calls, rest) // held by the message "", with an owner

	for _, tc := range []struct {
		id     string
		holder string
		idx    int
		held   bool
		owner  Owner
		owned  bool
	}{
		{"x", "m", 3, true, sub, true},
		{"y", "m", 4, true, Owner{}, false},
		{"z", "", 0, true, other, true},
		{"none", "", 0, false, Owner{}, false},
	} {
		holder, idx, held := c.CallHolder(tc.id)
		assert.Equal(t, []any{tc.holder, tc.idx, tc.held}, []any{holder, idx, held}, "%s's holder", tc.id)
		o, owned := c.CallOwner(tc.id)
		assert.Equal(t, []any{tc.owner, tc.owned}, []any{o, owned}, "%s's owner", tc.id)
	}
	copies := 0
	counted := func() *Calls { copies++; return calls() }
	c.SetCallOwner("x", sub, counted, rest)
	c.SetCallOwner("z", other, counted, rest)
	assert.Zero(t, copies, "the owners recorded already, recorded again")
	c.SetCallOwner("y", sub, counted, rest)
	assert.Equal(t, 1, copies, "a new owner")
	o, _ := c.CallOwner("y")
	assert.Equal(t, sub, o)
	_, _, held := before.CallHolder("x")
	assert.False(t, held, "a state copied before x was held")
	_, owned := before.CallOwner("z")
	assert.False(t, owned, "a state copied before z's owner was recorded")

	for _, gen := range []uint32{0, math.MaxUint32 - 1, math.MaxUint32} {
		t.Run(fmt.Sprint("gen ", gen), func(t *testing.T) {
			c := &Cold{Rest: before.Rest, Calls: &Calls{}}
			calls, rest := callsOf(c), restOf(c)
			c.Calls.gen = gen
			c.HoldCall("x", "m", 3, &sub, calls, rest)
			held := *c
			c.UnholdCalls(calls)
			_, _, ok := c.CallHolder("x")
			assert.False(t, ok, "held after UnholdCalls")
			o, ok := c.CallOwner("x")
			assert.Equal(t, []any{sub, true}, []any{o, ok}, "the owner stays")
			_, _, ok = held.CallHolder("x")
			assert.True(t, ok, "a state copied before UnholdCalls")
			c.HoldCall("x", "n", 1, nil, calls, rest)
			holder, idx, ok := c.CallHolder("x")
			assert.Equal(t, []any{"n", 1, true}, []any{holder, idx, ok}, "held again")
			if gen == math.MaxUint32-1 {
				// Up to the last generation and past it: a record held in
				// generation 0 long ago must not read as held after the wrap.
				c.Calls.gen = 0
				c.HoldCall("old", "m", 0, nil, calls, rest)
				c.Calls.gen = math.MaxUint32
				c.UnholdCalls(calls)
				require.Zero(t, c.Calls.gen)
				_, _, ok = c.CallHolder("old")
				assert.False(t, ok, "a record of generation 0 held after the generations wrapped")
			}
		})
	}
}
