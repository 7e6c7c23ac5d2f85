package model

import (
	"encoding/json"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/patch"
)

// TestLocVectorCompact: a full chunk compacts to a run only when its
// locations are one node's positions going up one by one; any other full
// chunk compacts to an exact array of its own. Either way it reads back as
// it was written.
func TestLocVectorCompact(t *testing.T) {
	for _, tc := range []struct {
		name string
		loc  func(k int32) packedLoc
		run  bool
	}{
		{"one node's positions one by one", func(k int32) packedLoc { return packedLoc{inv: 2, pos: 7 + k} }, true},
		{"the root's positions one by one", func(k int32) packedLoc { return packedLoc{inv: -1, pos: k} }, true},
		{"positions going on in another node", func(k int32) packedLoc { return packedLoc{inv: k / 16, pos: k} }, false},
		{"the last location in another node", func(k int32) packedLoc { return packedLoc{inv: k / 31, pos: k} }, false},
		{"a gap in the positions", func(k int32) packedLoc { return packedLoc{inv: 0, pos: k + k/20} }, false},
		{"positions going down", func(k int32) packedLoc { return packedLoc{inv: 0, pos: 100 - k} }, false},
		{"one position repeated", func(int32) packedLoc { return packedLoc{inv: 0, pos: 3} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v locVector
			var want []packedLoc
			for k := range int32(locChunkLen) {
				v, want = v.Append(tc.loc(k)), append(want, tc.loc(k))
			}
			full := v
			next := packedLoc{inv: 5, pos: 0}
			v, want = v.Append(next), append(want, next)
			checkLocVector(t, v, want)
			checkLocVector(t, full, want[:locChunkLen])
			c := v.chunks.At(0)
			require.Nil(t, c.growing, "the full chunk is still growing")
			require.Equal(t, !tc.run, c.full != nil, "the full chunk has an array of its own")
		})
	}
}

// TestLocVectorClaimsAfterCopy: a version whose growing chunk is its own
// copy (a fork that lost the claim of the next slot, or a Set into the
// growing chunk) appends in place into that copy, not into yet another one:
// appending stays O(1) amortised on a line of versions that forked once.
func TestLocVectorClaimsAfterCopy(t *testing.T) {
	var base locVector
	var want []packedLoc
	for k := range int32(40) {
		base, want = base.Append(packedLoc{pos: k}), append(want, packedLoc{pos: k})
	}
	l := func(pos int32) packedLoc { return packedLoc{inv: 1, pos: pos} }
	a := base.Append(l(0)) // claims slot 8 of the growing chunk
	b := base.Append(l(1)) // copies the chunk
	b2 := b.Append(l(2))   // claims in b's copy
	s := a.Set(38, l(3))   // a growing chunk of s's own
	s2 := s.Append(l(4))   // claims in s's
	growing := func(v locVector) *locGrowing { return v.chunks.At(1).growing }
	require.Same(t, growing(base), growing(a), "the first fork claims in place")
	require.NotSame(t, growing(base), growing(b), "the second fork copies")
	require.Same(t, growing(b), growing(b2), "after its copy, the fork claims in place")
	require.NotSame(t, growing(a), growing(s), "Set copies the growing chunk")
	require.Same(t, growing(s), growing(s2), "after Set's copy, the version claims in place")
	checkLocVector(t, base, want)
	checkLocVector(t, a, append(slices.Clone(want), l(0)))
	checkLocVector(t, b2, append(slices.Clone(want), l(1), l(2)))
	ws := append(slices.Clone(want), l(0), l(4))
	ws[38] = l(3)
	checkLocVector(t, s2, ws)
}

// TestLocVectorConcurrentSetAndAppend forks one version from several
// goroutines that set locations of its growing chunk and of a compacted one
// while others append to it, claiming the growing chunk's next slots: no
// version sees another's writes. Run under -race.
func TestLocVectorConcurrentSetAndAppend(t *testing.T) {
	var base locVector
	for k := range int32(50) {
		base = base.Append(packedLoc{pos: k})
	}
	baseLocs := slices.Collect(base.All())
	const workers = 8
	got := make([]locVector, workers)
	want := make([][]packedLoc, workers)
	var wg sync.WaitGroup
	for g := range int32(workers) {
		wg.Go(func() {
			v, m := base, slices.Clone(baseLocs)
			for k := range int32(80) {
				l := packedLoc{inv: g, pos: k}
				if g%2 == 0 && k%5 == 0 {
					i := int(k*7+g) % len(m)
					v, m[i] = v.Set(i, l), l
					continue
				}
				v, m = v.Append(l), append(m, l)
			}
			got[g], want[g] = v, m
		})
	}
	wg.Wait()
	for g := range got {
		checkLocVector(t, got[g], want[g])
	}
	checkLocVector(t, base, baseLocs)
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

// TestMsgExtraEachMemberAlone: an info whose only rare member is any one of
// MsgExtra's keeps a MsgExtra for it, and reads it back through Extra and
// its reader; an info given none keeps no MsgExtra.
func TestMsgExtraEachMemberAlone(t *testing.T) {
	doc, err := patch.New(json.RawMessage(`{"a":1}`))
	require.NoError(t, err)
	s := func(v string) *string { return &v }
	narrator := event.Role("narrator")
	for _, tc := range []struct {
		name string
		x    MsgExtra
		read func(i *MsgInfo) any
		want any
	}{
		{"Doc", MsgExtra{Doc: doc}, func(i *MsgInfo) any { return i.Doc() }, doc},
		{"Raw", MsgExtra{Raw: json.RawMessage(`[1]`)}, func(i *MsgInfo) any { return i.Raw() }, json.RawMessage(`[1]`)},
		{"Error", MsgExtra{Error: s("boom")}, func(i *MsgInfo) any { return *i.Error() }, "boom"},
		{"ActivityType", MsgExtra{ActivityType: s("plan")}, func(i *MsgInfo) any { return *i.ActivityType() }, "plan"},
		{"EncryptedValue", MsgExtra{EncryptedValue: s("E")}, func(i *MsgInfo) any { return *i.EncryptedValue() }, "E"},
		{"Meta", MsgExtra{Meta: MetaOf(json.RawMessage(`{"k":1}`))}, func(i *MsgInfo) any { return i.Meta() }, MetaOf(json.RawMessage(`{"k":1}`))},
		{"role", MsgExtra{role: &narrator}, func(i *MsgInfo) any { return *i.keptRole() }, narrator},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var i MsgInfo
			i.SetExtra(tc.x)
			require.NotNil(t, i.extra, "the member was dropped")
			require.Equal(t, tc.x, i.Extra())
			require.Equal(t, tc.want, tc.read(&i))
		})
	}
	var i MsgInfo
	i.SetExtra(MsgExtra{})
	require.Nil(t, i.extra, "an info with no rare member keeps a MsgExtra")
}
