package transform_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transform"
	"github.com/agview/agview/view"
)

// The tests of this file read a transformed stream as the peer it is meant
// for would: encoded, decoded and folded, then compare what that peer ends
// up with to what a peer that reads the original stream ends up with.

// source yields the decoded events of raws, and their decoding errors, in
// order.
func source(raws []json.RawMessage) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		for _, raw := range raws {
			e, err := event.Decode(raw)
			if !yield(e, err) {
				return
			}
		}
	}
}

// read folds seq as a peer reads it off the wire: each event encoded and
// folded from its JSON; an error (a frame that did not decode) refused in
// its place. It returns the view and the violations met.
func read(t *testing.T, seq iter.Seq2[event.Event, error]) (*view.View, []error) {
	t.Helper()
	v := view.New()
	var viols []error
	for e, err := range seq {
		if err != nil {
			v = reducer.Refuse(v, "", err)
			var ute *event.UnknownTypeError
			if !errors.As(err, &ute) {
				viols = append(viols, err)
			}
			continue
		}
		b, encErr := event.Encode(e)
		require.NoError(t, encErr, "%s encodes", e.EventType())
		next, ferr := reducer.FoldJSON(v, b)
		if ferr != nil {
			viols = append(viols, fmt.Errorf("%s: %w", b, ferr))
		}
		v = next
	}
	return reducer.End(v, nil), viols
}

var minted = regexp.MustCompile(`agview-thinking-\d+`)

// messages returns v's messages as JSON values, without subagentRunId when
// untag is set, and with the ids the reducer mints for THINKING_* events
// (which depend on event indices) replaced by one placeholder.
func messages(t *testing.T, v *view.View, untag bool) []any {
	t.Helper()
	var out []any
	for m := range v.Messages() {
		if untag {
			m.Subagent = nil
		}
		b, err := json.Marshal(m)
		require.NoError(t, err)
		b = minted.ReplaceAll(b, []byte("agview-thinking-N"))
		var x any
		require.NoError(t, json.Unmarshal(b, &x))
		out = append(out, x)
	}
	return out
}

// checkOldPeer checks what a peer older than subagent support reads of
// the hidden stream against what the original gives: no violation under
// the rules it knows (no tag is left for a subagent rule to apply to), no
// lifecycle event and no subagent, and every message, its text included,
// and the state exactly as the original has them but for attribution.
func checkOldPeer(t *testing.T, name string, raws []json.RawMessage) {
	t.Helper()
	orig, origViols := read(t, source(raws))
	require.Empty(t, origViols, "%s: the original stream is accepted", name)
	var hidden []event.Event
	var errs []error
	for e, err := range transform.HideSubagents(source(raws)) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		hidden = append(hidden, e)
		assert.False(t, e.EventType().Lifecycle(), "%s: no lifecycle event reaches the old peer", name)
		_, tagged := e.SubagentRunID()
		assert.False(t, tagged, "%s: %s carries no subagentRunId", name, e.EventType())
		assert.NotContains(t, []event.Type{event.TypeTextMessageChunk, event.TypeToolCallChunk, event.TypeReasoningMessageChunk},
			e.EventType(), "%s: chunks are expanded", name)
	}
	for _, err := range errs {
		var ute *event.UnknownTypeError
		assert.True(t, errors.As(err, &ute), "%s: only the original's decoding errors pass: %v", name, err)
	}
	old, oldViols := read(t, func(yield func(event.Event, error) bool) {
		for _, e := range hidden {
			if !yield(e, nil) {
				return
			}
		}
	})
	assert.Empty(t, oldViols, "%s: the hidden stream is valid for an old peer", name)
	assert.Zero(t, old.InvocationCount(), "%s: the old peer sees no subagent", name)
	assert.Equal(t, messages(t, orig, true), messages(t, old, false), "%s: every message as its owner sent it", name)
	assert.JSONEq(t, string(orig.State()), string(old.State()), "%s: the state", name)
	for m := range old.Messages() {
		assert.Nil(t, m.Subagent, "%s: message %s", name, m.ID)
	}
	for _, in := range old.PendingInterrupts() {
		assert.Nil(t, in.Subagent, "%s: interrupt %s", name, in.ID)
	}
}

