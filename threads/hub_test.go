package threads

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// viewer applies the pane stream as docs/panes.md says a client does: the
// oracle the hub's patches are checked against.
type viewer struct {
	run   json.RawMessage
	state json.RawMessage
	panes []*Pane
}

func (vw *viewer) pane(key string) *Pane {
	for _, p := range vw.panes {
		if p.Key == key {
			return p
		}
	}
	return nil
}

// apply applies one SSE event's data.
func (vw *viewer) apply(t *testing.T, name string, data []byte) {
	t.Helper()
	switch name {
	case EventSnapshot:
		var s struct {
			Run   json.RawMessage `json:"run"`
			State json.RawMessage `json:"state"`
			Panes []*Pane         `json:"panes"`
		}
		require.NoError(t, json.Unmarshal(data, &s))
		vw.run, vw.state, vw.panes = s.Run, s.State, s.Panes
	case EventPatch:
		var p Patch
		require.NoError(t, json.Unmarshal(data, &p))
		require.Equal(t, WireVersion, p.V)
		if p.Run != nil {
			vw.run = p.Run
		}
		if p.State != nil {
			vw.state = p.State
		}
		for _, pp := range p.Panes {
			cur := vw.pane(pp.Key)
			if pp.Pane != nil {
				if cur != nil {
					*cur = *pp.Pane
				} else {
					cp := *pp.Pane
					vw.panes = append(vw.panes, &cp)
				}
				continue
			}
			require.NotNil(t, cur, "a patch of pane %s the viewer does not have", pp.Key)
			if pp.Meta != nil {
				items := cur.Items
				cur.PaneMeta = PaneMeta{}
				require.NoError(t, json.Unmarshal(pp.Meta, &cur.PaneMeta))
				cur.Items = items
			}
			for _, op := range pp.Ops {
				require.True(t, cur.Apply(op), "op %+v on pane %s", op, pp.Key)
			}
		}
	default:
		t.Fatalf("unknown event %q", name)
	}
}

// events splits SSE events into names and data.
func events(t *testing.T, evs [][]byte) (names []string, datas [][]byte) {
	t.Helper()
	for _, ev := range evs {
		for _, one := range bytes.Split(bytes.TrimSuffix(ev, []byte("\n\n")), []byte("\n\n")) {
			var name string
			var data []byte
			for line := range bytes.Lines(one) {
				line = bytes.TrimSuffix(line, []byte("\n"))
				if v, ok := bytes.CutPrefix(line, []byte("event: ")); ok {
					name = string(v)
				}
				if v, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
					data = v
				}
			}
			names, datas = append(names, name), append(datas, data)
		}
	}
	return names, datas
}

// snapshotJSON returns the canonical JSON of what a fresh viewer of v sees.
func snapshotJSON(t *testing.T, v *view.View) string {
	t.Helper()
	h := newHub("th", v, DefaultRingBytes, slog.New(slog.DiscardHandler))
	evs, _ := h.since(0)
	var vw viewer
	names, datas := events(t, evs)
	vw.apply(t, names[0], datas[0])
	return vw.canonical(t)
}

func (vw *viewer) canonical(t *testing.T) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"run": vw.run, "state": vw.state, "panes": vw.panes})
	require.NoError(t, err)
	return string(b)
}

// fold folds wire events into a view, one view per event.
func foldAll(t *testing.T, lines []string) []*view.View {
	t.Helper()
	v := view.New()
	var out []*view.View
	for _, l := range lines {
		v, _ = reducer.FoldJSON(v, []byte(l)) // a refusal is part of the view
		out = append(out, v)
	}
	return out
}

