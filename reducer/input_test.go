package reducer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

func msg(id string, role event.Role, content string, sub ...string) event.Message {
	m := event.Message{ID: id, Role: role, Content: json.RawMessage(fmt.Sprintf("%q", content))}
	if len(sub) > 0 {
		m.Subagent = &sub[0]
	}
	return m
}

func ids(v *view.View) []string {
	var out []string
	for m := range v.Messages() {
		out = append(out, m.ID)
	}
	return out
}

// foldAll folds events with Fold and returns the view and the rule of each
// violation.
func foldAll(v *view.View, evs ...event.Event) (*view.View, []string) {
	var rules []string
	for _, e := range evs {
		var err error
		v, err = reducer.Fold(v, e)
		if viol, ok := err.(*reducer.Violation); ok {
			rules = append(rules, viol.Rule)
		}
	}
	return v, rules
}

func TestInput(t *testing.T) {
	history := []event.Message{
		msg("u0", event.RoleUser, "Earlier question"),
		msg("a0", event.RoleAssistant, "Earlier answer", "sub-1"),
		msg("u1", event.RoleUser, "Current question"),
	}
	run := func(id string, evs ...event.Event) []event.Event {
		out := []event.Event{&event.RunStarted{ThreadID: "stream-thread", RunID: id}}
		out = append(out, evs...)
		return append(out, &event.RunFinished{ThreadID: "stream-thread", RunID: id})
	}
	tests := []struct {
		name     string
		before   []event.Event // folded (and ended) before the input
		noEnd    bool          // leave the stream before the input open
		input    *event.RunAgentInput
		after    []event.Event
		ids      []string
		state    string
		rules    []string // violations of the events after the input
		warnings []string // rules of the warnings
	}{
		{
			name:  "history first, then the stream",
			input: &event.RunAgentInput{ThreadID: "th", Messages: history},
			after: run("r1", &event.TextMessageStart{MessageID: "m1"}, &event.TextMessageEnd{MessageID: "m1"}),
			ids:   []string{"u0", "a0", "u1", "m1"},
			state: `{}`,
		},
		{
			name:  "history owners bind later events (R16)",
			input: &event.RunAgentInput{ThreadID: "th", Messages: history},
			after: run("r1",
				&event.TextMessageStart{Attribution: event.By("sub-2"), MessageID: "a0"},
				&event.TextMessageStart{Attribution: event.By("sub-1"), MessageID: "a0"},
				&event.TextMessageEnd{MessageID: "a0"}),
			ids:   []string{"u0", "a0", "u1"},
			state: `{}`,
			rules: []string{"R16"},
			// sub-2 streams without a SUBAGENT_STARTED (R12 warns).
			warnings: []string{"R12"},
		},
		{
			name:  "echo adds only ids not held",
			input: &event.RunAgentInput{ThreadID: "th", Messages: history},
			after: []event.Event{
				&event.RunStarted{ThreadID: "th", RunID: "r1", Input: &event.RunAgentInput{Messages: []event.Message{
					msg("u1", event.RoleUser, "echoed"), msg("x", event.RoleUser, "new")}}},
				&event.RunFinished{ThreadID: "th", RunID: "r1"},
			},
			ids:   []string{"u0", "a0", "u1", "x"},
			state: `{}`,
		},
		{
			name:  "a snapshot replaces the history",
			input: &event.RunAgentInput{ThreadID: "th", Messages: history},
			after: run("r1", &event.MessagesSnapshot{Messages: []event.Message{msg("u1", event.RoleUser, "q"), msg("s", event.RoleAssistant, "a")}}),
			ids:   []string{"u1", "s"},
			state: `{}`,
		},
		{
			name: "continuing keeps client-only activity and takes the input's history",
			before: run("r1",
				&event.TextMessageStart{MessageID: "m1"}, &event.TextMessageEnd{MessageID: "m1"},
				&event.ActivitySnapshot{MessageID: "act", ActivityType: "PLAN", Content: json.RawMessage(`{}`)},
				&event.StateSnapshot{Snapshot: json.RawMessage(`{"n":1}`)}),
			input: &event.RunAgentInput{ThreadID: "th", Messages: []event.Message{
				{ID: "m1", Role: event.RoleAssistant, Content: json.RawMessage(`""`)}, msg("u2", event.RoleUser, "next")}},
			after: run("r2"),
			ids:   []string{"m1", "act", "u2"},
			state: `{"n":1}`,
		},
		{
			name:  "the input's state becomes the run state",
			input: &event.RunAgentInput{ThreadID: "th", State: json.RawMessage(`{"k":[1]}`)},
			after: run("r1", &event.StateDelta{Delta: json.RawMessage(`[{"op":"add","path":"/k/-","value":2}]`)}),
			state: `{"k":[1,2]}`,
		},
		{
			name:     "a stream left open is ended first, and the next may start",
			before:   []event.Event{&event.RunStarted{ThreadID: "th", RunID: "r1"}},
			noEnd:    true,
			input:    &event.RunAgentInput{ThreadID: "th", Messages: history[:1]},
			after:    run("r2"),
			ids:      []string{"u0"},
			state:    `{}`,
			warnings: []string{"G12"},
		},
		{
			name:  "the next stream must start with RUN_STARTED again (V1)",
			input: &event.RunAgentInput{ThreadID: "th"},
			after: []event.Event{&event.TextMessageStart{MessageID: "m"}},
			state: `{}`,
			rules: []string{"V1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, rules := foldAll(view.New(), tc.before...)
			require.Empty(t, rules)
			if !tc.noEnd && len(tc.before) > 0 {
				v = reducer.End(v, nil)
			}
			events := v.EventCount()
			in, err := reducer.Input(v, tc.input)
			require.NoError(t, err)
			assert.Equal(t, events, in.EventCount(), "the input is not an event")
			assert.Equal(t, tc.input.ThreadID, in.Thread())

			b := reducer.NewBuilder(v)
			require.NoError(t, b.Input(tc.input))
			for _, e := range tc.after {
				_ = b.Fold(e)
			}
			bv := b.End(nil)

			got, rules := foldAll(in, tc.after...)
			got = reducer.End(got, nil)
			assert.Equal(t, tc.rules, rules)
			assert.Equal(t, tc.ids, ids(got))
			assert.JSONEq(t, tc.state, string(got.State()))
			var warnings []string
			for _, d := range got.Diagnostics() {
				if d.Kind == view.DiagWarning {
					warnings = append(warnings, d.Rule)
				}
			}
			assert.Equal(t, tc.warnings, warnings)

			gj, err := json.Marshal(got)
			require.NoError(t, err)
			bj, err := json.Marshal(bv)
			require.NoError(t, err)
			assert.JSONEq(t, string(gj), string(bj), "a Builder folds the input as Input does")
		})
	}
}