// TestHideSubagentsOldPeerVectors: the hidden stream of every accepted
// conformance vector (the shared suite and agview's own) reads, for a peer
// older than subagent support, as the original does but for attribution.
func TestHideSubagentsOldPeerVectors(t *testing.T) {
	t.Parallel()
	vecs, err := conformance.Load()
	require.NoError(t, err)
	own, err := conformance.LoadDir("../reducer/testdata/beyond")
	require.NoError(t, err)
	n := 0
	for _, vec := range append(vecs, own...) {
		if !vec.Accept() {
			continue
		}
		n++
		t.Run(vec.Name, func(t *testing.T) {
			t.Parallel()
			checkOldPeer(t, vec.Name, vec.Events)
		})
	}
	assert.Greater(t, n, 100, "the accepted vectors are tested")
}

// TestExpandChunksVectors: expanding the chunks of every accepted vector
// changes nothing a consumer can see, attribution included.
func TestExpandChunksVectors(t *testing.T) {
	t.Parallel()
	vecs, err := conformance.Load()
	require.NoError(t, err)
	for _, vec := range vecs {
		if !vec.Accept() {
			continue
		}
		orig, _ := read(t, source(vec.Events))
		expanded, viols := read(t, transform.ExpandChunks(source(vec.Events)))
		assert.Empty(t, viols, "%s", vec.Name)
		assert.Equal(t, messages(t, orig, false), messages(t, expanded, false), "%s: messages", vec.Name)
	}
}