var paneStream = []string{
	`{"type":"RUN_STARTED","threadId":"th","runId":"r1"}`,
	`{"type":"TEXT_MESSAGE_START","messageId":"u1","role":"user"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"u1","delta":"Plan a trip"}`,
	`{"type":"TEXT_MESSAGE_END","messageId":"u1"}`,
	`{"type":"ACTIVITY_SNAPSHOT","messageId":"plan","activityType":"PLAN","content":{"tasks":[{"topic":"trains","status":"running"}]}}`,
	`{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"delegate","parentMessageId":"m0"}`,
	`{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"{\"topic\":"}`,
	`{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"\"trains\"}"}`,
	`{"type":"TOOL_CALL_END","toolCallId":"tc1"}`,
	`{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"researcher","description":"Finds trains","parentToolCallId":"tc1","parentMessageId":"m0"}`,
	`{"type":"STEP_STARTED","stepName":"search","subagentRunId":"sa1"}`,
	`{"type":"REASONING_MESSAGE_START","messageId":"think1","role":"reasoning","subagentRunId":"sa1"}`,
	`{"type":"REASONING_MESSAGE_CONTENT","messageId":"think1","delta":"hmm","subagentRunId":"sa1"}`,
	`{"type":"REASONING_MESSAGE_END","messageId":"think1","subagentRunId":"sa1"}`,
	`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Look","subagentRunId":"sa1"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"ing","subagentRunId":"sa1"}`,
	`{"type":"TOOL_CALL_START","toolCallId":"tc2","toolCallName":"summarize","parentMessageId":"m2","subagentRunId":"sa1"}`,
	`{"type":"TOOL_CALL_ARGS","toolCallId":"tc2","delta":"{\"n\":","subagentRunId":"sa1"}`,
	`{"type":"SUBAGENT_STARTED","subagentRunId":"sa2","name":"summarizer","parentSubagentRunId":"sa1","parentToolCallId":"tc2"}`,
	`{"type":"TOOL_CALL_RESULT","messageId":"res2","toolCallId":"tc2","content":"short","subagentRunId":"sa2"}`,
	`{"type":"SUBAGENT_FINISHED","subagentRunId":"sa2"}`,
	`{"type":"TOOL_CALL_RESULT","messageId":"res1","toolCallId":"tc1","content":"done"}`,
	`{"type":"SUBAGENT_STARTED","subagentRunId":"sa3","name":"booker"}`,
	`{"type":"SUBAGENT_ERROR","subagentRunId":"sa3","message":"no seats","code":"full"}`,
	`{"type":"STATE_SNAPSHOT","snapshot":{"trip":"trains"}}`,
	`{"type":"TEXT_MESSAGE_START","messageId":"m9"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m9","delta":"Half a sen"}`,
	`{"type":"RUN_ERROR","message":"agent crashed"}`,
	// A later run reuses sa1 after the cut: a pane of its own.
	`{"type":"RUN_STARTED","threadId":"th","runId":"r2"}`,
	`{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"researcher again"}`,
	`{"type":"TEXT_MESSAGE_START","messageId":"m10","subagentRunId":"sa1"}`,
	`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m10","delta":"Again","subagentRunId":"sa1"}`,
	`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u1","role":"user","content":"Plan a trip"}]}`,
	`{"type":"RUN_FINISHED","threadId":"th","runId":"r2"}`,
}

// The patches, applied in order to the first snapshot, give at every step
// what a fresh viewer's snapshot shows, whether the viewer reads every
// frame or skips some (a slow one).
func TestPatchesRebuildTheSnapshot(t *testing.T) {
	swarm := agenttest.Swarm(&agenttest.SwarmConfig{Seed: 3})
	var swarmLines []string
	for f := range swarm.Frames(&event.RunAgentInput{ThreadID: "th", RunID: "r1"}) {
		swarmLines = append(swarmLines, string(f))
	}
	for _, tc := range []struct {
		name  string
		lines []string
		every int // the viewer reads every n-th frame
	}{
		{"panes every frame", paneStream, 1},
		{"panes every third frame", paneStream, 3},
		{"swarm every 5th frame", swarmLines, 5},
		{"swarm every 17th frame", swarmLines, 17},
	} {
		t.Run(tc.name, func(t *testing.T) {
			views := foldAll(t, tc.lines)
			h := newHub("th", view.New(), DefaultRingBytes, slog.New(slog.DiscardHandler))
			var vw viewer
			last := uint64(0)
			for i, v := range views {
				h.update(v)
				if i%tc.every != 0 && i != len(views)-1 {
					continue
				}
				evs, seq := h.since(last)
				last = seq
				names, datas := events(t, evs)
				for k := range names {
					vw.apply(t, names[k], datas[k])
				}
				require.Equal(t, snapshotJSON(t, v), vw.canonical(t), "after event %d: %s", i, tc.lines[i])
			}
		})
	}
}

