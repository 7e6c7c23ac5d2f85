package reducer_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// foldPublished folds evs into a new view and returns every view published on the
// way with its JSON, so that a test can check none changed afterwards.
func foldPublished(t *testing.T, evs []event.Event) ([]*view.View, []string) {
	t.Helper()
	v := view.New()
	var views []*view.View
	var jsons []string
	for i, e := range evs {
		var err error
		v, err = reducer.Reduce(v, e)
		require.NoError(t, err, "event %d (%s)", i, e.EventType())
		b, err := v.MarshalJSON()
		require.NoError(t, err)
		views, jsons = append(views, v), append(jsons, string(b))
	}
	return views, jsons
}

// requireUnchanged fails when a view published earlier reads differently
// now: nothing reachable from a published view may be written.
func requireUnchanged(t *testing.T, views []*view.View, jsons []string) {
	t.Helper()
	for i, w := range views {
		b, err := w.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, jsons[i], string(b), "view %d changed after it was published", i)
	}
}

// TestToolResultContent: a call keeps its result's content exactly as sent
// (G19), whatever its form, while its tool message reads it as any message
// content (a string becomes text, anything else is kept raw); the call
// shares the text's bytes when it can, which must change neither.
func TestToolResultContent(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		text          string // the tool message's text; "" when raw
		raw           bool   // the message keeps the content raw
	}{
		{name: "plain", content: `"result 42"`, text: "result 42"},
		{name: "empty", content: `""`},
		{name: "escapes", content: `"a\"b\\c\nd\/e"`, text: "a\"b\\c\nd/e"},
		{name: "unicode escape", content: `"caf\u00e9"`, text: "café"},
		{name: "utf-8", content: `"café ✓"`, text: "café ✓"},
		{name: "lone surrogate", content: `"x\ud800y"`, text: "x\xed\xa0\x80y"},
		{name: "parts", content: `[{"type":"text","text":"hi"}]`, raw: true},
	} {
		for _, sub := range []string{"", "s1"} {
			t.Run(tc.name+"/"+sub, func(t *testing.T) {
				var by event.Attribution // the parent agent
				if sub != "" {
					by = event.By(sub)
				}
				parent := "m"
				evs := []event.Event{
					&event.RunStarted{ThreadID: "t", RunID: "r"},
					&event.TextMessageStart{Attribution: by, MessageID: "m"},
					&event.TextMessageEnd{Attribution: by, MessageID: "m"},
					&event.ToolCallStart{Attribution: by, ToolCallID: "c", ToolCallName: "f", ParentMessageID: &parent},
					&event.ToolCallArgs{Attribution: by, ToolCallID: "c", Delta: `{"q":`},
					&event.ToolCallArgs{Attribution: by, ToolCallID: "c", Delta: `1}`},
					&event.ToolCallEnd{Attribution: by, ToolCallID: "c"},
					&event.ToolCallResult{Attribution: by, MessageID: "res", ToolCallID: "c", Content: json.RawMessage(tc.content)},
				}
				if sub != "" {
					evs = append(evs[:1], append([]event.Event{&event.SubagentStarted{ID: sub, Name: "w"}}, evs[1:]...)...)
				}
				views, jsons := foldPublished(t, evs)
				v := views[len(views)-1]
				call, ok := v.ToolCall("c")
				require.True(t, ok)
				require.Equal(t, "res", call.ResultMessageID)
				require.Equal(t, tc.content, string(call.Result), "the call's result, as sent")
				require.Equal(t, `{"q":1}`, call.Arguments)
				require.Equal(t, view.EntityClosed, call.Status)
				var res *event.Message
				for m := range v.Messages() {
					if m.ID == "res" {
						res = &m
					}
				}
				require.NotNil(t, res, "the tool message")
				require.Equal(t, event.RoleTool, res.Role)
				require.Equal(t, "c", *res.ToolCallID)
				if sub == "" {
					require.Nil(t, res.Subagent)
				} else {
					require.Equal(t, sub, *res.Subagent)
				}
				if tc.raw {
					require.Equal(t, tc.content, string(res.Content))
				} else {
					var got string
					require.NoError(t, json.Unmarshal(res.Content, &got), "%s", res.Content)
					if tc.name != "lone surrogate" { // encoding/json makes it U+FFFD; the view keeps it (G19)
						require.Equal(t, tc.text, got)
					}
				}
				// A result read from the view owns its memory.
				if len(call.Result) > 0 {
					call.Result[0] = 'X'
					again, _ := v.ToolCall("c")
					require.Equal(t, tc.content, string(again.Result))
				}
				requireUnchanged(t, views, jsons)
			})
		}
	}
}

