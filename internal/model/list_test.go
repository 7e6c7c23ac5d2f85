package model

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestList runs random programs of list operations against the list
// threaded through the message records and against a slice, and checks
// after every step that both hold the same ids in the same order, that
// Listed, ListNext and ListLen agree with the slice, that owners and
// locations recorded for the same ids are kept, and that an iteration
// begun before a change still sees the list as it was.
func TestList(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := &Cold{Rest: &Rest{}}
		var want []string
		owners := map[string]Owner{}
		ids := []string{"", "a", "b", "c", "d", "e", "f", "g", "h"} // "" is an id like any other
		for step := range rapid.IntRange(1, 60).Draw(t, "steps") {
			before, beforeWant := c.ListAll(), slices.Clone(want)
			id := rapid.SampledFrom(ids).Draw(t, fmt.Sprint("id", step))
			switch op := rapid.IntRange(0, 4).Draw(t, fmt.Sprint("op", step)); {
			case op == 0 && !slices.Contains(want, id):
				o := Owner{Sub: true, ID: "sub-" + id}
				r, _ := c.Msgs.Get(id)
				c.PutMsg(id, r, &OwnerRec{Owner: o, Kind: KindText}, Loc{Inv: -1, Pos: step}, true, nil, restOf(c))
				owners[id] = o
				want = append(want, id)
			case op == 1 && !slices.Contains(want, id) && len(want) > 0:
				at := rapid.SampledFrom(want).Draw(t, fmt.Sprint("at", step))
				r, _ := c.Msgs.Get(id)
				c.PutMsg(id, r, nil, Loc{Inv: 0, Pos: step}, true, &at, restOf(c))
				i := slices.Index(want, at)
				want = slices.Insert(want, i+1, id)
			case op == 2 && rapid.IntRange(0, 5).Draw(t, fmt.Sprint("reset", step)) == 0:
				c.ListReset()
				want = nil
			case op == 3:
				o := Owner{ID: ""}
				c.SetMsgOwner(id, OwnerRec{Owner: o, Kind: KindReasoning}, restOf(c))
				owners[id] = o
			case op == 4 && !slices.Contains(want, id):
				c.DropMsgLoc(id)
			}
			if got := slices.Collect(before); !slices.Equal(got, beforeWant) {
				t.Fatalf("an iteration begun before the change saw %v, want %v", got, beforeWant)
			}
			if got := slices.Collect(c.ListAll()); !slices.Equal(got, want) {
				t.Fatalf("list %v, want %v", got, want)
			}
			if c.ListLen() != len(want) {
				t.Fatalf("ListLen %d, want %d", c.ListLen(), len(want))
			}
			for _, id := range ids {
				i := slices.Index(want, id)
				if c.Listed(id) != (i >= 0) {
					t.Fatalf("Listed(%q) = %v, want %v", id, c.Listed(id), i >= 0)
				}
				next, ok := c.ListNext(id)
				if wantOK := i >= 0 && i+1 < len(want); ok != wantOK || ok && next != want[i+1] {
					t.Fatalf("ListNext(%q) = %q, %v", id, next, ok)
				}
				if o, known := owners[id]; known {
					if rec, ok := c.MsgOwner(id); !ok || rec.Owner != o {
						t.Fatalf("owner of %q: %v, %v; want %v", id, rec, ok, o)
					}
				}
			}
		}
	})
}

// TestListGenerationsWrap: when the generations of ListReset are used up,
// no record listed in an older generation reads as listed again.
func TestListGenerationsWrap(t *testing.T) {
	c := &Cold{Rest: &Rest{}}
	c.List.gen = math.MaxUint32 - 1
	for _, id := range []string{"a", "b"} {
		r, _ := c.Msgs.Get(id)
		c.PutMsg(id, r, nil, Loc{Inv: -1}, true, nil, restOf(c))
	}
	c.ListReset() // gen MaxUint32
	r, _ := c.Msgs.Get("a")
	c.PutMsg("a", r, nil, Loc{Inv: -1}, true, nil, restOf(c))
	c.ListReset() // wraps to generation 0
	// The resets in between change nothing but the generation: jump to the
	// one "b" was listed in.
	c.List.gen = math.MaxUint32 - 1
	if c.Listed("a") || c.Listed("b") {
		t.Fatalf("a record listed before the generations wrapped reads as listed: a %v, b %v", c.Listed("a"), c.Listed("b"))
	}
	if got := slices.Collect(c.ListAll()); len(got) != 0 {
		t.Fatalf("list %v, want empty", got)
	}
}

// callsOf returns the calls function SetCallOwner takes, for a test that
// keeps earlier versions of c: it copies c's Calls on every call, as the
// reducer copies it once per fold.
func callsOf(c *Cold) func() *Calls {
	return func() *Calls {
		x := *c.Calls
		c.Calls = &x
		return c.Calls
	}
}

// restOf returns the rest function PutMsg and SetMsgOwner take, for a test
// that keeps earlier versions of c: it copies c's Rest on every call, as
// the reducer copies it once per fold.
func restOf(c *Cold) func() *Rest {
	return func() *Rest {
		r := *c.Rest
		c.Rest = &r
		return c.Rest
	}
}
