package transform_test

import (
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transform"
	"github.com/agview/agview/view"
)

// taggedEvents holds one event of every type that can carry a tag (the 24
// attributable ones and THINKING_*, G22), tagged "sa-1".
func taggedEvents() []event.Event {
	a := event.By("sa-1")
	type raw = json.RawMessage
	return []event.Event{
		&event.StepStarted{Attribution: a, StepName: "plan"},
		&event.StepFinished{Attribution: a, StepName: "plan"},
		&event.TextMessageStart{Attribution: a, MessageID: "m1", Role: event.Ptr(event.RoleAssistant), Name: event.Ptr("bot")},
		&event.TextMessageContent{Attribution: a, MessageID: "m1", Delta: "hi"},
		&event.TextMessageEnd{Attribution: a, MessageID: "m1"},
		&event.TextMessageChunk{Attribution: a, MessageID: event.Ptr("m2"), Delta: event.Ptr("yo")},
		&event.ToolCallStart{Attribution: a, ToolCallID: "tc1", ToolCallName: "search", ParentMessageID: event.Ptr("m1")},
		&event.ToolCallArgs{Attribution: a, ToolCallID: "tc1", Delta: `{"q":`},
		&event.ToolCallEnd{Attribution: a, ToolCallID: "tc1"},
		&event.ToolCallChunk{Attribution: a, ToolCallID: event.Ptr("tc2"), ToolCallName: event.Ptr("search"), Delta: event.Ptr("{}")},
		&event.ToolCallResult{Attribution: a, MessageID: "t1", ToolCallID: "tc1", Content: raw(`"42"`)},
		&event.StateSnapshot{Attribution: a, Snapshot: raw(`{"n":1}`)},
		&event.StateDelta{Attribution: a, Delta: raw(`[{"op":"replace","path":"/n","value":2}]`)},
		&event.ActivitySnapshot{Attribution: a, MessageID: "act1", ActivityType: "PLAN", Content: raw(`{"steps":[]}`), Replace: event.Ptr(false)},
		&event.ActivityDelta{Attribution: a, MessageID: "act1", ActivityType: "PLAN", Patch: raw(`[]`)},
		&event.Raw{Attribution: a, Event: raw(`{"k":1}`), Source: event.Ptr("openai")},
		&event.Custom{Attribution: a, Name: "ping", Value: raw(`null`)},
		&event.ReasoningStart{Attribution: a, MessageID: "rs1"},
		&event.ReasoningMessageStart{Attribution: a, MessageID: "rm1", Role: event.RoleReasoning},
		&event.ReasoningMessageContent{Attribution: a, MessageID: "rm1", Delta: "hmm"},
		&event.ReasoningMessageEnd{Attribution: a, MessageID: "rm1"},
		&event.ReasoningMessageChunk{Attribution: a, MessageID: event.Ptr("rm2"), Delta: event.Ptr("so")},
		&event.ReasoningEnd{Attribution: a, MessageID: "rs1"},
		&event.ReasoningEncryptedValue{Attribution: a, Subtype: event.EncryptedMessage, EntityID: "m1", EncryptedValue: "gAAA"},
		&event.ThinkingStart{Attribution: a, Title: event.Ptr("t")},
		&event.ThinkingTextMessageStart{Attribution: a},
		&event.ThinkingTextMessageContent{Attribution: a, Delta: "hm"},
		&event.ThinkingTextMessageEnd{Attribution: a},
		&event.ThinkingEnd{Attribution: a},
	}
}

// fields returns e's JSON fields, without "subagentRunId" when drop is set.
func fields(t *testing.T, v any, drop bool) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	if drop {
		delete(m, "subagentRunId")
	}
	return m
}

func TestStripSubagentsCoversEveryTaggableType(t *testing.T) {
	t.Parallel()
	have := map[event.Type]bool{}
	for _, e := range taggedEvents() {
		have[e.EventType()] = true
	}
	for _, typ := range event.Types() {
		if typ.Attributable() || typ.Deprecated() {
			assert.True(t, have[typ], "the table lacks taggable type %s", typ)
		}
	}
}

func TestStripSubagentsAttributable(t *testing.T) {
	t.Parallel()
	for _, e := range taggedEvents() {
		t.Run(string(e.EventType()), func(t *testing.T) {
			t.Parallel()
			before := fields(t, e, false)
			out, keep := transform.Strip(e)
			require.True(t, keep)
			require.NotNil(t, out)
			assert.NotSame(t, e, out, "a tagged event is copied")
			_, tagged := out.SubagentRunID()
			assert.False(t, tagged, "the copy carries no subagentRunId")
			assert.Equal(t, fields(t, e, true), fields(t, out, false), "the copy equals the input but for its tag")
			assert.Equal(t, before, fields(t, e, false), "the input is not modified")
			id, ok := e.SubagentRunID()
			assert.True(t, ok)
			assert.Equal(t, "sa-1", id, "the input keeps its tag")

			again, keep := transform.Strip(out)
			assert.True(t, keep)
			assert.Same(t, out, again, "an event with nothing to strip is returned as it is")
		})
	}
}

