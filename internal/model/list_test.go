package model

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/agview/agview/event"
)

// TestList runs random programs of list operations against the list
// threaded through the message records and against a slice, and checks
// after every step that both hold the same ids in the same order, that
// Listed, ListNext and ListLen agree with the slice, that every listed
// message lives where its record says, that owners recorded for the same
// ids are kept, and that an iteration begun before a change still sees the
// list as it was.
func TestList(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := &Cold{Rest: &Rest{}}
		var nodes listNodes
		var want []string
		owners := map[string]Owner{}
		ids := []string{"", "a", "b", "c", "d", "e", "f", "g", "h"} // "" is an id like any other
		for step := range rapid.IntRange(1, 60).Draw(t, "steps") {
			before, beforeWant := c.ListAll(nodes.nodes), slices.Clone(want)
			id := rapid.SampledFrom(ids).Draw(t, fmt.Sprint("id", step))
			switch op := rapid.IntRange(0, 5).Draw(t, fmt.Sprint("op", step)); {
			case op == 0 && !slices.Contains(want, id):
				o := Owner{Sub: true, ID: "sub-" + id}
				r, _ := c.Msgs.Get(id)
				var l Loc
				nodes, l = nodes.place(id, -1)
				c.PutMsg(id, r, &OwnerRec{Owner: o, Kind: KindText}, l, true, nil, restOf(c))
				owners[id] = o
				want = append(want, id)
			case op == 1 && !slices.Contains(want, id) && len(want) > 0:
				at := rapid.SampledFrom(want).Draw(t, fmt.Sprint("at", step))
				r, _ := c.Msgs.Get(id)
				var l Loc
				nodes, l = nodes.place(id, 0)
				c.PutMsg(id, r, nil, l, true, &at, restOf(c))
				i := slices.Index(want, at)
				want = slices.Insert(want, i+1, id)
			case op == 2 && rapid.IntRange(0, 5).Draw(t, fmt.Sprint("reset", step)) == 0:
				// A snapshot that keeps none of the list: every message of
				// it is dropped, with where the list says it lives.
				old := c.ListMsgs(nodes.nodes)
				c.ListReset()
				for l, m := range old {
					nodes = nodes.remove(l)
					c.DropMsgLoc(m.ID)
				}
				want = nil
			case op == 3:
				o := Owner{ID: ""}
				c.SetMsgOwner(id, OwnerRec{Owner: o, Kind: KindReasoning}, restOf(c))
				owners[id] = o
			case op == 4 && !slices.Contains(want, id):
				if l, ok := c.MsgLoc(id); ok {
					nodes = nodes.remove(l)
				}
				c.DropMsgLoc(id)
			case op == 5: // a placed message moves to another node, listed or not
				if from, ok := c.MsgLoc(id); ok {
					key := rapid.IntRange(-1, 2).Draw(t, fmt.Sprint("to", step))
					nodes, _ = nodes.move(c, id, from, key)
				}
			}
			if got := slices.Collect(before); !slices.Equal(got, beforeWant) {
				t.Fatalf("an iteration begun before the change saw %v, want %v", got, beforeWant)
			}
			if got := slices.Collect(c.ListAll(nodes.nodes)); !slices.Equal(got, want) {
				t.Fatalf("list %v, want %v", got, want)
			}
			checkListLocs(t, c, nodes, want)
			if c.ListLen() != len(want) {
				t.Fatalf("ListLen %d, want %d", c.ListLen(), len(want))
			}
			for _, id := range ids {
				i := slices.Index(want, id)
				if c.Listed(id) != (i >= 0) {
					t.Fatalf("Listed(%q) = %v, want %v", id, c.Listed(id), i >= 0)
				}
				next, ok := c.ListNext(id, nodes.nodes)
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

// checkListLocs asserts the list's invariant: every listed message is
// placed, and the list reads it where its record says it lives, with the
// id it is listed under.
func checkListLocs(t interface{ Fatalf(string, ...any) }, c *Cold, nodes listNodes, want []string) {
	i := 0
	for l, m := range c.ListMsgs(nodes.nodes) {
		if i >= len(want) {
			t.Fatalf("ListMsgs yields %q at %v past the list's end %v", m.ID, l, want)
		}
		id := want[i]
		rl, placed := c.MsgLoc(id)
		switch {
		case !placed:
			t.Fatalf("listed message %q is placed nowhere", id)
		case m.ID != id || l != rl:
			t.Fatalf("ListMsgs yields %q at %v for %q, which lives at %v", m.ID, l, id, rl)
		}
		i++
	}
	if i != len(want) {
		t.Fatalf("ListMsgs yields %d messages, want %d: %v", i, len(want), want)
	}
}

// TestListMoves: a listed message that moves to another node (PutMsg
// without list, as folder.update does when a replacing ACTIVITY_SNAPSHOT
// changes its owner) stays where it is in the list and is read where it
// now lives, whether it was appended or inserted after another message, and
// a state copied before the move still reads it where it lived.
func TestListMoves(t *testing.T) {
	for _, tc := range []struct {
		name string
		move string
		want []string
	}{
		{"appended, first", "a", []string{"a", "r1", "r2", "b", "c"}},
		{"appended, last", "c", []string{"a", "r1", "r2", "b", "c"}},
		{"appended, heads a chain", "b", []string{"a", "r1", "r2", "b", "c"}},
		{"inserted, first of a chain", "r1", []string{"a", "r1", "r2", "b", "c"}},
		{"inserted, last of a chain", "r2", []string{"a", "r1", "r2", "b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Cold{Rest: &Rest{}}
			var nodes listNodes
			put := func(id string, after *string) {
				var l Loc
				nodes, l = nodes.place(id, -1)
				c.PutMsg(id, MsgRec{}, nil, l, true, after, restOf(c))
			}
			put("a", nil)
			put("b", nil)
			put("c", nil)
			a, r1 := "a", "r1"
			put("r1", &a)
			put("r2", &r1)
			before, beforeNodes := *c, nodes
			from, _ := c.MsgLoc(tc.move)
			nodes, _ = nodes.move(c, tc.move, from, 1)
			to, _ := c.MsgLoc(tc.move)
			if to == from || to.Inv != 1 {
				t.Fatalf("%s moved from %v to %v, want to node 1", tc.move, from, to)
			}
			if got := slices.Collect(c.ListAll(nodes.nodes)); !slices.Equal(got, tc.want) {
				t.Fatalf("list after moving %s: %v, want %v", tc.move, got, tc.want)
			}
			checkListLocs(t, c, nodes, tc.want)
			for i, id := range tc.want {
				next, ok := c.ListNext(id, nodes.nodes)
				if wantOK := i+1 < len(tc.want); ok != wantOK || ok && next != tc.want[i+1] {
					t.Fatalf("ListNext(%q) = %q, %v after moving %s", id, next, ok, tc.move)
				}
			}
			if l, _ := before.MsgLoc(tc.move); l != from {
				t.Fatalf("the state copied before the move locates %s at %v, want %v", tc.move, l, from)
			}
			checkListLocs(t, &before, beforeNodes, tc.want)
		})
	}
}

// TestListMoveAfterReset: a message listed before a ListReset (its record
// of an older generation still names an anchor) that moves changes nothing
// in the new list, whatever the new list holds at that anchor, and lists
// where it now lives when it is appended again, as MESSAGES_SNAPSHOT
// re-lists the messages it keeps.
func TestListMoveAfterReset(t *testing.T) {
	c := &Cold{Rest: &Rest{}}
	var nodes listNodes
	var a, b Loc
	nodes, a = nodes.place("a", -1)
	c.PutMsg("a", MsgRec{}, nil, a, true, nil, restOf(c))
	nodes, b = nodes.place("b", -1)
	c.PutMsg("b", MsgRec{}, nil, b, true, nil, restOf(c))
	c.ListReset()
	var l Loc
	nodes, l = nodes.place("x", 0)
	c.PutMsg("x", MsgRec{}, nil, l, true, nil, restOf(c)) // at a's old anchor, 0
	nodes, a = nodes.move(c, "a", a, 1)                   // a's old anchor is x's
	nodes, b = nodes.move(c, "b", b, 1)                   // b's old anchor is past the list's end
	if got := slices.Collect(c.ListAll(nodes.nodes)); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("list %v after moving messages of an older generation, want [x]", got)
	}
	checkListLocs(t, c, nodes, []string{"x"})
	for id, want := range map[string]Loc{"a": a, "b": b} {
		if got, ok := c.MsgLoc(id); !ok || got != want {
			t.Fatalf("%s, moved after the reset, lives at %v, %v; want %v", id, got, ok, want)
		}
	}
	c.ListAppend("b", b)
	c.ListAppend("a", a)
	want := []string{"x", "b", "a"}
	if got := slices.Collect(c.ListAll(nodes.nodes)); !slices.Equal(got, want) {
		t.Fatalf("list %v after appending the moved messages again, want %v", got, want)
	}
	checkListLocs(t, c, nodes, want)
}

// TestListGenerationsWrap: when the generations of ListReset are used up,
// no record listed in an older generation reads as listed again.
func TestListGenerationsWrap(t *testing.T) {
	c := &Cold{Rest: &Rest{}}
	var nodes listNodes
	c.List.gen = math.MaxUint16 - 1
	var a Loc
	for _, id := range []string{"a", "b"} {
		var l Loc
		nodes, l = nodes.place(id, -1)
		c.PutMsg(id, MsgRec{}, nil, l, true, nil, restOf(c))
		if id == "a" {
			a = l
		}
	}
	c.ListReset() // gen MaxUint16
	c.ListAppend("a", a)
	c.ListReset() // wraps to generation 0
	// The resets in between change nothing but the generation: jump to the
	// one "b" was listed in.
	c.List.gen = math.MaxUint16 - 1
	if c.Listed("a") || c.Listed("b") {
		t.Fatalf("a record listed before the generations wrapped reads as listed: a %v, b %v", c.Listed("a"), c.Listed("b"))
	}
	if got := slices.Collect(c.ListAll(nodes.nodes)); len(got) != 0 {
		t.Fatalf("list %v, want empty", got)
	}
	// A move of a record unlisted by the wrap leaves the list alone.
	nodes, _ = nodes.move(c, "a", a, 0)
	if got := slices.Collect(c.ListAll(nodes.nodes)); len(got) != 0 {
		t.Fatalf("list %v after a move, want empty", got)
	}
}

// listNodes are the invocation nodes of a list test (key → node; -1 is the
// root): the messages a test places, each at the end of a node as the
// reducer places them (AppendMsg on a private copy), so that the list reads
// their ids where they live. A listNodes is never written: place, remove
// and move return a changed copy, so that a test can check an earlier state
// against the nodes of its time.
type listNodes map[int]*Inv

// nodes is the Nodes the list readers take.
func (n listNodes) nodes(key int) *InvData {
	if i := n[key]; i != nil {
		return i.Data()
	}
	return &InvData{Key: int32(key)}
}

// place returns n with a message id at the end of node key, and where it
// lives.
func (n listNodes) place(id string, key int) (listNodes, Loc) {
	c := maps.Clone(n)
	if c == nil {
		c = listNodes{}
	}
	i := &Inv{d: InvData{Key: int32(key)}}
	if old := n[key]; old != nil {
		i = old.Clone()
	}
	pos := i.Data().AppendMsg(NewMsg(id, event.RoleUser, nil))
	c[key] = i
	return c, Loc{Inv: key, Pos: pos}
}

// remove returns n with a hole where the message at l was.
func (n listNodes) remove(l Loc) listNodes {
	c := maps.Clone(n)
	i := n[l.Inv].Clone()
	i.SetMsg(l.Pos, nil)
	c[l.Inv] = i
	return c
}

// move moves message id, which lives at from, to the end of node key as
// folder.update does (a hole where it was, then PutMsg without list), and
// returns the nodes changed and where it now lives.
func (n listNodes) move(c *Cold, id string, from Loc, key int) (listNodes, Loc) {
	r, _ := c.Msgs.Get(id)
	n, to := n.remove(from).place(id, key)
	c.PutMsg(id, r, nil, to, false, nil, restOf(c))
	return n, to
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

// TestListRareStaysEmpty: what few messages need (List.rare: the messages
// inserted after others, where they live) holds nothing for a message
// that no longer needs it, so that it costs nothing per message of a
// stream: a message inserted after the last one is appended (the common
// tool result, right after the call it answers); an inserted message that
// a rebuild of the list appends again or drops leaves no entry behind.
func TestListRareStaysEmpty(t *testing.T) {
	for _, tc := range []struct {
		name string
		// run builds the list with put (after nil: at the end), and may
		// reset it and append or drop messages with again and drop.
		run  func(put func(id string, after *string), reset func(), again, drop func(id string))
		want []string
	}{
		{"inserted after the last message", func(put func(string, *string), _ func(), _, _ func(string)) {
			a, r1 := "a", "r1"
			put("a", nil)
			put("r1", &a)
			put("r2", &r1)
		}, []string{"a", "r1", "r2"}},
		{"inserted ones appended again after a reset", func(put func(string, *string), reset func(), again, _ func(string)) {
			a, r1 := "a", "r1"
			put("a", nil)
			put("b", nil)
			put("r1", &a)
			put("r2", &r1)
			reset()
			for _, id := range []string{"a", "r1", "r2", "b"} {
				again(id)
			}
		}, []string{"a", "r1", "r2", "b"}},
		{"inserted ones dropped after a reset", func(put func(string, *string), reset func(), again, drop func(string)) {
			a := "a"
			put("a", nil)
			put("b", nil)
			put("r1", &a)
			reset()
			again("a")
			drop("r1")
			again("b")
		}, []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Cold{Rest: &Rest{}}
			var nodes listNodes
			locs := map[string]Loc{}
			put := func(id string, after *string) {
				var l Loc
				nodes, l = nodes.place(id, -1)
				locs[id] = l
				c.PutMsg(id, MsgRec{}, &OwnerRec{Kind: KindText}, l, true, after, restOf(c))
			}
			again := func(id string) { c.ListAppend(id, locs[id]) }
			drop := func(id string) {
				nodes = nodes.remove(locs[id])
				c.DropMsgLoc(id)
			}
			tc.run(put, c.ListReset, again, drop)
			if got := slices.Collect(c.ListAll(nodes.nodes)); !slices.Equal(got, tc.want) {
				t.Fatalf("list %v, want %v", got, tc.want)
			}
			checkListLocs(t, c, nodes, tc.want)
			if r := c.List.rare; r != nil && (r.locs.Len() != 0 || r.after.Len() != 0) {
				t.Fatalf("List.rare holds %d locations and %d successors, want none: no message needs one",
					r.locs.Len(), r.after.Len())
			}
		})
	}
}

// TestListGenerationsWrapByResets drives the list's 16-bit generation
// through a wrap with ListReset alone: a record listed and then dropped
// (DropMsgLoc keeps its owner, and its listing of an old generation) must
// not read as listed when the generation comes round to the one it was
// listed in, nor move the list's locations when it moves; a record listed
// in the last generation before the wrap is listed again afterwards.
func TestListGenerationsWrapByResets(t *testing.T) {
	c := &Cold{Rest: &Rest{}}
	var nodes listNodes
	owner := &OwnerRec{Owner: Parent, Kind: KindText}
	nodes, a := nodes.place("a", -1)
	c.PutMsg("a", MsgRec{}, owner, a, true, nil, restOf(c)) // generation 0
	c.ListReset()
	c.DropMsgLoc("a")
	for c.List.gen != math.MaxUint16 {
		c.ListReset()
	}
	nodes, b := nodes.place("b", -1)
	c.PutMsg("b", MsgRec{}, owner, b, true, nil, restOf(c)) // the last generation
	c.ListReset()                                           // wraps to generation 0
	require.Zero(t, c.List.gen)
	require.False(t, c.Listed("a"), "a record listed in generation 0 before the wrap reads as listed after it")
	require.False(t, c.Listed("b"), "a record listed before the wrap reads as listed after it")
	_, placed := c.MsgLoc("a")
	require.False(t, placed, "the dropped record lives somewhere")
	nodes, _ = nodes.move(c, "a", a, 0)
	require.Empty(t, slices.Collect(c.ListAll(nodes.nodes)), "a move of a stale record changed the list")
	c.ListAppend("b", b)
	require.True(t, c.Listed("b"))
	require.Equal(t, []string{"b"}, slices.Collect(c.ListAll(nodes.nodes)))
	rec, _ := c.MsgOwner("a")
	require.Equal(t, *owner, rec, "the wrap keeps the owners")
}