// Reused ids get a pane each: the abandoned invocation keeps its pane.
func TestOnePanePerInvocation(t *testing.T) {
	views := foldAll(t, paneStream[:len(paneStream)-2])
	h := newHub("th", views[len(views)-1], DefaultRingBytes, slog.New(slog.DiscardHandler))
	h.mu.Lock()
	defer h.mu.Unlock()
	var names []string
	for _, ps := range h.panes[1:] {
		names = append(names, string(*h.pane(ps).ID)+" "+string(h.pane(ps).Status))
	}
	assert.Equal(t, []string{"sa1 abandoned", "sa2 finished", "sa3 errored", "sa1 running"}, names)
}

// bigThread returns the views of a thread of n closed messages followed by
// one message that streams two tokens.
func bigThread(t testing.TB, n int) (before, after *view.View) {
	v := view.New()
	fold := func(s string) {
		var err error
		v, err = reducer.FoldJSON(v, []byte(s))
		require.NoError(t, err, s)
	}
	fold(`{"type":"RUN_STARTED","threadId":"th","runId":"r1"}`)
	for i := range n {
		fold(fmt.Sprintf(`{"type":"TEXT_MESSAGE_START","messageId":"m%d","role":"assistant"}`, i))
		fold(fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m%d","delta":"message number %d of a long thread"}`, i, i))
		fold(fmt.Sprintf(`{"type":"TEXT_MESSAGE_END","messageId":"m%d"}`, i))
	}
	fold(`{"type":"TEXT_MESSAGE_START","messageId":"live","role":"assistant"}`)
	fold(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"live","delta":"` + strings.Repeat("x", 3000) + `"}`)
	before = v
	fold(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"live","delta":" token"}`)
	return before, v
}

// One streamed token at 10k messages is one small patch.
func TestFrameSizeAt10kMessages(t *testing.T) {
	before, after := bigThread(t, 10_000)
	h := newHub("th", before, DefaultRingBytes, slog.New(slog.DiscardHandler))
	_, seq := h.since(0)
	start := time.Now()
	h.update(after)
	took := time.Since(start)
	evs, _ := h.since(seq)
	require.Len(t, evs, 1)
	assert.Less(t, len(evs[0]), 2048, "the patch of one token: %s", evs[0])
	assert.Contains(t, string(evs[0]), `"text":" token"`)
	t.Logf("one token at 10k messages: a %d-byte frame in %v", len(evs[0]), took)
}

// BenchmarkTokenAt10kMessages measures the server's CPU per streamed token
// at 10k messages (target: under 1 ms).
func BenchmarkTokenAt10kMessages(b *testing.B) {
	base, _ := bigThread(b, 10_000)
	h := newHub("th", base, DefaultRingBytes, slog.New(slog.DiscardHandler))
	views := make([]*view.View, b.N)
	v := base
	for i := range views {
		var err error
		v, err = reducer.FoldJSON(v, []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"live","delta":" token"}`))
		require.NoError(b, err)
		views[i] = v
	}
	b.ReportAllocs()
	b.ResetTimer()
	for _, v := range views {
		h.update(v)
	}
	b.StopTimer()
	evs, _ := h.since(h.seq - 1)
	b.ReportMetric(float64(len(evs[0])), "frame-bytes")
}

func nopLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

func foldOne(t testing.TB, v *view.View, line string) *view.View {
	t.Helper()
	nv, err := reducer.FoldJSON(v, []byte(line))
	require.NoError(t, err, line)
	return nv
}
