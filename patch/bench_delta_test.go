package patch

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// swarmDoc builds a state shaped like the shared `swarm` workload's
// (../shared/bench/gen -profile swarm): a "run" object and the entries of n
// subagents under "subagents".
func swarmDoc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"run":{"phase":"delegate","progress":12,"notes":["plan the work and split it"]},"subagents":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"sa%06d":{"name":"researcher","status":"running","depth":1,"progress":%d,"notes":["found two sources"],"lastTool":"search"}`, i, 10*i)
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}

// smallDeltas are the typical STATE_DELTA patches of BenchmarkApplySmallDelta,
// each with the document (of about 1 KB) it applies to.
func smallDeltas(tb testing.TB) []struct {
	name  string
	doc   Document
	delta json.RawMessage
} {
	stateRaw, items := stateDoc(1)
	require.GreaterOrEqual(tb, items, 4, "the 1 KB state has too few items")
	state, err := New(stateRaw)
	require.NoError(tb, err)
	swarm, err := New(swarmDoc(6))
	require.NoError(tb, err)
	require.InDelta(tb, 1024, swarm.Size(), 256, "the swarm state should be about 1 KB")
	return []struct {
		name  string
		doc   Document
		delta json.RawMessage
	}{
		{"state-replace2", state,
			json.RawMessage(`[{"op":"replace","path":"/items/k000003/active","value":false},{"op":"replace","path":"/counters/c7","value":1}]`)},
		{"swarm-add", swarm,
			json.RawMessage(`[{"op":"add","path":"/subagents/sa000006","value":{"name":"researcher","status":"running","depth":1,"progress":0,"notes":[]}}]`)},
		{"swarm-progress", swarm,
			json.RawMessage(`[{"op":"replace","path":"/subagents/sa000002/progress","value":37}]`)},
	}
}

// TestSmallDeltasApply makes sure the benchmark's deltas apply and do what
// they say.
func TestSmallDeltasApply(t *testing.T) {
	want := map[string][2]string{ // pointer, expected value
		"state-replace2": {"/items/k000003/active", "false"},
		"swarm-add":      {"/subagents/sa000006", `{"name":"researcher","status":"running","depth":1,"progress":0,"notes":[]}`},
		"swarm-progress": {"/subagents/sa000002/progress", "37"},
	}
	for _, c := range smallDeltas(t) {
		t.Run(c.name, func(t *testing.T) {
			got, warns, err := Apply(c.doc, c.delta, nil)
			require.NoError(t, err)
			require.Empty(t, warns)
			toks, bad := parsePointer(want[c.name][0])
			require.Empty(t, bad)
			v, f := resolve(got.node(), toks)
			require.Nil(t, f)
			require.Equal(t, want[c.name][1], string(appendNode(nil, v)))
		})
	}
}

// TestSmallDeltaAllocations keeps the cost of a typical delta from creeping
// back: the patch is read in place, so what allocates is the copied path to
// each change (one block per object), the path strings, the new value's
// nodes and strings, and the new Document.
func TestSmallDeltaAllocations(t *testing.T) {
	budget := map[string]float64{
		"state-replace2": 8,  // 2 paths, 5 objects on the paths, the Document
		"swarm-add":      15, // 1 path, the parser's member stack, the value (object, 5 names, 2 strings of 2), 2 objects, the Document
		"swarm-progress": 5,  // 1 path, 3 objects, the Document
	}
	for _, c := range smallDeltas(t) {
		allocs := testing.AllocsPerRun(100, func() {
			if _, _, err := Apply(c.doc, c.delta, nil); err != nil {
				t.Fatal(err)
			}
		})
		assert.LessOrEqual(t, allocs, budget[c.name], "%s: allocations per Apply", c.name)
	}
}

// BenchmarkApplySmallDelta measures Apply on a state of about 1 KB with the
// deltas agents send most: two replaces of scalars, and the swarm workload's
// announcement of a subagent and update of its progress. At this size the
// decoding of the patch, not the document, is most of the cost.
func BenchmarkApplySmallDelta(b *testing.B) {
	for _, c := range smallDeltas(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Apply(c.doc, c.delta, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