func TestInputOwnsHistoryBySubagent(t *testing.T) {
	v, err := reducer.Input(view.New(), &event.RunAgentInput{ThreadID: "th", Messages: []event.Message{
		msg("a0", event.RoleAssistant, "from the researcher", "sub-1"),
	}})
	require.NoError(t, err)
	m, ok := v.Message("a0")
	require.True(t, ok)
	require.NotNil(t, m.Subagent)
	assert.Equal(t, "sub-1", *m.Subagent)
	inv := v.Invocation("sub-1")
	require.NotNil(t, inv, "a subagent's history lands in its invocation")
	assert.Equal(t, -1, inv.RunIndex(), "known from history before any run")
}

func TestInputRefused(t *testing.T) {
	v, _ := foldAll(view.New(), &event.RunStarted{ThreadID: "th", RunID: "r1"}, &event.RunFinished{ThreadID: "th", RunID: "r1"})
	v = reducer.End(v, nil)
	tests := []struct {
		name  string
		in    *event.RunAgentInput
		rule  string
		id    string
		index int
	}{
		{"duplicate id", &event.RunAgentInput{Messages: []event.Message{
			msg("u0", event.RoleUser, "a"), msg("u1", event.RoleUser, "b"), msg("u0", event.RoleAssistant, "c")}}, "A1", "u0", 2},
		{"state not JSON", &event.RunAgentInput{State: json.RawMessage(`{"a":`)}, "E3", "", -1},
		// A history built in Go, not decoded: the view could not be written
		// as JSON afterwards.
		{"content not JSON", &event.RunAgentInput{Messages: []event.Message{
			msg("u0", event.RoleUser, "a"), {ID: "u1", Role: event.RoleUser, Content: json.RawMessage(`not json`)}}}, "E3", "u1", 1},
		{"content too deep", &event.RunAgentInput{Messages: []event.Message{
			{ID: "u2", Role: event.RoleUser, Content: json.RawMessage(strings.Repeat("[", 20000) + strings.Repeat("]", 20000))}}}, "E3", "u2", 0},
		{"metadata not JSON", &event.RunAgentInput{Messages: []event.Message{
			{ID: "u3", Role: event.RoleUser, Content: json.RawMessage(`"x"`), Metadata: json.RawMessage(`{`)}}}, "E3", "u3", 0},
		{"tool call metadata not JSON", &event.RunAgentInput{Messages: []event.Message{
			{ID: "a4", Role: event.RoleAssistant, ToolCalls: []event.ToolCall{{ID: "c", Type: "function",
				Function: event.FunctionCall{Name: "f"}, Metadata: json.RawMessage(`[`)}}}}}, "E3", "a4", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := reducer.Input(v, tc.in)
			var ie *reducer.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tc.rule, ie.Rule)
			assert.Equal(t, tc.id, ie.MessageID)
			assert.Equal(t, tc.index, ie.Index)
			assert.Same(t, v, got, "nothing folded")
			if tc.id != "" {
				assert.Contains(t, err.Error(), "'"+tc.id+"'")
			}
			b := reducer.NewBuilder(v)
			require.ErrorAs(t, b.Input(tc.in), &ie)
			assert.Same(t, v, b.View())
		})
	}
}