// TestPlainCallsShareNothingVisible: calls without metadata, encrypted
// value or subagents share one info; a change to one call's info (metadata
// on TOOL_CALL_ARGS or TOOL_CALL_END, an encrypted value, a subagent it
// spawned, kept across a snapshot restating it) must reach that call alone,
// in the view folded and in none published before.
func TestPlainCallsShareNothingVisible(t *testing.T) {
	for _, sub := range []string{"", "s1"} {
		t.Run(sub, func(t *testing.T) {
			var by event.Attribution // the parent agent
			if sub != "" {
				by = event.By(sub)
			}
			meta := func(s string) event.Base { return event.Base{Metadata: json.RawMessage(s)} }
			a := "a"
			qc := "q"
			evs := []event.Event{
				&event.RunStarted{ThreadID: "t", RunID: "r", Input: &event.RunAgentInput{Messages: []event.Message{
					{ID: "h", Role: event.RoleAssistant, ToolCalls: []event.ToolCall{{ID: "hc", Type: "function", Function: event.FunctionCall{Name: "g", Arguments: "{}"}}}},
				}}},
				&event.ToolCallStart{Attribution: by, ToolCallID: "p", ToolCallName: "f", ParentMessageID: &a},
				&event.ToolCallStart{Attribution: by, ToolCallID: "q", ToolCallName: "f", ParentMessageID: &a},
				&event.ToolCallArgs{Attribution: by, ToolCallID: "p", Delta: "{}"},
				&event.ToolCallArgs{Base: meta(`{"k":1}`), Attribution: by, ToolCallID: "q", Delta: "{"},
				&event.ToolCallEnd{Attribution: by, ToolCallID: "p"},
				&event.ToolCallEnd{Base: meta(`{"end":true}`), Attribution: by, ToolCallID: "q"},
				&event.ReasoningEncryptedValue{Attribution: by, Subtype: event.EncryptedToolCall, EntityID: "q", EncryptedValue: "E"},
				&event.SubagentStarted{ID: "kid", Name: "k", ParentToolCallID: &qc},
				&event.ToolCallResult{Attribution: by, MessageID: "rp", ToolCallID: "p", Content: json.RawMessage(`"P"`)},
				&event.ToolCallResult{Attribution: by, MessageID: "rq", ToolCallID: "q", Content: json.RawMessage(`"Q"`)},
				&event.MessagesSnapshot{Messages: []event.Message{
					{ID: "h", Role: event.RoleAssistant, ToolCalls: []event.ToolCall{{ID: "hc", Type: "function", Function: event.FunctionCall{Name: "g", Arguments: "{}"}}}},
					{ID: "a", Role: event.RoleAssistant, ToolCalls: []event.ToolCall{
						{ID: "p", Type: "function", Function: event.FunctionCall{Name: "f", Arguments: "{}"}},
						{ID: "q", Type: "function", Function: event.FunctionCall{Name: "f", Arguments: "{"}},
					}},
				}},
			}
			if sub != "" {
				evs = append(evs[:1], append([]event.Event{&event.SubagentStarted{ID: sub, Name: "w"}}, evs[1:]...)...)
			}
			views, jsons := foldPublished(t, evs)
			v := views[len(views)-1]
			for _, id := range []string{"p", "hc"} {
				c, ok := v.ToolCall(id)
				require.True(t, ok, id)
				require.Nil(t, c.EncryptedValue, id)
				require.Empty(t, c.Subagents, id)
			}
			before, ok := views[len(views)-2].ToolCall("q") // the snapshot restates q without its value
			require.True(t, ok)
			require.Equal(t, "E", *before.EncryptedValue)
			q, ok := v.ToolCall("q")
			require.True(t, ok)
			require.Equal(t, []string{"kid"}, q.Subagents, "kept across the snapshot")
			require.Equal(t, `"Q"`, string(q.Result), "kept across the snapshot")
			p, _ := v.ToolCall("p")
			require.Equal(t, `"P"`, string(p.Result))
			for i, w := range []*view.View{views[len(views)-2], v} {
				for m := range w.Messages() {
					for _, c := range m.ToolCalls {
						if c.ID == "q" {
							if i == 0 {
								require.JSONEq(t, `{"k":1,"end":true}`, string(c.Metadata))
							}
							continue
						}
						require.Nil(t, c.Metadata, "call %s", c.ID)
						require.Nil(t, c.EncryptedValue, "call %s", c.ID)
					}
				}
			}
			requireUnchanged(t, views, jsons)
		})
	}
}

