package model

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestListRebuild drives the list as the reducer does around a
// MESSAGES_SNAPSHOT: ListReset, then the old list (read before the reset)
// re-appended in order, some of its ids dropped (DropMsgLoc), then new ids
// appended; in between, tool results are inserted after messages (chains
// of insertions, insertions after re-appended ids whose records still
// name an old chain). Every state is kept as a value copy and checked
// again at the end: no later operation may change an earlier state's list,
// Listed, ListNext, ListLen, owners or locations.
func TestListRebuild(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type snap struct {
			c      Cold
			list   []string
			owners map[string]OwnerRec
			locs   map[string]Loc
		}
		ids := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
		c := &Cold{Rest: &Rest{}}
		var want []string
		owners := map[string]OwnerRec{}
		locs := map[string]Loc{}
		var snaps []snap
		check := func(label string, c *Cold, want []string, owners map[string]OwnerRec, locs map[string]Loc) {
			if got := slices.Collect(c.ListAll()); !slices.Equal(got, want) {
				t.Fatalf("%s: list %v, want %v", label, got, want)
			}
			var recs []string
			for id, r := range c.ListRecs() {
				recs = append(recs, id)
				if l, ok := r.Loc(); ok != (locs[id] != Loc{}) || ok && l != locs[id] {
					t.Fatalf("%s: ListRecs record of %q at %v, %v; want %v", label, id, l, ok, locs[id])
				}
			}
			if !slices.Equal(recs, want) {
				t.Fatalf("%s: ListRecs %v, want %v", label, recs, want)
			}
			// Stopping early after each position stops the iteration (a
			// range-over-func loop panics if it goes on).
			for stop := range want {
				var got []string
				for id := range c.ListRecs() {
					got = append(got, id)
					if len(got) == stop+1 {
						break
					}
				}
				if !slices.Equal(got, want[:stop+1]) {
					t.Fatalf("%s: ListRecs stopped after %d: %v, want %v", label, stop+1, got, want[:stop+1])
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
				next, ok := c.ListNext(id)
				if wantOK := i >= 0 && i+1 < len(want); ok != wantOK || ok && next != want[i+1] {
					t.Fatalf("%s: ListNext(%q) = %q, %v; list %v", label, id, next, ok, want)
				}
				rec, known := c.MsgOwner(id)
				if o, ok := owners[id]; known != ok || ok && rec != o {
					t.Fatalf("%s: owner of %q: %v, %v; want %v, %v", label, id, rec, known, o, ok)
				}
				l, placed := c.MsgLoc(id)
				if wl := locs[id]; placed != (wl != Loc{}) || placed && l != wl {
					t.Fatalf("%s: loc of %q: %v, %v; want %v", label, id, l, placed, wl)
				}
			}
		}
		loc := func(step int) Loc { return Loc{Inv: step % 3, Pos: step + 1} } // never the zero Loc
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
				c.PutMsg(id, r, o, loc(step), true, nil, restOf(c))
				locs[id] = loc(step)
				want = append(want, id)
			case 2, 3: // a tool result: placed, then inserted after a listed message
				if slices.Contains(want, id) || len(want) == 0 {
					continue
				}
				at := rapid.SampledFrom(want).Draw(t, fmt.Sprint("at", step))
				r, _ := c.Msgs.Get(id)
				o := OwnerRec{Owner: Owner{Sub: true, ID: "t" + id}, Kind: KindTool}
				if op == 2 { // placed and listed in one record update, as toolResult does
					c.PutMsg(id, r, &o, loc(step), true, &at, restOf(c))
				} else { // placed first, then listed by a second update of its record
					c.PutMsg(id, r, &o, Loc{Inv: 7, Pos: 7}, false, nil, restOf(c))
					r, _ = c.Msgs.Get(id)
					c.PutMsg(id, r, nil, loc(step), true, &at, restOf(c))
				}
				owners[id], locs[id] = o, loc(step)
				i := slices.Index(want, at)
				want = slices.Insert(want, i+1, id)
			case 4: // a snapshot: keep some of the old list in order, drop the rest, append new ids
				old := c.ListAll()
				c.ListReset()
				var kept []string
				for id := range old {
					if rapid.Bool().Draw(t, fmt.Sprint("keep", step, id)) {
						c.ListAppend(id)
						kept = append(kept, id)
						continue
					}
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
						c.PutMsg(nid, r, nil, loc(step), true, nil, restOf(c))
						locs[nid] = loc(step)
						want = append(want, nid)
					}
				}
			case 5: // an owner change keeps the rest
				o := OwnerRec{Owner: Owner{Sub: true, ID: "x" + id}, Kind: KindReasoning}
				c.SetMsgOwner(id, o, restOf(c))
				owners[id] = o
			case 6: // a message moves to another node
				if !slices.Contains(want, id) {
					continue
				}
				r, _ := c.Msgs.Get(id)
				c.PutMsg(id, r, nil, loc(step+1000), false, nil, restOf(c))
				locs[id] = loc(step + 1000)
			}
			check(fmt.Sprint("step ", step), c, want, owners, locs)
			// Keep a value copy, as a published view keeps its Cold; the
			// next step changes a private copy.
			snaps = append(snaps, snap{c: *c, list: slices.Clone(want), owners: cloneMap(owners), locs: cloneMap(locs)})
			cp := *c
			c = &cp
		}
		for i := range snaps {
			s := &snaps[i]
			check(fmt.Sprint("kept state ", i), &s.c, s.list, s.owners, s.locs)
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