// A client's run: the history it sends first, then what the agent streams.
func ExampleInput() {
	v, err := reducer.Input(view.New(), &event.RunAgentInput{
		ThreadID: "th1", RunID: "r1",
		Messages: []event.Message{{ID: "u1", Role: event.RoleUser, Content: json.RawMessage(`"What is 6×7?"`)}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range []event.Event{
		&event.RunStarted{ThreadID: "th1", RunID: "r1"},
		&event.TextMessageStart{MessageID: "m1"},
		&event.TextMessageContent{MessageID: "m1", Delta: "42"},
		&event.TextMessageEnd{MessageID: "m1"},
		&event.RunFinished{ThreadID: "th1", RunID: "r1"},
	} {
		v, _ = reducer.Fold(v, e)
	}
	for m := range v.Messages() {
		fmt.Printf("%s %s: %s\n", m.Role, m.ID, m.Content)
	}
	// Output:
	// user u1: "What is 6×7?"
	// assistant m1: "42"
}

// FuzzInput folds an arbitrary run input (as JSON) and then an arbitrary
// stream (JSON Lines) after a first run: Input must never panic, must refuse
// only with an *InputError that leaves the view as it was, must not count
// as an event, and a Builder must fold the input exactly as Input does.
func FuzzInput(f *testing.F) {
	vecs, err := conformance.LoadClient()
	if err != nil {
		f.Fatal(err)
	}
	for _, vec := range vecs {
		if len(vec.Events) <= 40 {
			var jsonl bytes.Buffer
			for _, e := range vec.Events {
				if err := json.Compact(&jsonl, e); err != nil {
					f.Fatal(err)
				}
				jsonl.WriteByte('\n')
			}
			f.Add([]byte(vec.Input()), jsonl.Bytes())
		}
	}
	f.Add([]byte(`{"threadId":"t","runId":"r","messages":[{"id":"a","role":"user","content":"x"},{"id":"a","role":"user","content":"y"}]}`), []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`))
	first := []event.Event{
		&event.RunStarted{ThreadID: "t0", RunID: "r0"},
		&event.TextMessageStart{Attribution: event.By("sub"), MessageID: "m0"},
		&event.TextMessageEnd{MessageID: "m0"},
		&event.RunFinished{ThreadID: "t0", RunID: "r0"},
	}
	f.Fuzz(func(t *testing.T, input, stream []byte) {
		in, _, err := event.DecodeInput(input)
		if err != nil {
			return
		}
		base, _ := foldAll(view.New(), first...)
		base = reducer.End(base, nil)
		before, _ := base.MarshalJSON()
		v, err := reducer.Input(base, in)
		b := reducer.NewBuilder(base)
		berr := b.Input(in)
		if err != nil {
			var ie *reducer.InputError
			if !errors.As(err, &ie) || v != base || !errors.As(berr, &ie) {
				t.Fatalf("refusal %T %v (builder %v) must be an *InputError returning the view", err, err, berr)
			}
			after, _ := base.MarshalJSON()
			if !bytes.Equal(before, after) {
				t.Fatal("a refused input changed the view")
			}
			return
		}
		if berr != nil || v.EventCount() != base.EventCount() || (in.ThreadID != "" && v.Thread() != in.ThreadID) {
			t.Fatalf("input: builder %v, events %d→%d, thread %q", berr, base.EventCount(), v.EventCount(), v.Thread())
		}
		for _, line := range bytes.Split(stream, []byte{'\n'}) {
			v, _ = reducer.FoldJSON(v, line)
			_ = b.FoldJSON(line)
		}
		v = reducer.End(v, nil)
		got, err := v.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := b.End(nil).MarshalJSON()
		if !bytes.Equal(got, want) {
			t.Fatalf("Builder and Input+FoldJSON differ:\n%s\n%s", want, got)
		}
	})
}

// TestInputContinuing: continuing a conversation (the history as NextInput
// sends it, plus new messages) appends only the new messages, with the
// same result as folding the history as a snapshot, for every client
// vector and the same stream folded after it again.
func TestInputContinuing(t *testing.T) {
	vecs, err := conformance.LoadClient()
	require.NoError(t, err)
	for _, vec := range vecs {
		t.Run(vec.Name, func(t *testing.T) {
			in, _, err := event.DecodeInput(vec.Input())
			require.NoError(t, err)
			v, err := reducer.Input(view.New(), in)
			require.NoError(t, err)
			for _, raw := range vec.Events {
				v, _ = reducer.FoldJSON(v, raw)
			}
			v = reducer.End(v, nil)
			var history []event.Message
			for m := range v.Messages() {
				if m.Role != event.RoleActivity {
					history = append(history, m)
				}
			}
			next := &event.RunAgentInput{ThreadID: "th", RunID: "next", Messages: append(history,
				msg("next-user", event.RoleUser, "and then?"))}
			fast, err := reducer.Input(v, next)
			require.NoError(t, err)
			slow, err := reducer.InputBySnapshot(v, next)
			require.NoError(t, err)
			for _, raw := range vec.Events {
				fast, _ = reducer.FoldJSON(fast, raw)
				slow, _ = reducer.FoldJSON(slow, raw)
			}
			fj, err := json.Marshal(reducer.End(fast, nil))
			require.NoError(t, err)
			sj, err := json.Marshal(reducer.End(slow, nil))
			require.NoError(t, err)
			assert.JSONEq(t, string(sj), string(fj))
		})
	}
}

// TestInputKeepsWhatTheHistoryCannotSay: continuing keeps a message
// abandoned by an errored run abandoned, where a history that restates it
// differently replaces it.
func TestInputKeepsWhatTheHistoryCannotSay(t *testing.T) {
	v, rules := foldAll(view.New(),
		&event.RunStarted{ThreadID: "th", RunID: "r1"},
		&event.TextMessageStart{MessageID: "m1"},
		&event.TextMessageContent{MessageID: "m1", Delta: "half"},
		&event.RunError{Message: "boom"},
	)
	require.Empty(t, rules)
	v = reducer.End(v, nil)
	held, _ := v.Message("m1")
	cont, err := reducer.Input(v, &event.RunAgentInput{Messages: []event.Message{held, msg("u2", event.RoleUser, "retry")}})
	require.NoError(t, err)
	st, _ := cont.MessageStatus("m1")
	assert.Equal(t, view.EntityAbandoned, st, "continuing keeps the message as it was")
	assert.Equal(t, []string{"m1", "u2"}, ids(cont))

	edited, err := reducer.Input(v, &event.RunAgentInput{Messages: []event.Message{msg("m1", event.RoleAssistant, "whole"), msg("u2", event.RoleUser, "retry")}})
	require.NoError(t, err)
	st, _ = edited.MessageStatus("m1")
	assert.Equal(t, view.EntityClosed, st, "a history that says otherwise replaces it")
	m, _ := edited.Message("m1")
	assert.JSONEq(t, `"whole"`, string(m.Content))
}

// BenchmarkInputContinue folds the next turn's input on a thread of n
// messages (the history NextInput sends, plus one user message): "append"
// is Input (the held messages left as they are), "snapshot" the snapshot
// rules applied to every message, for the ratio between the two.
func BenchmarkInputContinue(b *testing.B) {
	for _, n := range []int{100, 10000} {
		history := make([]event.Message, n)
		for i := range history {
			role := event.RoleUser
			if i%2 == 1 {
				role = event.RoleAssistant
			}
			history[i] = msg(fmt.Sprintf("m%d", i), role, fmt.Sprintf("message %d of a long thread, with some words in it", i))
		}
		v, err := reducer.Input(view.New(), &event.RunAgentInput{ThreadID: "th", Messages: history})
		if err != nil {
			b.Fatal(err)
		}
		held := v.MessageList()
		next := &event.RunAgentInput{ThreadID: "th", Messages: append(held, msg("next", event.RoleUser, "and then?"))}
		for _, c := range []struct {
			name string
			fn   func(*view.View, *event.RunAgentInput) (*view.View, error)
		}{{"append", reducer.Input}, {"snapshot", reducer.InputBySnapshot}} {
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.fn(v, next); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkInputContinueRatio alternates, in each round, the two ways of
// BenchmarkInputContinue on a 10k-message thread and reports the median
// over the rounds of snapshot's time over append's (x-snapshot): the ratio
// holds on a busy machine where the absolute times do not.
func BenchmarkInputContinueRatio(b *testing.B) {
	history := make([]event.Message, 10000)
	for i := range history {
		history[i] = msg(fmt.Sprintf("m%d", i), event.RoleUser, fmt.Sprintf("message %d of a long thread", i))
	}
	v, err := reducer.Input(view.New(), &event.RunAgentInput{ThreadID: "th", Messages: history})
	if err != nil {
		b.Fatal(err)
	}
	next := &event.RunAgentInput{ThreadID: "th", Messages: append(v.MessageList(), msg("next", event.RoleUser, "and then?"))}
	timed := func(fn func(*view.View, *event.RunAgentInput) (*view.View, error)) float64 {
		start := time.Now()
		if _, err := fn(v, next); err != nil {
			b.Fatal(err)
		}
		return float64(time.Since(start))
	}
	var xs []float64
	for i := 0; b.Loop(); i++ {
		var a, s float64
		if i%2 == 0 {
			a, s = timed(reducer.Input), timed(reducer.InputBySnapshot)
		} else {
			s, a = timed(reducer.InputBySnapshot), timed(reducer.Input)
		}
		xs = append(xs, s/a)
	}
	b.ReportMetric(median(xs), "x-snapshot")
}