// TestResultsFollowTheirHolder: a TOOL_CALL_RESULT goes after the tool
// messages already following the message holding its call, starting from
// the result inserted last after that message while the list has not been
// rebuilt since; a MESSAGES_SNAPSHOT rebuilding the list forgets it, so a
// tool message it turned into another role ends the walk again.
func TestResultsFollowTheirHolder(t *testing.T) {
	const start = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
	call := func(id, parent string) []string {
		return []string{
			`{"type":"TOOL_CALL_START","toolCallId":"` + id + `","toolCallName":"f","parentMessageId":"` + parent + `"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"` + id + `"}`,
		}
	}
	result := func(id, callID string) []string {
		return []string{`{"type":"TOOL_CALL_RESULT","messageId":"` + id + `","toolCallId":"` + callID + `","content":"ok"}`}
	}
	text := func(id string) []string {
		return []string{
			`{"type":"TEXT_MESSAGE_START","messageId":"` + id + `","role":"assistant"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"` + id + `"}`,
		}
	}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	// a holds x0 and x1, b follows; q answers x1, then p answers x0.
	answered := cat([]string{start}, text("a"), call("x0", "a"), call("x1", "a"), text("b"), result("q", "x1"), result("p", "x0"))
	// snapshot restates the list, with q in the given role.
	snapshot := func(qRole string) []string {
		q := `{"id":"q","role":"tool","content":"ok","toolCallId":"x1"}`
		if qRole != "tool" {
			q = `{"id":"q","role":"` + qRole + `","content":"ok"}`
		}
		return []string{`{"type":"MESSAGES_SNAPSHOT","messages":[` +
			`{"id":"a","role":"assistant","toolCalls":[` +
			`{"id":"x0","type":"function","function":{"name":"f","arguments":""}},` +
			`{"id":"x1","type":"function","function":{"name":"f","arguments":""}}]},` +
			q + `,{"id":"p","role":"tool","content":"ok","toolCallId":"x0"},` +
			`{"id":"b","role":"assistant","content":"hi"}]}`}
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"in order", cat(answered, result("r", "x1")), []string{"a", "q", "p", "r", "b"}},
		{"many calls", cat([]string{start}, text("a"), call("x0", "a"), call("x1", "a"), call("x2", "a"), text("b"),
			result("r2", "x2"), result("r0", "x0"), result("r1", "x1"), result("r3", "x2")),
			[]string{"a", "r2", "r0", "r1", "r3", "b"}},
		{"past the flat list", cat([]string{start}, text("a"),
			call("y0", "a"), call("y1", "a"), call("y2", "a"), call("y3", "a"), call("y4", "a"), call("y5", "a"),
			call("y6", "a"), call("y7", "a"), call("y8", "a"), call("y9", "a"), call("y10", "a"), call("y11", "a"),
			call("y12", "a"), call("y13", "a"), call("y14", "a"), call("y15", "a"), call("y16", "a"), text("b"),
			result("r0", "y16"), call("y17", "a"), result("r1", "y3"), call("y18", "a"), result("r2", "y18")),
			[]string{"a", "r0", "r1", "r2", "b"}},
		{"snapshot keeps the tool messages", cat(answered, snapshot("tool"), result("r", "x1")),
			[]string{"a", "q", "p", "r", "b"}},
		{"snapshot makes q a user message", cat(answered, snapshot("user"), result("r", "x1")),
			[]string{"a", "r", "q", "p", "b"}},
		{"answered again after the snapshot", cat(answered, snapshot("user"), result("r", "x1"), result("s", "x0")),
			[]string{"a", "r", "s", "q", "p", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := mustFoldOn(t, view.New(), tc.lines...)
			require.Equal(t, tc.want, listIDs(v))
		})
	}
}

