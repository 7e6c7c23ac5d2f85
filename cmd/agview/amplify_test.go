package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/patch"
	"github.com/agview/agview/transport"
)

// chainJSONL is a run in which subagent i spawns subagent i+1, n deep, each
// finishing in turn: 1.6 MB for n = 10,000.
func chainJSONL(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n")
	for i := range n {
		if i == 0 {
			fmt.Fprintf(&b, `{"type":"SUBAGENT_STARTED","subagentRunId":"sa%d","name":"agent"}`+"\n", i)
			continue
		}
		fmt.Fprintf(&b, `{"type":"SUBAGENT_STARTED","subagentRunId":"sa%d","name":"agent","parentSubagentRunId":"sa%d"}`+"\n", i, i-1)
	}
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sa%d"}`+"\n", i)
	}
	b.WriteString(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}` + "\n")
	return b.Bytes()
}

// countingWriter counts what is written and keeps nothing.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// allocated returns the bytes allocated by f, whatever the garbage
// collector did meanwhile: an upper bound of the memory f held at once, and
// unlike RSS or a heap sample it does not depend on timing.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReplayDeepChainBounded: a chain of subagents 100,000 deep (17 MB of
// JSONL) through replay's two outputs. The tree is bounded by depth: a few
// lines, whatever the depth (it was 150 MB for 10,000 levels, quadratic in
// the depth). The JSON is written as it is produced: printing it allocates a
// fraction of the output's size, where MarshalIndent held the whole output
// twice over.
func TestReplayDeepChainBounded(t *testing.T) {
	const depth = 100_000
	path := filepath.Join(t.TempDir(), "chain.jsonl")
	in := chainJSONL(depth)
	require.NoError(t, os.WriteFile(path, in, 0o644))
	e := &env{stdout: &countingWriter{}, stderr: &countingWriter{}}
	f, err := foldFile(t.Context(), e, &recording{path: path, format: transport.FormatAuto})
	require.NoError(t, err)
	v := f.v
	require.Equal(t, depth, v.InvocationCount())

	t.Run("text", func(t *testing.T) {
		out := &countingWriter{}
		e := &env{stdout: out}
		alloc := allocated(func() { require.NoError(t, printView(e, v, false)) })
		assert.Less(t, out.n, int64(4<<10), "the tree shows %d levels, then a count", treeMaxDepth)
		// The walk marks every invocation seen (a map of 100k ids, 9 MB);
		// nothing grows with the output.
		assert.Less(t, alloc, uint64(len(in)), "printing the tree allocated %d bytes for %d bytes in", alloc, len(in))
	})
	t.Run("json", func(t *testing.T) {
		out := &countingWriter{}
		e := &env{stdout: out}
		alloc := allocated(func() { require.NoError(t, printView(e, v, true)) })
		assert.Greater(t, out.n, int64(len(in)), "the JSON has every invocation")
		// 2 MB for 42 MB of JSON; json.MarshalIndent allocated 180 MB.
		bound := uint64(out.n) / 10
		if raceEnabled {
			bound = uint64(out.n) * 2 // encoding/json's buffers are not reused
		}
		assert.Less(t, alloc, bound, "printing %d bytes of JSON allocated %d bytes", out.n, alloc)
	})
}

// TestReplayDeepState: a state nested 9,999 deep (20 KB) printed 200 MB as
// text and as JSON (the protobuf recording of it, 75 KB, 200 MB too):
// indenting every level costs the square of the depth. The tree now shows
// 16 levels and counts the rest; the JSON indents jsonIndentDepth levels
// and writes the rest compact, so that it stays about the input's size.
func TestReplayDeepState(t *testing.T) {
	deep := func(depth int) []byte {
		doc := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		return []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n" +
			`{"type":"STATE_SNAPSHOT","snapshot":` + doc + "}\n" +
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}` + "\n")
	}
	depth := patch.MaxNesting // the deepest state a fold accepts
	in := deep(depth)
	// The protobuf recording of a deep state: indented whole, 500 levels
	// printed 500 KB for 3 KB in.
	const protoDepth = 500
	code, proto, stderr := runCLI(t, deep(protoDepth), "replay", "--emit", "proto", "-")
	require.Equal(t, exitOK, code, stderr)
	for _, tt := range []struct {
		name     string
		in       []byte
		depth    int
		json     bool
		maxOut   int64
		maxRatio float64
	}{
		{name: "tree", in: in, depth: depth, maxOut: 4 << 10},
		{name: "json", in: in, depth: depth, json: true, maxRatio: 1.5},
		{name: "json from protobuf", in: []byte(proto), depth: protoDepth, json: true, maxRatio: 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state")
			require.NoError(t, os.WriteFile(path, tt.in, 0o644))
			e := &env{stdout: &countingWriter{}, stderr: &countingWriter{}}
			f, err := foldFile(t.Context(), e, &recording{path: path, format: transport.FormatAuto})
			require.NoError(t, err)
			v := f.v
			require.Zero(t, v.ViolationCount())

			out := &countingWriter{}
			alloc := allocated(func() { require.NoError(t, printView(&env{stdout: out}, v, tt.json)) })
			ratio := float64(out.n) / float64(len(tt.in))
			t.Logf("%d bytes in, %d bytes out (×%.2f), %d allocated", len(tt.in), out.n, ratio, alloc)
			if tt.maxOut > 0 {
				assert.Less(t, out.n, tt.maxOut, "the state is cut at %d levels", stateMaxDepth)
			}
			if tt.maxRatio > 0 {
				assert.Less(t, ratio, tt.maxRatio, "the output is about the input's size")
				assert.Greater(t, out.n, int64(2*tt.depth), "every level is there")
			}
			assert.Less(t, alloc, uint64(1<<20), "printing allocates little")
		})
	}
}