// swarm generates a stream in which subagents interleave everything that
// attribution alone keeps apart: id-less text, tool-call and reasoning
// chunks, steps of the same name, explicit messages; some fail, some finish
// with a result. It returns the stream and the text each message must hold.
func swarm(seed uint64) ([]json.RawMessage, map[string]string) {
	rng := rand.New(rand.NewPCG(seed, 42))
	type script struct{ events []string }
	want := map[string]string{}
	n := 2 + rng.IntN(4)
	owners := make([]*script, n+1) // owners[0]: the parent agent
	for i := range owners {
		owners[i] = &script{}
	}
	ev := func(s *script, format string, args ...any) { s.events = append(s.events, fmt.Sprintf(format, args...)) }
	tagOf := func(i int) string {
		if i == 0 {
			return ""
		}
		return fmt.Sprintf(`,"subagentRunId":"sa-%d"`, i)
	}
	words := []string{"alpha ", "beta ", "gamma ", "delta ", "é ", "\\\"q\\\" ", "日本 "}
	text := func(id string, s *script, tag string, chunks bool) {
		var b strings.Builder
		parts := 1 + rng.IntN(4)
		if !chunks {
			ev(s, `{"type":"TEXT_MESSAGE_START","messageId":"%s"%s}`, id, tag)
		}
		for p := range parts {
			w := words[rng.IntN(len(words))]
			b.WriteString(strings.ReplaceAll(w, `\"`, `"`))
			switch {
			case !chunks:
				ev(s, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"%s","delta":"%s"%s}`, id, w, tag)
			case p == 0:
				ev(s, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"%s","delta":"%s"%s}`, id, w, tag)
			default:
				ev(s, `{"type":"TEXT_MESSAGE_CHUNK","delta":"%s"%s}`, w, tag)
			}
		}
		if !chunks {
			ev(s, `{"type":"TEXT_MESSAGE_END","messageId":"%s"%s}`, id, tag)
		}
		want[id] = b.String()
	}
	for i, s := range owners {
		tag := tagOf(i)
		if i > 0 {
			ev(s, `{"type":"SUBAGENT_STARTED","subagentRunId":"sa-%d","name":"researcher"}`, i)
		}
		ev(s, `{"type":"STEP_STARTED","stepName":"plan"%s}`, tag)
		for m := range 1 + rng.IntN(3) {
			text(fmt.Sprintf("m-%d-%d", i, m), s, tag, i > 0 && rng.IntN(3) > 0)
		}
		ev(s, `{"type":"STEP_FINISHED","stepName":"plan"%s}`, tag)
		if i > 0 {
			tc := fmt.Sprintf("tc-%d", i)
			ev(s, `{"type":"TOOL_CALL_CHUNK","toolCallId":"%s","toolCallName":"search","delta":"{\"q\":"%s}`, tc, tag)
			ev(s, `{"type":"TOOL_CALL_CHUNK","delta":"%d}"%s}`, i, tag)
			ev(s, `{"type":"REASONING_MESSAGE_CHUNK","messageId":"r-%d","delta":"hm"%s}`, i, tag)
			ev(s, `{"type":"REASONING_MESSAGE_CHUNK","delta":"m"%s}`, tag)
			ev(s, `{"type":"STEP_STARTED","stepName":"write"%s}`, tag)
			ev(s, `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/sa-%d","value":%d}]%s}`, i, i, tag)
			text(fmt.Sprintf("w-%d", i), s, tag, true)
			ev(s, `{"type":"STEP_FINISHED","stepName":"write"%s}`, tag)
			switch rng.IntN(3) {
			case 0:
				ev(s, `{"type":"SUBAGENT_ERROR","subagentRunId":"sa-%d","message":"timeout","code":"T"}`, i)
			case 1:
				ev(s, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sa-%d","result":{"found":%d}}`, i, i)
			default:
				ev(s, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sa-%d"}`, i)
			}
		}
	}
	out := []json.RawMessage{json.RawMessage(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`),
		json.RawMessage(`{"type":"STATE_SNAPSHOT","snapshot":{}}`)}
	// The parent starts its step before anyone else opens one of that name,
	// and the subagents are announced first, so that the original is valid.
	for _, s := range owners[1:] {
		out = append(out, json.RawMessage(s.events[0]))
		s.events = s.events[1:]
	}
	for live := len(owners); live > 0; {
		i := rng.IntN(len(owners))
		s := owners[i]
		if len(s.events) == 0 {
			continue
		}
		out = append(out, json.RawMessage(s.events[0]))
		if s.events = s.events[1:]; len(s.events) == 0 {
			live--
		}
	}
	return append(out, json.RawMessage(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`)), want
}

// TestHideSubagentsOldPeerSwarms: generated interleaved swarms, hidden, are
// valid for an old peer and give every message exactly the text its owner
// sent: no subagent's text lands in another's message.
func TestHideSubagentsOldPeerSwarms(t *testing.T) {
	t.Parallel()
	for seed := range uint64(60) {
		raws, want := swarm(seed)
		name := fmt.Sprintf("seed %d", seed)
		checkOldPeer(t, name, raws)
		var hidden []json.RawMessage
		for e, err := range transform.HideSubagents(source(raws)) {
			require.NoError(t, err)
			b, err := event.Encode(e)
			require.NoError(t, err)
			hidden = append(hidden, b)
		}
		old, _ := read(t, source(hidden))
		for id, text := range want {
			m, ok := old.Message(id)
			if !assert.True(t, ok, "%s: message %s", name, id) {
				continue
			}
			var got string
			require.NoError(t, json.Unmarshal(m.Content, &got))
			assert.Equal(t, text, got, "%s: message %s holds exactly its owner's text", name, id)
		}
	}
}

// TestHideSubagentsInterleavedChunks is the case that merged texts before
// chunks were expanded first: two subagents interleave id-less chunks.
func TestHideSubagentsInterleavedChunks(t *testing.T) {
	t.Parallel()
	raws := []json.RawMessage{
		json.RawMessage(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`),
		json.RawMessage(`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a","subagentRunId":"s1"}`),
		json.RawMessage(`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","delta":"b","subagentRunId":"s2"}`),
		json.RawMessage(`{"type":"TEXT_MESSAGE_CHUNK","delta":"c","subagentRunId":"s1"}`),
		json.RawMessage(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`),
	}
	checkOldPeer(t, "interleaved", raws)
	var hidden []event.Event
	for e, err := range transform.HideSubagents(source(raws)) {
		require.NoError(t, err)
		hidden = append(hidden, e)
	}
	old, _ := read(t, func(yield func(event.Event, error) bool) {
		for _, e := range hidden {
			yield(e, nil)
		}
	})
	m1, _ := old.Message("m1")
	m2, _ := old.Message("m2")
	assert.JSONEq(t, `"ac"`, string(m1.Content), "s1's text stays in s1's message")
	assert.JSONEq(t, `"b"`, string(m2.Content))
}

// TestHideSubagentsSteps: steps of the same name open under two owners at
// once reach the old peer under two names, each finished by its owner.
func TestHideSubagentsSteps(t *testing.T) {
	t.Parallel()
	raws := []json.RawMessage{
		json.RawMessage(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`),
		json.RawMessage(`{"type":"STEP_STARTED","stepName":"plan"}`),
		json.RawMessage(`{"type":"STEP_STARTED","stepName":"plan","subagentRunId":"s1"}`),
		json.RawMessage(`{"type":"STEP_STARTED","stepName":"plan","subagentRunId":"s2"}`),
		json.RawMessage(`{"type":"STEP_FINISHED","stepName":"plan"}`),
		json.RawMessage(`{"type":"STEP_STARTED","stepName":"plan (subagent 's1')"}`),
		json.RawMessage(`{"type":"STEP_FINISHED","stepName":"plan","subagentRunId":"s2"}`),
		json.RawMessage(`{"type":"STEP_FINISHED","stepName":"plan","subagentRunId":"s1"}`),
		json.RawMessage(`{"type":"STEP_FINISHED","stepName":"plan (subagent 's1')"}`),
		json.RawMessage(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`),
	}
	checkOldPeer(t, "steps", raws)
	var names []string
	for e := range transform.HideSubagents(source(raws)) {
		switch e := e.(type) {
		case *event.StepStarted:
			names = append(names, "+"+e.StepName)
		case *event.StepFinished:
			names = append(names, "-"+e.StepName)
		}
	}
	assert.Equal(t, []string{
		"+plan", "+plan (subagent 's1')", "+plan (subagent 's2')", "-plan",
		"+plan (subagent 's1') (the parent agent)", "-plan (subagent 's2')", "-plan (subagent 's1')", "-plan (subagent 's1') (the parent agent)",
	}, names)
}

// TestHideSubagentsStepsNumbered: a renamed step whose new name is taken
// too is numbered.
func TestHideSubagentsStepsNumbered(t *testing.T) {
	t.Parallel()
	raws := []json.RawMessage{
		json.RawMessage(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`),
		json.RawMessage(`{"type":"STEP_STARTED","stepName":"plan"}`),
		json.RawMessage(`{"type":"STEP_STARTED","stepName":"plan (subagent 's1')"}`),
		json.RawMessage(`{"type":"STEP_STARTED","stepName":"plan","subagentRunId":"s1"}`),
		json.RawMessage(`{"type":"STEP_FINISHED","stepName":"plan","subagentRunId":"s1"}`),
		json.RawMessage(`{"type":"STEP_FINISHED","stepName":"plan (subagent 's1')"}`),
		json.RawMessage(`{"type":"STEP_FINISHED","stepName":"plan"}`),
		json.RawMessage(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`),
	}
	checkOldPeer(t, "numbered steps", raws)
	var names []string
	for e := range transform.HideSubagents(source(raws)) {
		if s, ok := e.(*event.StepStarted); ok {
			names = append(names, s.StepName)
		}
	}
	assert.Equal(t, []string{"plan", "plan (subagent 's1')", "plan (subagent 's1') #2"}, names)
}

// TestHideSubagentsTraces: SUBAGENT_ERROR and a SUBAGENT_FINISHED with a
// result or an outcome leave a CUSTOM event an old peer can show.
func TestHideSubagentsTraces(t *testing.T) {
	t.Parallel()
	raws := []json.RawMessage{
		json.RawMessage(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`),
		json.RawMessage(`{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"researcher"}`),
		json.RawMessage(`{"type":"SUBAGENT_STARTED","subagentRunId":"s2","name":"writer"}`),
		json.RawMessage(`{"type":"SUBAGENT_STARTED","subagentRunId":"s3","name":"checker"}`),
		json.RawMessage(`{"type":"SUBAGENT_ERROR","subagentRunId":"s1","message":"timeout","code":"T1","timestamp":5}`),
		json.RawMessage(`{"type":"SUBAGENT_FINISHED","subagentRunId":"s2","result":{"pages":3}}`),
		json.RawMessage(`{"type":"SUBAGENT_FINISHED","subagentRunId":"s3"}`),
		json.RawMessage(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`),
	}
	checkOldPeer(t, "traces", raws)
	var customs []string
	for e := range transform.HideSubagents(source(raws)) {
		if c, ok := e.(*event.Custom); ok {
			customs = append(customs, c.Name+" "+string(c.Value))
			assert.Equal(t, e.Common().Timestamp, func() *int64 {
				if c.Name == "SUBAGENT_ERROR" {
					return event.Ptr(int64(5))
				}
				return nil
			}(), "the trace keeps the timestamp")
		}
	}
	assert.Equal(t, []string{
		`SUBAGENT_ERROR {"code":"T1","message":"timeout","name":"researcher","subagentRunId":"s1"}`,
		`SUBAGENT_FINISHED {"name":"writer","result":{"pages":3},"subagentRunId":"s2"}`,
	}, customs, "a successful SUBAGENT_FINISHED without a result leaves no trace")
}

func TestSupportsSubagents(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{
		"": false, "0.0.57": false, "0.0.5": false, "0.0.9": false, "0.0.57.0": false,
		"0.0.58": true, "0.0.57.1": true, "0.1": true, "1.0": true, "1": true, "1.0.0-rc.1": true, "2.3.4+b7": true,
		"v1.0": false, "1..0": false, "1.x": false, "latest": false, "-1": false, "1.0.": false, " 1.0": false,
	} {
		assert.Equal(t, want, transform.SupportsSubagents(v), "%q", v)
	}
}

// TestSubagentVisibility: a peer that declares 1.0 gets the stream as it
// is; one that declares nothing gets it hidden.
func TestSubagentVisibility(t *testing.T) {
	t.Parallel()
	raws := []json.RawMessage{
		json.RawMessage(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`),
		json.RawMessage(`{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"researcher"}`),
		json.RawMessage(`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"x","subagentRunId":"s1"}`),
		json.RawMessage(`{"type":"SUBAGENT_FINISHED","subagentRunId":"s1"}`),
		json.RawMessage(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`),
	}
	count := func(version string) (n int, tagged bool) {
		peer := &event.RunAgentInput{ThreadID: "t", RunID: "r"}
		if version != "" {
			peer.ProtocolVersion = &version
		}
		for e := range transform.SubagentVisibility(peer)(source(raws)) {
			n++
			if _, ok := e.SubagentRunID(); ok {
				tagged = true
			}
		}
		return n, tagged
	}
	n, tagged := count("1.0")
	assert.Equal(t, 5, n, "a 1.0 peer gets every event")
	assert.True(t, tagged)
	n, tagged = count("")
	assert.Equal(t, 5, n, "an old peer gets RUN_STARTED, START, CONTENT, END, RUN_FINISHED")
	assert.False(t, tagged)
}

// transformExpand is ExpandChunks over the decoded raws.
func transformExpand(raws []json.RawMessage) iter.Seq2[event.Event, error] {
	return transform.ExpandChunks(source(raws))
}