func TestStripSubagentsLifecycleDropped(t *testing.T) {
	t.Parallel()
	for _, e := range []event.Event{
		&event.SubagentStarted{ID: "sa-1", Name: "researcher", ParentSubagentRunID: event.Ptr("sa-0")},
		&event.SubagentFinished{ID: "sa-1", Outcome: &event.SubagentOutcome{Type: event.SubagentSuspended, InterruptIDs: []string{"i1"}}},
		&event.SubagentError{ID: "sa-1", Message: "timeout"},
	} {
		out, keep := transform.Strip(e)
		assert.False(t, keep, "%s is dropped", e.EventType())
		assert.Nil(t, out)
	}
}

func TestStripSubagentsCarriers(t *testing.T) {
	t.Parallel()
	tag := event.Ptr("sa-1")
	user := event.Message{ID: "u1", Role: event.RoleUser, Content: json.RawMessage(`"hello"`)}
	asst := event.Message{ID: "a1", Role: event.RoleAssistant, Content: json.RawMessage(`"hi"`), Subagent: tag,
		ToolCalls: []event.ToolCall{{ID: "tc1", Type: "function", Function: event.FunctionCall{Name: "search", Arguments: "{}"}}}}
	interrupt := event.Interrupt{ID: "i1", Reason: "confirmation", Message: event.Ptr("ok?"), Subagent: tag}

	cases := []struct {
		name     string
		in       event.Event
		changed  bool
		untagged func(t *testing.T, out event.Event)
	}{
		{
			name: "RUN_STARTED with tagged input messages", changed: true,
			in: &event.RunStarted{ThreadID: "th", RunID: "r", Input: &event.RunAgentInput{ThreadID: "th", RunID: "r",
				Messages: []event.Message{user, asst}}},
			untagged: func(t *testing.T, out event.Event) {
				for _, m := range out.(*event.RunStarted).Input.Messages {
					assert.Nil(t, m.Subagent, "input message %s", m.ID)
				}
			},
		},
		{
			name: "RUN_STARTED with untagged input",
			in: &event.RunStarted{ThreadID: "th", RunID: "r", Input: &event.RunAgentInput{ThreadID: "th", RunID: "r",
				Messages: []event.Message{user}}},
		},
		{name: "RUN_STARTED without input", in: &event.RunStarted{ThreadID: "th", RunID: "r"}},
		{
			name: "MESSAGES_SNAPSHOT with tagged messages", changed: true,
			in: &event.MessagesSnapshot{Messages: []event.Message{user, asst}},
			untagged: func(t *testing.T, out event.Event) {
				for _, m := range out.(*event.MessagesSnapshot).Messages {
					assert.Nil(t, m.Subagent, "message %s", m.ID)
				}
			},
		},
		{name: "MESSAGES_SNAPSHOT untagged", in: &event.MessagesSnapshot{Messages: []event.Message{user}}},
		{
			name: "RUN_FINISHED with a tagged interrupt", changed: true,
			in: &event.RunFinished{ThreadID: "th", RunID: "r", Outcome: &event.RunFinishedOutcome{Type: event.OutcomeInterrupt,
				Interrupts: []event.Interrupt{{ID: "i0", Reason: "input_required"}, interrupt}}},
			untagged: func(t *testing.T, out event.Event) {
				for _, in := range out.(*event.RunFinished).Outcome.Interrupts {
					assert.Nil(t, in.Subagent, "interrupt %s", in.ID)
				}
			},
		},
		{name: "RUN_FINISHED success", in: &event.RunFinished{ThreadID: "th", RunID: "r", Result: json.RawMessage(`{"ok":true}`)}},
		{name: "RUN_ERROR", in: &event.RunError{Message: "boom"}},
		{name: "untagged text", in: &event.TextMessageContent{MessageID: "m1", Delta: "x"}},
		{name: "deprecated THINKING_START", in: &event.ThinkingStart{Title: event.Ptr("t")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before := fields(t, tc.in, false)
			out, keep := transform.Strip(tc.in)
			require.True(t, keep)
			assert.Equal(t, before, fields(t, tc.in, false), "the input is not modified")
			if !tc.changed {
				assert.Same(t, tc.in, out, "nothing to strip: the event itself")
				return
			}
			assert.NotSame(t, tc.in, out)
			tc.untagged(t, out)
			// Apart from the tags, the copy says what the input says.
			assert.Equal(t, withoutTags(before), fields(t, out, false))
		})
	}

	out, keep := transform.Strip(nil)
	assert.True(t, keep)
	assert.Nil(t, out, "nil passes through")
}

// withoutTags deletes every "subagentRunId" key from a decoded JSON value.
func withoutTags(v map[string]any) map[string]any {
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			delete(x, "subagentRunId")
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return v
}

// pairs is a source sequence that records how far its consumer pulled it.
type pairs struct {
	items  []pair
	pulled int
	closed bool // the consumer stopped early
}

