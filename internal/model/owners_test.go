package model

import (
	"fmt"
	"testing"
)

// TestOwnerTable: the owners recorded for messages and tool calls read back
// exactly as recorded (the parent agent, a subagent whose id is empty, ids
// no invocation node has), after the message leaves its invocation and the
// list is rebuilt, and a state copied before an owner was first recorded
// does not see it.
func TestOwnerTable(t *testing.T) {
	owners := []Owner{Parent, {Sub: true, ID: ""}, {Sub: true, ID: "a"}, {Sub: true, ID: "b"}, {Sub: true, ID: "a"}}
	c := &Cold{Rest: &Rest{}, Calls: &Calls{}}
	var before []Cold
	var tableLen []int
	for i, o := range owners {
		before, tableLen = append(before, *c), append(tableLen, ownerCount(c))
		id := fmt.Sprint("m", i)
		rec := OwnerRec{Owner: o, Kind: KindText, Replayed: i%2 == 1}
		if i%2 == 0 {
			c.PutMsg(id, MsgRec{}, &rec, Loc{Inv: i, Pos: i}, true, nil, restOf(c))
		} else {
			c.SetMsgOwner(id, rec, restOf(c))
		}
		c.SetCallOwner(fmt.Sprint("c", i), o, callsOf(c), restOf(c))
	}
	c.ListReset()
	for i := range owners {
		c.DropMsgLoc(fmt.Sprint("m", i))
	}
	for i, o := range owners {
		want := OwnerRec{Owner: o, Kind: KindText, Replayed: i%2 == 1}
		if got, ok := c.MsgOwner(fmt.Sprint("m", i)); !ok || got != want {
			t.Errorf("message m%d: owner %+v, %v; want %+v", i, got, ok, want)
		}
		if got, ok := c.CallOwner(fmt.Sprint("c", i)); !ok || got != o {
			t.Errorf("call c%d: owner %+v, %v; want %+v", i, got, ok, o)
		}
		if _, ok := before[i].MsgOwner(fmt.Sprint("m", i)); ok {
			t.Errorf("a state copied before message m%d's owner was recorded has it", i)
		}
		if _, ok := before[i].CallOwner(fmt.Sprint("c", i)); ok {
			t.Errorf("a state copied before call c%d's owner was recorded has it", i)
		}
		if n := ownerCount(&before[i]); n != tableLen[i] {
			t.Errorf("the owner table of a state copied before m%d grew from %d ids to %d", i, tableLen[i], n)
		}
	}
	// Parent takes no entry; "", "a" and "b" take one each, however often
	// they are recorded.
	if n := ownerCount(c); n != 3 {
		t.Errorf("the owner table holds %d ids, want 3", n)
	}
	if got, ok := c.CallOwner("none"); ok || got != Parent {
		t.Errorf("an unrecorded call's owner is %+v, %v; want the zero Owner, false", got, ok)
	}
}

func ownerCount(c *Cold) int {
	if c.Rest.owners == nil {
		return 0
	}
	return c.Rest.owners.ids.Len()
}
