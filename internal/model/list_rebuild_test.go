package model

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestListRebuild drives the list as the reducer does around a
// MESSAGES_SNAPSHOT: ListReset, then the old list (read before the reset)
// re-appended in order (some moved first), some of its ids dropped
// (DropMsgLoc), then new ids
// appended; in between, tool results are inserted after messages (chains
// of insertions, insertions after re-appended ids whose records still
// name an old chain). Every state is kept as a value copy and checked
// again at the end, with the invocation nodes of its time: no later
// operation may change an earlier state's list, Listed, ListNext, ListLen,
// owners or locations.
func TestListRebuild(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type snap struct {
			c      Cold
			nodes  listNodes
			list   []string
			owners map[string]OwnerRec
			locs   map[string]Loc
		}
		ids := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
		c := &Cold{Rest: &Rest{}}
		var nodes listNodes
		var want []string
		owners := map[string]OwnerRec{}
		locs := map[string]Loc{}
		var snaps []snap
		check := func(label string, c *Cold, nodes listNodes, want []string, owners map[string]OwnerRec, locs map[string]Loc) {
			if got := slices.Collect(c.ListAll(nodes.nodes)); !slices.Equal(got, want) {
				t.Fatalf("%s: list %v, want %v", label, got, want)
			}
			var msgs []string
			for l, m := range c.ListMsgs(nodes.nodes) {
				msgs = append(msgs, m.ID)
				if wl, ok := locs[m.ID]; !ok || l != wl {
					t.Fatalf("%s: ListMsgs reads %q at %v; want %v, %v", label, m.ID, l, wl, ok)
				}
			}
			if !slices.Equal(msgs, want) {
				t.Fatalf("%s: ListMsgs %v, want %v", label, msgs, want)
			}
			checkListLocs(t, c, nodes, want)
			// Stopping early after each position stops the iteration (a
			// range-over-func loop panics if it goes on).
			for stop := range want {
				var got []string
				for _, m := range c.ListMsgs(nodes.nodes) {
					got = append(got, m.ID)
					if len(got) == stop+1 {
						break
					}
				}
				if !slices.Equal(got, want[:stop+1]) {
					t.Fatalf("%s: ListMsgs stopped after %d: %v, want %v", label, stop+1, got, want[:stop+1])
				}
			}
			if c.ListLen() != len(want) {
				t.Fatalf("%s: ListLen %d, want %d", label, c.ListLen(), len(want))
			}
			for _, id := range ids {
				i := slices.Index(want, id)
				if c.Listed(id) != (i >= 0) {
					t.Fatalf("%s: Listed(%q) = %v, want %v", label, id, c.Listed(id), i >= 0)
				}
				next, ok := c.ListNext(id, nodes.nodes)
				if wantOK := i >= 0 && i+1 < len(want); ok != wantOK || ok && next != want[i+1] {
					t.Fatalf("%s: ListNext(%q) = %q, %v; list %v", label, id, next, ok, want)
				}
				rec, known := c.MsgOwner(id)
				if o, ok := owners[id]; known != ok || ok && rec != o {
					t.Fatalf("%s: owner of %q: %v, %v; want %v, %v", label, id, rec, known, o, ok)
				}
				l, placed := c.MsgLoc(id)
				if wl, ok := locs[id]; placed != ok || placed && l != wl {
					t.Fatalf("%s: loc of %q: %v, %v; want %v", label, id, l, placed, wl)
				}
			}
		}
		// place puts a message id at the end of one of four nodes, the
		// root among them, and records where it lives.
		place := func(id string, step int) Loc {
			var l Loc
			nodes, l = nodes.place(id, step%4-1)
			locs[id] = l
			return l
		}
		for step := range rapid.IntRange(1, 80).Draw(t, "steps") {
			id := rapid.SampledFrom(ids).Draw(t, fmt.Sprint("id", step))
			switch op := rapid.IntRange(0, 6).Draw(t, fmt.Sprint("op", step)); op {
			case 0, 1: // a new message at the end, maybe with an owner
				if slices.Contains(want, id) {
					continue
				}
				r, _ := c.Msgs.Get(id)
				var o *OwnerRec
				if op == 0 {
					o = &OwnerRec{Owner: Parent, Kind: KindText}
					if step%2 == 0 {
						o.Owner = Owner{Sub: true, ID: "o" + id}
					}
					owners[id] = *o
				}
				c.PutMsg(id, r, o, place(id, step), true, nil, restOf(c))
				want = append(want, id)
			case 2, 3: // a tool result: placed, then inserted after a listed message
				if slices.Contains(want, id) || len(want) == 0 {
					continue
				}
				at := rapid.SampledFrom(want).Draw(t, fmt.Sprint("at", step))
				r, _ := c.Msgs.Get(id)
				o := OwnerRec{Owner: Owner{Sub: true, ID: "t" + id}, Kind: KindTool}
				if op == 2 { // placed and listed in one record update, as toolResult does
					c.PutMsg(id, r, &o, place(id, step), true, &at, restOf(c))
				} else { // placed first, then listed by a second update of its record
					first := place(id, step+1)
					c.PutMsg(id, r, &o, first, false, nil, restOf(c))
					nodes = nodes.remove(first)
					r, _ = c.Msgs.Get(id)
					c.PutMsg(id, r, nil, place(id, step), true, &at, restOf(c))
				}
				owners[id] = o
				i := slices.Index(want, at)
				want = slices.Insert(want, i+1, id)
			case 4: // a snapshot: keep some of the old list in order (some moved first), drop the rest, append new ids
				old := c.ListMsgs(nodes.nodes)
				c.ListReset()
				var kept []string
				for l, m := range old {
					id := m.ID
					if l != locs[id] {
						t.Fatalf("step %d: the list before the reset reads %q at %v, want %v", step, id, l, locs[id])
					}
					if rapid.Bool().Draw(t, fmt.Sprint("keep", step, id)) {
						if rapid.Bool().Draw(t, fmt.Sprint("move", step, id)) { // as a replaced message whose tag changed
							nodes, l = nodes.move(c, id, l, step%4-1)
							locs[id] = l
						}
						c.ListAppend(id, l)
						kept = append(kept, id)
						continue
					}
					nodes = nodes.remove(l)
					c.DropMsgLoc(id)
					delete(locs, id)
					if _, owned := owners[id]; !owned {
						delete(owners, id)
					}
				}
				want = kept
				for _, nid := range ids {
					if !slices.Contains(want, nid) && rapid.IntRange(0, 3).Draw(t, fmt.Sprint("new", step, nid)) == 0 {
						c.SetMsgOwner(nid, OwnerRec{Owner: Owner{Sub: true, ID: "s" + nid}, Kind: KindText, Replayed: true}, restOf(c))
						owners[nid] = OwnerRec{Owner: Owner{Sub: true, ID: "s" + nid}, Kind: KindText, Replayed: true}
						r, _ := c.Msgs.Get(nid)
						c.PutMsg(nid, r, nil, place(nid, step), true, nil, restOf(c))
						want = append(want, nid)
					}
				}
			case 5: // an owner change keeps the rest
				o := OwnerRec{Owner: Owner{Sub: true, ID: "x" + id}, Kind: KindReasoning}
				c.SetMsgOwner(id, o, restOf(c))
				owners[id] = o
			case 6: // a listed message moves to another node
				if !slices.Contains(want, id) {
					continue
				}
				from, _ := c.MsgLoc(id)
				nodes, locs[id] = nodes.move(c, id, from, step%4-1)
			}
			check(fmt.Sprint("step ", step), c, nodes, want, owners, locs)
			// Keep a value copy, as a published view keeps its Cold; the
			// next step changes a private copy.
			snaps = append(snaps, snap{c: *c, nodes: nodes, list: slices.Clone(want), owners: cloneMap(owners), locs: cloneMap(locs)})
			cp := *c
			c = &cp
		}
		for i := range snaps {
			s := &snaps[i]
			check(fmt.Sprint("kept state ", i), &s.c, s.nodes, s.list, s.owners, s.locs)
		}
	})
}

func cloneMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