type pair struct {
	e   event.Event
	err error
}

func (p *pairs) seq() iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		for _, it := range p.items {
			p.pulled++
			if !yield(it.e, it.err) {
				p.closed = true
				return
			}
		}
	}
}

func TestHideSubagents(t *testing.T) {
	t.Parallel()
	decodeErr := &event.DecodeError{Type: event.TypeStepStarted, Pointer: "/stepName", Offset: -1, Rule: event.RuleSchema, Reason: "missing"}
	broken := errors.New("connection reset")
	src := &pairs{items: []pair{
		{e: &event.RunStarted{ThreadID: "th1", RunID: "r1"}},
		{e: &event.SubagentStarted{ID: "sa-1", Name: "researcher"}},
		{e: &event.TextMessageStart{Attribution: event.By("sa-1"), MessageID: "m1"}},
		{err: decodeErr},
		{e: &event.TextMessageContent{Attribution: event.By("sa-1"), MessageID: "m1", Delta: "hi"}},
		{e: &event.TextMessageEnd{MessageID: "m1"}},
		{e: &event.SubagentFinished{ID: "sa-1"}},
		{e: &event.SubagentError{ID: "sa-2", Message: "x"}},
		{err: broken},
	}}

	type out struct {
		typ    event.Type
		tagged bool
		err    error
	}
	var got []out
	for e, err := range transform.HideSubagents(src.seq()) {
		if err != nil {
			got = append(got, out{err: err})
			continue
		}
		_, tagged := e.SubagentRunID()
		got = append(got, out{typ: e.EventType(), tagged: tagged})
	}
	assert.Equal(t, []out{
		{typ: event.TypeRunStarted},
		{typ: event.TypeTextMessageStart},
		{err: decodeErr},
		{typ: event.TypeTextMessageContent},
		{typ: event.TypeTextMessageEnd},
		{typ: event.TypeCustom}, // the trace of SUBAGENT_ERROR
		{err: broken},
	}, got, "lifecycle events dropped or traced, tags stripped, errors passed through in order")
	assert.False(t, src.closed)

	// Stopping early stops the source.
	src = &pairs{items: slices.Repeat([]pair{{e: &event.SubagentStarted{ID: "sa-1", Name: "researcher"}}, {e: &event.TextMessageStart{Attribution: event.By("sa-1"), MessageID: "m1"}}}, 10)}
	for range transform.HideSubagents(src.seq()) {
		break
	}
	assert.True(t, src.closed, "the source was told to stop")
	assert.Equal(t, 2, src.pulled, "nothing was pulled after the consumer stopped")
}

// TestHideSubagentsKeepsTheSwarmValid checks that the demo swarm, hidden,
// is a valid stream without any subagent in it, with the same messages and
// state as the original but for attribution.
func TestHideSubagentsKeepsTheSwarmValid(t *testing.T) {
	t.Parallel()
	for _, seed := range []int64{1, 2, 3} {
		events := agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: seed})
		seq := func(yield func(event.Event, error) bool) {
			for _, e := range events {
				if !yield(e, nil) {
					return
				}
			}
		}
		before := make([]map[string]any, len(events))
		for i, e := range events {
			before[i] = fields(t, e, false)
		}

		full, hidden := view.New(), view.New()
		for _, e := range events {
			var err error
			full, err = reducer.Fold(full, e)
			require.NoError(t, err, "seed %d: the swarm is valid", seed)
		}
		n := 0
		for e, err := range transform.HideSubagents(seq) {
			require.NoError(t, err)
			n++
			hidden, err = reducer.Fold(hidden, e)
			require.NoError(t, err, "seed %d: the hidden swarm is valid (event %d, %s)", seed, n-1, e.EventType())
		}
		assert.Less(t, n, len(events), "lifecycle events were dropped")
		assert.Zero(t, countSeq(hidden.Invocations()), "no subagent is left")
		for m := range hidden.Messages() {
			assert.Nil(t, m.Subagent, "message %s carries no attribution", m.ID)
		}
		assert.JSONEq(t, string(full.State()), string(hidden.State()), "the run state is the same")
		var fullMsgs, hiddenMsgs []event.Message
		for m := range full.Messages() {
			m.Subagent = nil
			fullMsgs = append(fullMsgs, m)
		}
		for m := range hidden.Messages() {
			hiddenMsgs = append(hiddenMsgs, m)
		}
		assert.Equal(t, fullMsgs, hiddenMsgs, "the messages are the same but for attribution")
		pending := hidden.PendingInterrupts()
		require.Len(t, pending, 1, "the run waits for one approval")
		assert.Nil(t, pending[0].Subagent, "the interrupt is no longer attributed")
		for i, e := range events {
			assert.Equal(t, before[i], fields(t, e, false), "event %d was not modified", i)
		}
	}
}

func countSeq[T any](seq iter.Seq[T]) int {
	n := 0
	for range seq {
		n++
	}
	return n
}