// boundsJSONL is a small stream that crosses every bound of the tree: a
// chain deeper than treeMaxDepth, an invocation with more lines than
// treeMaxItems, and a state deeper and wider than its bounds.
func boundsJSONL() []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n")
	const deep = treeMaxDepth + 4
	for i := range deep {
		parent := ""
		if i > 0 {
			parent = fmt.Sprintf(`,"parentSubagentRunId":"sa%d"`, i-1)
		}
		fmt.Fprintf(&b, `{"type":"SUBAGENT_STARTED","subagentRunId":"sa%d","name":"level %d"%s}`+"\n", i, i+1, parent)
	}
	for i := range treeMaxItems + 5 {
		fmt.Fprintf(&b, `{"type":"TEXT_MESSAGE_START","messageId":"m%d","role":"assistant","subagentRunId":"sa2"}`+"\n", i)
		fmt.Fprintf(&b, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m%d","delta":"line %d","subagentRunId":"sa2"}`+"\n", i, i)
		fmt.Fprintf(&b, `{"type":"TEXT_MESSAGE_END","messageId":"m%d","subagentRunId":"sa2"}`+"\n", i)
	}
	for i := deep - 1; i >= 0; i-- {
		fmt.Fprintf(&b, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sa%d"}`+"\n", i)
	}
	wide := make([]int, stateMaxItems+7)
	for i := range wide {
		wide[i] = i
	}
	w, _ := json.Marshal(wide)
	state := fmt.Sprintf(`{"deep":%s"bottom"%s,"wide":%s}`,
		strings.Repeat(`{"k":[`, stateMaxDepth), strings.Repeat(`]}`, stateMaxDepth), w)
	fmt.Fprintf(&b, `{"type":"STATE_SNAPSHOT","snapshot":%s}`+"\n", state)
	b.WriteString(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}` + "\n")
	return b.Bytes()
}

// TestReplayBoundsGolden: what the collapsed parts of the tree look like;
// replay --json keeps everything.
func TestReplayBoundsGolden(t *testing.T) {
	in := boundsJSONL()
	code, out, stderr := runCLI(t, in, "replay", "-")
	require.Equal(t, exitOK, code, stderr)
	golden(t, "bounds.replay.golden", out)

	code, out, stderr = runCLI(t, in, "replay", "--json", "-")
	require.Equal(t, exitOK, code, stderr)
	var form struct {
		Messages    []json.RawMessage `json:"messages"`
		Invocations []json.RawMessage `json:"invocations"`
		State       struct {
			Wide []int `json:"wide"`
		} `json:"state"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &form))
	assert.Len(t, form.Invocations, treeMaxDepth+4, "--json has every invocation")
	assert.Len(t, form.Messages, treeMaxItems+5, "and every message")
	assert.Len(t, form.State.Wide, stateMaxItems+7, "and the whole state")
}