// TestResultHint: the result a TOOL_CALL_RESULT walks from (the result
// inserted last after the message holding its call) is the one answering
// the call answered last, however the holder's calls grew meanwhile; it
// survives what leaves the list as it is (more calls, a result appended
// elsewhere, a run input continuing the conversation) and a
// MESSAGES_SNAPSHOT forgets it, for a holder it keeps or restates. Without
// it, n results under one message would walk n²/2 messages.
func TestResultHint(t *testing.T) {
	ok := json.RawMessage(`"ok"`)
	p := func(s string) *string { return &s }
	calls := func(ids ...string) []event.ToolCall {
		var cs []event.ToolCall
		for _, id := range ids {
			cs = append(cs, event.ToolCall{ID: id, Type: "function", Function: event.FunctionCall{Name: "f"}})
		}
		return cs
	}
	start := []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r"},
		&event.TextMessageStart{MessageID: "a"},
		&event.TextMessageEnd{MessageID: "a"},
		&event.ToolCallStart{ToolCallID: "x0", ToolCallName: "f", ParentMessageID: p("a")},
		&event.ToolCallEnd{ToolCallID: "x0"},
		&event.ToolCallStart{ToolCallID: "x1", ToolCallName: "f", ParentMessageID: p("a")},
		&event.ToolCallEnd{ToolCallID: "x1"},
		&event.TextMessageStart{MessageID: "b"},
		&event.TextMessageEnd{MessageID: "b"},
		&event.ToolCallResult{MessageID: "q", ToolCallID: "x1", Content: ok},
		&event.ToolCallResult{MessageID: "r", ToolCallID: "x0", Content: ok},
	}
	many := []event.Event{&event.RunStarted{ThreadID: "t", RunID: "r"}}
	for i := range 20 {
		id := fmt.Sprint("y", i)
		many = append(many,
			&event.ToolCallStart{ToolCallID: id, ToolCallName: "f", ParentMessageID: p("a")},
			&event.ToolCallEnd{ToolCallID: id})
		if i%3 == 2 {
			many = append(many, &event.ToolCallResult{MessageID: fmt.Sprint("r", i), ToolCallID: fmt.Sprint("y", i-1), Content: ok})
		}
	}
	restated := []event.Message{
		{ID: "a", Role: event.RoleAssistant, ToolCalls: calls("x0", "x1")},
		{ID: "q", Role: event.RoleTool, Content: ok, ToolCallID: p("x1")},
		{ID: "r", Role: event.RoleTool, Content: ok, ToolCallID: p("x0")},
		{ID: "b", Role: event.RoleAssistant, Content: json.RawMessage(`"hi"`)},
	}
	for _, tc := range []struct {
		name   string
		evs    []event.Event
		input  bool // fold after evs a run input holding v's list and a user message
		holder string
		want   string // "": none
	}{
		{"the call answered last", start, false, "a", "r"},
		{"answered again", append(slices.Clone(start), &event.ToolCallResult{MessageID: "s", ToolCallID: "x1", Content: ok}), false, "a", "s"},
		{"past the flat list, calls added after", many, false, "a", "r17"},
		{"more calls", append(slices.Clone(start),
			&event.ToolCallResult{MessageID: "s", ToolCallID: "x1", Content: ok},
			&event.ToolCallStart{ToolCallID: "x2", ToolCallName: "f", ParentMessageID: p("a")},
			&event.ToolCallEnd{ToolCallID: "x2"}), false, "a", "s"},
		{"a result held by no message appended", append(slices.Clone(start),
			&event.ToolCallResult{MessageID: "z", ToolCallID: "nowhere", Content: ok}), false, "a", "r"},
		{"no result yet", start[:9], false, "a", ""},
		{"a run input continuing the conversation", start, true, "a", "r"},
		{"a snapshot restating the holder", append(slices.Clone(start), &event.MessagesSnapshot{Messages: restated}), false, "a", ""},
		{"a snapshot keeping a reasoning holder", []event.Event{
			&event.RunStarted{ThreadID: "t", RunID: "r"},
			&event.MessagesSnapshot{Messages: []event.Message{
				{ID: "a", Role: event.RoleReasoning, Content: json.RawMessage(`"hm"`), ToolCalls: calls("x0", "x1")},
				{ID: "b", Role: event.RoleAssistant, Content: json.RawMessage(`"hi"`)},
			}},
			&event.ToolCallResult{MessageID: "q", ToolCallID: "x1", Content: ok},
			&event.MessagesSnapshot{Messages: []event.Message{{ID: "b", Role: event.RoleAssistant, Content: json.RawMessage(`"hi"`)}}},
		}, false, "a", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := view.New()
			for i, e := range tc.evs {
				var err error
				v, err = reducer.Reduce(v, e)
				require.NoError(t, err, "event %d (%s)", i, e.EventType())
			}
			if tc.input {
				msgs := append(v.MessageList(), event.Message{ID: "u", Role: event.RoleUser, Content: json.RawMessage(`"go on"`)})
				var err error
				v, err = reducer.Input(v, &event.RunAgentInput{ThreadID: "t", RunID: "r2", Messages: msgs})
				require.NoError(t, err)
			}
			got, ok := reducer.LastResult(v, tc.holder)
			require.Equal(t, tc.want != "", ok, "a last result after %s: %q", tc.holder, got)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestResultsAfterAKeptHolder: a reasoning message holding calls (a Go
// program can fold one from history; the wire decoder keeps toolCalls for
// assistant messages only) survives a MESSAGES_SNAPSHOT that has no
// reasoning message, but the results inserted after it before the snapshot
// are not known to follow it any more: a result then walks from the
// message itself, and stops at a message the snapshot turned into a user
// message.
func TestResultsAfterAKeptHolder(t *testing.T) {
	calls := []event.ToolCall{{ID: "x0", Type: "function"}, {ID: "x1", Type: "function"}}
	tool := event.RoleTool
	p := func(s string) *string { return &s }
	evs := []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r"},
		&event.MessagesSnapshot{Messages: []event.Message{
			{ID: "a", Role: event.RoleReasoning, Content: json.RawMessage(`"hm"`), ToolCalls: calls},
			{ID: "b", Role: event.RoleAssistant, Content: json.RawMessage(`"hi"`)},
		}},
		&event.ToolCallResult{MessageID: "q", ToolCallID: "x1", Content: json.RawMessage(`"ok"`)},
		&event.ToolCallResult{MessageID: "p", ToolCallID: "x0", Content: json.RawMessage(`"ok"`)},
		&event.MessagesSnapshot{Messages: []event.Message{
			{ID: "q", Role: event.RoleUser, Content: json.RawMessage(`"ok"`)},
			{ID: "p", Role: tool, Content: json.RawMessage(`"ok"`), ToolCallID: p("x0")},
			{ID: "b", Role: event.RoleAssistant, Content: json.RawMessage(`"hi"`)},
		}},
		&event.ToolCallResult{MessageID: "r", ToolCallID: "x1", Content: json.RawMessage(`"ok"`)},
	}
	views, jsons := foldPublished(t, evs)
	require.Equal(t, []string{"a", "q", "p", "b"}, listIDs(views[3]), "before the snapshot")
	require.Equal(t, []string{"a", "r", "q", "p", "b"}, listIDs(views[len(views)-1]))
	requireUnchanged(t, views, jsons)
}

// TestToolMessageNamesItsCall: a tool message names the call it answers
// exactly, whether the call was closed (the message shares the call's id),
// still open (more arguments and the end come after the result), reopened
// and answered again, or held by no message; and no view published on the
// way changes.
func TestToolMessageNamesItsCall(t *testing.T) {
	m := "m"
	ok := json.RawMessage(`"ok"`)
	evs := []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r"},
		&event.TextMessageStart{MessageID: m},
		&event.TextMessageEnd{MessageID: m},
		// closed, then reopened and answered again
		&event.ToolCallStart{ToolCallID: "closed", ToolCallName: "f", ParentMessageID: &m},
		&event.ToolCallEnd{ToolCallID: "closed"},
		&event.ToolCallResult{MessageID: "r1", ToolCallID: "closed", Content: ok},
		&event.ToolCallStart{ToolCallID: "closed", ToolCallName: "g", ParentMessageID: &m},
		&event.ToolCallArgs{ToolCallID: "closed", Delta: "{}"},
		&event.ToolCallEnd{ToolCallID: "closed"},
		&event.ToolCallResult{MessageID: "r2", ToolCallID: "closed", Content: ok},
		// answered while open
		&event.ToolCallStart{ToolCallID: "open", ToolCallName: "f", ParentMessageID: &m},
		&event.ToolCallResult{MessageID: "r3", ToolCallID: "open", Content: ok},
		&event.ToolCallArgs{ToolCallID: "open", Delta: "{}"},
		&event.ToolCallEnd{ToolCallID: "open"},
		// held by no message
		&event.ToolCallResult{MessageID: "r4", ToolCallID: "nowhere", Content: ok},
	}
	views, jsons := foldPublished(t, evs)
	v := views[len(views)-1]
	names := map[string]string{}
	for _, msg := range v.MessageList() {
		if msg.ToolCallID != nil {
			names[msg.ID] = *msg.ToolCallID
		}
	}
	require.Equal(t, map[string]string{"r1": "closed", "r2": "closed", "r3": "open", "r4": "nowhere"}, names)
	for id, result := range map[string]string{"closed": "r2", "open": "r3"} {
		c, ok := v.ToolCall(id)
		require.True(t, ok, id)
		require.Equal(t, result, c.ResultMessageID, id)
	}
	requireUnchanged(t, views, jsons)
}
