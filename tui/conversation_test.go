package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// recorder is a Conversation that records the turns it is sent and
// answers each with err.
type recorder struct {
	mu    sync.Mutex
	turns []Turn
	err   error
}

func (r *recorder) Continue(_ context.Context, t Turn) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turns = append(r.turns, t)
	return r.err
}

func (r *recorder) sent() []Turn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Turn(nil), r.turns...)
}

// talking returns a model of the given size showing v, with conv as its
// conversation.
func talking(t testing.TB, w, h int, v *view.View, conv Conversation) *Model {
	t.Helper()
	m := New(nil, &Options{Title: "test", Conversation: conv})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(Frame{View: v, Time: t0})
	return m
}

// typeText types s, one key press per character.
func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// finish runs the command a key returned (a turn: Continue runs there) and
// hands its message back to the model, as bubbletea does.
func finish(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	require.NotNil(t, cmd, "the key sends a turn")
	msg := cmd()
	require.IsType(t, turnDoneMsg{}, msg)
	m.Update(msg)
}

// conversationViews are the views of the recorded conversation: the first
// run (interrupted), the approval answered (finished), and a follow-up
// question answered.
func conversationViews(t testing.TB) (interrupted, resumed, followedUp *view.View) {
	t.Helper()
	evs := events(t, "swarm-1-conversation")
	var ends []int
	for i, e := range evs {
		switch e.(type) {
		case *event.RunFinished, *event.RunError:
			ends = append(ends, i+1)
		}
	}
	require.Len(t, ends, 3, "three runs")
	return fold(t, false, evs[:ends[0]]...), fold(t, false, evs[:ends[1]]...), fold(t, false, evs...)
}

// TestConversationScreens renders the conversation's screens: the
// interrupt asked, the payload typed, the input line, the user's messages in
// the parent pane, the keys.
func TestConversationScreens(t *testing.T) {
	t.Parallel()
	interrupted, resumed, followedUp := conversationViews(t)
	cases := []struct {
		name string
		w, h int
		v    *view.View
		keys []string
		text string // typed after the keys
	}{
		{name: "ask", w: 100, h: 30, v: interrupted},
		{name: "ask-80", w: 80, h: 24, v: interrupted},
		{name: "ask-short", w: 80, h: 12, v: interrupted},
		{name: "ask-payload", w: 100, h: 30, v: interrupted, keys: []string{"p"}, text: `{"approved":true,"note":"ok"}`},
		{name: "ask-payload-empty", w: 80, h: 24, v: interrupted, keys: []string{"p"}},
		{name: "answered", w: 100, h: 30, v: interrupted, keys: []string{"y"}},
		{name: "message", w: 80, h: 24, v: resumed, keys: []string{"i"}, text: "And what about the winters?"},
		{name: "message-80", w: 80, h: 24, v: resumed},
		{name: "user-messages", w: 100, h: 80, v: followedUp, keys: []string{"enter"}},
		{name: "help", w: 80, h: 50, v: resumed, keys: []string{"?"}},
		{name: "notice", w: 80, h: 24, v: interrupted, keys: []string{"i"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := talking(t, tc.w, tc.h, tc.v, &recorder{})
			keys(m, tc.keys...)
			typeText(m, tc.text)
			requireGeometry(t, m, tc.w, tc.h)
			golden(t, "conversation-"+tc.name, screen(m))
		})
	}
}

// TestAnswerKeys answers the demo's approval interrupt with each key and
// checks the turn sent.
func TestAnswerKeys(t *testing.T) {
	t.Parallel()
	interrupted, _, _ := conversationViews(t)
	pending := interrupted.PendingInterrupts()
	require.Len(t, pending, 1)
	id := pending[0].ID
	resolved := func(payload string) *Turn {
		return &Turn{Answers: []event.ResumeEntry{{InterruptID: id, Status: event.ResumeResolved, Payload: json.RawMessage(payload)}}}
	}
	cases := []struct {
		name   string
		keys   []string
		text   string   // typed after the keys
		then   []string // pressed after the text
		want   *Turn    // nil: nothing sent
		notice string
		open   bool // the input line is still open
	}{
		{name: "y approves", keys: []string{"y"}, want: resolved(`{"approved":true}`)},
		{name: "n rejects", keys: []string{"n"}, want: resolved(`{"approved":false}`)},
		{name: "c cancels", keys: []string{"c"}, want: &Turn{Answers: []event.ResumeEntry{{InterruptID: id, Status: event.ResumeCancelled}}}},
		{name: "p sends the template", keys: []string{"p"}, then: []string{"enter"}, want: resolved(`{"approved":true}`)},
		{name: "p sends what is typed", keys: []string{"p", "ctrl+u"}, text: `{ "approved": false, "note": "too dear" }`, then: []string{"enter"},
			want: resolved(`{"approved":false,"note":"too dear"}`)},
		// The line starts empty: what is typed is the payload, not the
		// template with the typing appended to it.
		{name: "p starts empty", keys: []string{"p"}, text: `{"approved":false}`, then: []string{"enter"},
			want: resolved(`{"approved":false}`)},
		{name: "p refuses what is not JSON", keys: []string{"p", "ctrl+u"}, text: `{nope`, then: []string{"enter"}, notice: "not JSON", open: true},
		{name: "p refuses null", keys: []string{"p", "ctrl+u"}, text: `null`, then: []string{"enter"}, notice: "but null", open: true},
		{name: "esc closes the payload", keys: []string{"p", "esc"}},
		{name: "q types on the input line", keys: []string{"p", "ctrl+u"}, text: "q", open: true},
		{name: "i asks for the answer first", keys: []string{"i"}, notice: "answer the pending interrupt first"},
		{name: "keys in the state do not answer", keys: []string{"s", "y", "n", "c", "s"}},
		{name: "a notice lasts until the next key", keys: []string{"i", "down"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			conv := &recorder{}
			m := talking(t, 100, 30, interrupted, conv)
			var cmd tea.Cmd
			for _, k := range tc.keys {
				_, cmd = m.Update(press(k))
			}
			typeText(m, tc.text)
			for _, k := range tc.then {
				_, cmd = m.Update(press(k))
			}
			if tc.want == nil {
				assert.Nil(t, cmd, "nothing is sent")
				assert.Empty(t, conv.sent())
			} else {
				finish(t, m, cmd)
				assert.Equal(t, []Turn{*tc.want}, conv.sent())
			}
			assert.Equal(t, tc.open, m.edit != nil, "the input line is open")
			if tc.notice != "" {
				assert.Contains(t, m.notice, tc.notice)
				assert.Contains(t, screen(m), tc.notice, "the notice is on screen")
			} else {
				assert.Empty(t, m.notice)
			}
		})
	}
}

// interrupts folds a run that ends with the given interrupts: b is a
// suspended subagent; interrupts whose Subagent is nil are the parent's.
func interrupts(t *testing.T, its ...event.Interrupt) *view.View {
	t.Helper()
	var ids []string
	for _, it := range its {
		if it.Subagent != nil {
			ids = append(ids, it.ID)
		}
	}
	return fold(t, false,
		&event.RunStarted{ThreadID: "th", RunID: "r1"},
		&event.SubagentStarted{ID: "b", Name: "booker"},
		&event.SubagentFinished{ID: "b", Outcome: &event.SubagentOutcome{Type: event.SubagentSuspended, InterruptIDs: ids}},
		&event.RunFinished{ThreadID: "th", RunID: "r1", Outcome: &event.RunFinishedOutcome{Type: event.OutcomeInterrupt, Interrupts: its}},
	)
}

// TestInterruptKinds answers interrupts of every kind: expired ones, ones
// that ask for input rather than approval, several at once.
func TestInterruptKinds(t *testing.T) {
	t.Parallel()
	city := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"nights":{"type":"integer"}},"required":["city"]}`)
	expired := event.Interrupt{ID: "int-old", Reason: "confirmation", Message: event.Ptr("Book it?"), ExpiresAt: event.Ptr("2025-12-31T23:00:00Z"), Subagent: event.Ptr("b")}
	later := event.Interrupt{ID: "int-later", Reason: "confirmation", ExpiresAt: event.Ptr("2026-01-02T00:00:00Z"), Subagent: event.Ptr("b")}
	input := event.Interrupt{ID: "int-city", Reason: "input_required", Message: event.Ptr("Which city?"), ResponseSchema: city}
	cases := []struct {
		name   string
		v      *view.View
		keys   []string
		text   string
		want   []event.ResumeEntry // nil: nothing sent
		notice string
		screen []string
	}{
		{name: "an expired interrupt cannot be approved", v: interrupts(t, expired), keys: []string{"y"},
			notice: "expired at 2025-12-31T23:00:00Z", screen: []string{"expired at 2025-12-31T23:00:00Z", "c cancel", "booker b asks"}},
		{name: "an expired interrupt can be cancelled", v: interrupts(t, expired), keys: []string{"c"},
			want: []event.ResumeEntry{{InterruptID: "int-old", Status: event.ResumeCancelled}}},
		{name: "an interrupt that expires later", v: interrupts(t, later), keys: []string{"y"},
			want: []event.ResumeEntry{{InterruptID: "int-later", Status: event.ResumeResolved, Payload: approvePayload}}},
		{name: "input is not approved", v: interrupts(t, input), keys: []string{"y"},
			notice: "does not ask for approval", screen: []string{"parent agent asks", "Which city?", "answer {city: string, nights?: integer}", "p answer · c cancel"}},
		{name: "input is typed", v: interrupts(t, input), keys: []string{"p"}, text: `{"city":"Lyon"}`,
			want: []event.ResumeEntry{{InterruptID: "int-city", Status: event.ResumeResolved, Payload: json.RawMessage(`{"city":"Lyon"}`)}}},
		{name: "two interrupts, answered in turn", v: interrupts(t, input, later), keys: []string{"c", "n"},
			want: []event.ResumeEntry{
				{InterruptID: "int-city", Status: event.ResumeCancelled},
				{InterruptID: "int-later", Status: event.ResumeResolved, Payload: rejectPayload},
			}},
		{name: "the second of two is asked next", v: interrupts(t, input, later), keys: []string{"c"},
			screen: []string{"booker b asks", "confirmation · 2 of 2", "y approve · n reject"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			conv := &recorder{}
			m := talking(t, 100, 30, tc.v, conv)
			var cmd tea.Cmd
			for _, k := range tc.keys {
				_, cmd = m.Update(press(k))
			}
			if tc.text != "" {
				typeText(m, tc.text)
				_, cmd = m.Update(press("enter"))
			}
			if tc.want != nil {
				finish(t, m, cmd)
				assert.Equal(t, []Turn{{Answers: tc.want}}, conv.sent())
			} else {
				assert.Nil(t, cmd)
				assert.Empty(t, conv.sent())
			}
			if tc.notice != "" {
				assert.Contains(t, m.notice, tc.notice)
			}
			for _, s := range tc.screen {
				assert.Contains(t, screen(m), s)
			}
			requireGeometry(t, m, 100, 30)
		})
	}
}

// TestMessageTurn sends the next user message, and checks when the input
// line opens and what a failed turn shows.
func TestMessageTurn(t *testing.T) {
	t.Parallel()
	_, resumed, _ := conversationViews(t)
	running := swarm(t, "swarm-1", 300)

	t.Run("sent", func(t *testing.T) {
		conv := &recorder{}
		m := talking(t, 80, 24, resumed, conv)
		keys(m, "i")
		typeText(m, "hello  there")
		keys(m, "left", "left", "left", "left", "left", "backspace", "end")
		typeText(m, "!")
		assert.Contains(t, screen(m), "you › hello there!", "the input line shows what is typed")
		_, cmd := m.Update(press("enter"))
		assert.Contains(t, screen(m), "sending…", "the turn is under way")
		assert.True(t, m.busy())
		keys(m, "i")
		assert.Nil(t, m.edit, "no input line while a turn is under way")
		assert.Contains(t, m.notice, "a run is under way")
		finish(t, m, cmd)
		assert.Equal(t, []Turn{{Message: "hello there!"}}, conv.sent())
		assert.False(t, m.busy(), "the turn ended")
		assert.NotContains(t, screen(m), "sending…")
	})
	t.Run("paste", func(t *testing.T) {
		conv := &recorder{}
		m := talking(t, 80, 24, resumed, conv)
		keys(m, "i")
		m.Update(tea.PasteMsg{Content: "two\nlines\x1b[2J"})
		_, cmd := m.Update(press("enter"))
		finish(t, m, cmd)
		assert.Equal(t, []Turn{{Message: "two lines"}}, conv.sent(), "a paste is one line, without escape sequences")
	})
	t.Run("empty", func(t *testing.T) {
		conv := &recorder{}
		m := talking(t, 80, 24, resumed, conv)
		_, cmd := m.Update(press("i"))
		assert.Nil(t, cmd)
		typeText(m, "   ")
		_, cmd = m.Update(press("enter"))
		assert.Nil(t, cmd, "nothing to send")
		assert.Nil(t, m.edit, "the line closed")
		assert.Empty(t, conv.sent())
	})
	t.Run("while running", func(t *testing.T) {
		m := talking(t, 80, 24, running, &recorder{})
		keys(m, "i")
		assert.Nil(t, m.edit)
		assert.Contains(t, screen(m), "a run is under way")
		assert.NotContains(t, screen(m), "i message", "the footer does not offer it")
	})
	t.Run("before the first run", func(t *testing.T) {
		m := talking(t, 80, 24, view.New(), &recorder{})
		keys(m, "i")
		assert.Nil(t, m.edit, "the first run is still connecting")
	})
	t.Run("read-only", func(t *testing.T) {
		m := model(t, 80, 24, resumed)
		keys(m, "i")
		assert.Nil(t, m.edit)
		assert.Contains(t, m.notice, "read-only")
		assert.NotContains(t, screen(m), "i message")
	})
	t.Run("failed", func(t *testing.T) {
		conv := &recorder{err: errors.New("connection refused")}
		m := talking(t, 80, 24, resumed, conv)
		keys(m, "i")
		typeText(m, "hi")
		_, cmd := m.Update(press("enter"))
		finish(t, m, cmd)
		assert.Contains(t, screen(m), "the run could not continue: connection refused")
		keys(m, "i")
		assert.NotNil(t, m.edit, "the user can try again")
	})
	t.Run("ctrl+c quits from the input line", func(t *testing.T) {
		m := talking(t, 80, 24, resumed, &recorder{})
		keys(m, "i")
		cmd := keys(m, "ctrl+c")
		require.NotNil(t, cmd)
		assert.Equal(t, tea.QuitMsg{}, cmd())
	})
}

// TestStopCancelsTurn checks that stop cancels a turn under way and waits
// for its Continue to return.
func TestStopCancelsTurn(t *testing.T) {
	t.Parallel()
	_, resumed, _ := conversationViews(t)
	started := make(chan struct{})
	var returned bool
	conv := ConversationFunc(func(ctx context.Context, _ Turn) error {
		close(started)
		<-ctx.Done()
		returned = true
		return ctx.Err()
	})
	m := talking(t, 80, 24, resumed, conv)
	keys(m, "i")
	typeText(m, "hi")
	_, cmd := m.Update(press("enter"))
	require.NotNil(t, cmd)
	done := run(t, cmd)
	<-started
	m.Close()
	assert.True(t, returned, "Close waited for Continue")
	msg := receive(t, deadline(t), done)
	m.Update(msg)
	assert.Empty(t, m.notice, "a cancelled turn is no error to show")
}

// TestEditor edits the input line.
func TestEditor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		ops  []any // string: typed; else a key name in keyName
		text string
		pos  int
	}{
		{"typing", []any{"abc"}, "abc", 3},
		{"backspace", []any{"abc", key("backspace")}, "ab", 2},
		{"backspace at the start", []any{"abc", key("home"), key("backspace")}, "abc", 0},
		{"delete", []any{"abc", key("home"), key("delete")}, "bc", 0},
		{"insert in the middle", []any{"ac", key("left"), "b"}, "abc", 2},
		{"ctrl+a and ctrl+e", []any{"bc", key("ctrl+a"), "a", key("ctrl+e"), "d"}, "abcd", 4},
		{"ctrl+u", []any{"abc def", key("left"), key("left"), key("ctrl+u")}, "ef", 0},
		{"ctrl+k", []any{"abc def", key("home"), key("right"), key("ctrl+k")}, "a", 1},
		{"ctrl+w", []any{"abc def  ", key("ctrl+w")}, "abc ", 4},
		{"wide runes", []any{"日本", key("left"), "x"}, "日x本", 2},
		{"controls dropped", []any{"a\x1b[31mb\x07"}, "ab", 2},
		{"right stops at the end", []any{"a", key("right"), key("right")}, "a", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var e editor
			for _, op := range tc.ops {
				switch op := op.(type) {
				case string:
					e.insert(op)
				case key:
					e.key(press(string(op)))
				}
			}
			assert.Equal(t, tc.text, e.String())
			assert.Equal(t, tc.pos, e.pos)
			for _, w := range []int{4, 10, 40} {
				assert.Equal(t, w, width(ansi.Strip(e.view(w, plain("> ")))), "the line fills %d cells", w)
			}
		})
	}
	t.Run("modifiers", func(t *testing.T) {
		var e editor
		e.key(tea.KeyPressMsg{Code: 'x', Text: "x", Mod: tea.ModAlt})
		e.key(tea.KeyPressMsg{Code: 'y', Text: "Y", Mod: tea.ModCapsLock})
		e.key(tea.KeyPressMsg{Code: 'z', Text: "Z", Mod: tea.ModShift})
		assert.Equal(t, "YZ", e.String(), "alt+x is no text; caps lock and shift are")
	})
	t.Run("the cursor stays in sight", func(t *testing.T) {
		var e editor
		e.insert(strings.Repeat("x", 50) + "END")
		assert.Contains(t, ansi.Strip(e.view(20, plain("> "))), "END")
		e.key(press("home"))
		assert.Contains(t, ansi.Strip(e.view(20, plain("> "))), "> xxx")
	})
}

type key string

// TestSchemas checks the answer templates and the one-line summaries of
// response schemas.
func TestSchemas(t *testing.T) {
	t.Parallel()
	cases := []struct {
		schema, template, summary string
	}{
		{``, `{}`, ``},
		{`{"type":"object","properties":{"approved":{"type":"boolean"},"note":{"type":"string"}},"required":["approved"]}`,
			`{"approved":true}`, `{approved: boolean, note?: string}`},
		{`{"type":"object","properties":{"n":{"type":"integer"},"tags":{"type":"array"},"o":{"type":"object"},"x":{}},"required":["n","tags","o","x"]}`,
			`{"n":0,"tags":[],"o":{},"x":null}`, `{n: integer, tags: array, o: object, x: any}`},
		{`{"type":"string"}`, `""`, `{"type":"string"}`},
		{`{"type":"boolean"}`, `true`, `{"type":"boolean"}`},
		{`{"type":"number"}`, `0`, `{"type":"number"}`},
		{`{"type":"array"}`, `[]`, `{"type":"array"}`},
		{`not json`, `{}`, `not json`},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.template, payloadTemplate(json.RawMessage(tc.schema)), "template of %s", tc.schema)
		assert.True(t, tc.template == "" || json.Valid([]byte(tc.template)), "the template is JSON")
		assert.Equal(t, tc.summary, schemaSummary(json.RawMessage(tc.schema)), "summary of %s", tc.schema)
	}
	assert.True(t, approvable(event.Interrupt{}), "no schema: approvable")

	turn := Turn{Answers: []event.ResumeEntry{{InterruptID: "a", Status: event.ResumeCancelled}, {InterruptID: "b", Status: event.ResumeResolved}}}
	assert.Equal(t, &turn.Answers[1], turn.Answer(event.Interrupt{ID: "b"}), "Turn.Answer finds the answer by id")
	assert.Nil(t, turn.Answer(event.Interrupt{ID: "c"}), "Turn.Answer: nil when unanswered")
	assert.False(t, approvable(event.Interrupt{ResponseSchema: json.RawMessage(`{"type":"string"}`)}))
}

// TestFooterKeepsItsKeys checks the footer at 80 columns in every mode and
// conversation state: the keys that matter there (diagnostics, the keys
// list, quit, and what continues the conversation) are never dropped.
func TestFooterKeepsItsKeys(t *testing.T) {
	t.Parallel()
	interrupted, resumed, _ := conversationViews(t)
	running := swarm(t, "swarm-1", 300)
	cases := []struct {
		name string
		conv bool
		v    *view.View
		keys []string
		want []string
	}{
		{"read-only", false, resumed, nil, []string{"d diagnostics", "s state", "? keys", "q quit"}},
		{"running", true, running, nil, []string{"d diagnostics", "s state", "? keys", "q quit"}},
		{"idle", true, resumed, nil, []string{"i message", "d diagnostics", "s state", "? keys", "q quit"}},
		{"asking", true, interrupted, nil, []string{"y/n/p/c answer", "d diagnostics", "s state", "? keys", "q quit"}},
		{"state", true, resumed, []string{"s"}, []string{"s/esc back", "? keys", "q quit"}},
		{"diagnostics", true, resumed, []string{"d"}, []string{"d/esc back", "? keys", "q quit"}},
		{"help", true, resumed, []string{"?"}, []string{"?/esc back", "q quit"}},
		{"input line", true, resumed, []string{"i"}, []string{"enter send", "esc cancel", "ctrl+c quit"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var conv Conversation
			if tc.conv {
				conv = &recorder{}
			}
			for _, w := range []int{80, 100} {
				m := talking(t, w, 24, tc.v, conv)
				keys(m, tc.keys...)
				lines := strings.Split(screen(m), "\n")
				footer := lines[len(lines)-1]
				for _, k := range tc.want {
					assert.Contains(t, footer, k, "at %d columns", w)
				}
			}
		})
	}
}

// TestHelpListsEveryKey checks that ? lists every key the footers name and
// every key the package documentation lists.
func TestHelpListsEveryKey(t *testing.T) {
	t.Parallel()
	_, resumed, _ := conversationViews(t)
	m := talking(t, 100, 60, resumed, &recorder{})
	keys(m, "?")
	s := screen(m)
	for _, k := range []string{"↑ ↓ j k", "tab shift+tab", "← → h l", "home end g G", "pgup pgdown", "enter space",
		" a ", " s ", " d ", " i ", " y ", " n ", " p ", " c ", " ? ", "q ctrl+c", "esc"} {
		assert.Contains(t, s, k, "the keys list %q", k)
	}
	for _, what := range []string{"next message", "approve", "reject", "JSON payload", "cancel"} {
		assert.Contains(t, s, what)
	}
	ro := model(t, 100, 60, resumed)
	keys(ro, "?")
	assert.NotContains(t, screen(ro), "next message", "without a conversation, no conversation keys")

	short := talking(t, 80, 12, resumed, &recorder{})
	keys(short, "?")
	first := screen(short)
	keys(short, "end")
	assert.NotEqual(t, first, screen(short), "a short help scrolls")
	assert.Contains(t, screen(short), "quit")
}

// TestSummary checks the line left in the terminal when the program ends.
func TestSummary(t *testing.T) {
	t.Parallel()
	interrupted, resumed, followedUp := conversationViews(t)
	cases := []struct {
		name string
		v    *view.View
		want string
	}{
		{"no run", view.New(), "no run · 0 subagents · 0 events, none rejected"},
		{"interrupted", interrupted, "run run-demo interrupted, 1 interrupt awaiting an answer · 5 subagents: 3 finished, 1 suspended, 1 errored · 677 events, none rejected"},
		{"resumed", resumed, "run run-demo-resumed finished (2 runs) · 5 subagents: 4 finished, 1 errored · 769 events, none rejected"},
		{"followed up", followedUp, "run run-3 finished (3 runs) · tokens: 2155 in, 130 out, 2285 total · 5 subagents: 4 finished, 1 errored · 827 events, none rejected"},
		{"errored", fold(t, true, append(statusEvents(), &event.RunError{Message: "agent crashed"})...), "run r1 errored: agent crashed · 6 subagents:"},
		{"rejected", fold(t, true, &event.RunStarted{ThreadID: "th", RunID: "r1"}, &event.TextMessageContent{MessageID: "nope", Delta: "x"}), "run r1 running · 0 subagents · 2 events, 1 rejected"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Contains(t, Summary(tc.v), tc.want)
			assert.NotContains(t, Summary(tc.v), "\n")
		})
	}
}

// TestConversationWithClient holds a conversation with the demo swarm served
// by agenttest, through a client, as cmd/agview does: the approval is
// answered from the keyboard, the suspended researcher continues in its
// pane, then a question typed on the input line shows in the parent pane,
// answered.
func TestConversationWithClient(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()
	var turns []Turn
	conv := ConversationFunc(func(ctx context.Context, t Turn) error {
		turns = append(turns, t)
		opts := &client.InputOptions{}
		if t.Message != "" {
			opts.Messages = []event.Message{client.UserMessage(t.Message)}
		}
		opts.Answer = t.Answer
		_, err := c.Continue(ctx, opts)
		return err
	})
	_, err := c.Run(t.Context(), agenttest.SwarmInput(nil))
	require.NoError(t, err)

	m := New(c.Store(), &Options{Title: "demo", Conversation: conv})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	frame := func() { m.Update(Frame{View: c.Store().View(), Time: t0}) }
	frame()
	pending := c.Store().View().PendingInterrupts()
	require.Len(t, pending, 1)
	suspended := *pending[0].Subagent
	paneOf := func(id string) (int, int) {
		for i, p := range m.panes {
			if !p.inv.IsRoot() && p.inv.ID() == id {
				return i, p.key
			}
		}
		return -1, 0
	}
	pos, key := paneOf(suspended)
	require.GreaterOrEqual(t, pos, 0)
	panesBefore := len(m.panes)
	assert.Contains(t, screen(m), "asks")

	keys(m, "end")
	finish(t, m, keys(m, "y"))
	frame()
	assert.Equal(t, suspended, m.Selected().ID(), "answering selects the pane of the subagent that asked")
	v := c.Store().View()
	assert.Empty(t, v.PendingInterrupts(), "the approval was sent")
	r, _ := v.LastRun()
	assert.Equal(t, view.RunFinished, r.Status, "the swarm finished")
	assert.Equal(t, view.Finished, v.Invocation(suspended).Status())
	pos2, key2 := paneOf(suspended)
	assert.Equal(t, [2]int{pos, key}, [2]int{pos2, key2}, "the researcher continued in the same pane")
	assert.Len(t, m.panes, panesBefore, "no pane was added")
	assert.NotContains(t, screen(m), "asks")
	assert.Contains(t, screen(m), "i message")

	keys(m, "end", "i")
	typeText(m, "Is the grid the bottleneck?")
	finish(t, m, keys(m, "enter"))
	frame()
	assert.True(t, m.Selected().IsRoot(), "sending a message selects the parent pane")
	root := strings.Join(strings.Split(screen(m), "\n")[2:7], "\n")
	assert.Contains(t, root, "user › Is the grid the bottleneck?", "the collapsed parent pane shows the last question")
	assert.Contains(t, root, `› You asked: "Is the grid the bottleneck?"`, "and its answer")
	keys(m, "home", "enter", "end", "home")
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 200})
	s := screen(m)
	assert.Contains(t, s, "user › Is the grid the bottleneck?", "the question is in the parent pane")
	assert.Contains(t, s, `You asked: "Is the grid the bottleneck?"`, "and its answer after it")
	assert.Less(t, strings.Index(s, "user › Is the grid"), strings.Index(s, "You asked"))
	require.Len(t, turns, 2)
	assert.Equal(t, "Is the grid the bottleneck?", turns[1].Message)
	assert.Len(t, c.Store().View().Runs(), 3)
}

// TestConversationWindowSizes renders the conversation's screens at sizes
// down to the smallest: every one fills the terminal exactly.
func TestConversationWindowSizes(t *testing.T) {
	t.Parallel()
	interrupted, resumed, _ := conversationViews(t)
	for _, w := range []int{20, 21, 33, 57, 80, 200} {
		for _, h := range []int{5, 6, 7, 9, 12, 24} {
			for _, tc := range []struct {
				v    *view.View
				keys []string
			}{
				{interrupted, nil}, {interrupted, []string{"p"}}, {interrupted, []string{"i"}}, {interrupted, []string{"y"}},
				{resumed, []string{"i"}}, {resumed, []string{"?"}}, {resumed, []string{"?", "end"}}, {interrupted, []string{"s"}},
			} {
				m := talking(t, w, h, tc.v, &recorder{})
				keys(m, tc.keys...)
				m.Update(tea.PasteMsg{Content: strings.Repeat("long text ", 30)})
				requireGeometry(t, m, w, h)
			}
		}
	}
}

// TestTokens checks that the header shows the last run's token usage, in,
// out and total, when the run reported it, and nothing when it did not.
func TestTokens(t *testing.T) {
	t.Parallel()
	_, resumed, followedUp := conversationViews(t)
	r, _ := followedUp.LastRun()
	tokens := r.Tokens()
	require.True(t, tokens.Reported, "the follow-up reports its usage")
	want := fmt.Sprintf("tokens: %d in, %d out, %d total", tokens.Input, tokens.Output, tokens.Total)
	header := func(v *view.View) string {
		return strings.Join(strings.Split(screen(talking(t, 120, 24, v, nil)), "\n")[:2], "\n")
	}
	assert.Contains(t, header(followedUp), want)
	assert.NotContains(t, header(resumed), "tokens", "the resumed run reported no usage")
}

// TestAsksGoneWhileNextRunStreams: once the interrupt is answered and the
// next run streams, the pane no longer says what it asked (the view keeps
// the interrupt pending until that run ends).
func TestAsksGoneWhileNextRunStreams(t *testing.T) {
	t.Parallel()
	evs := events(t, "swarm-1-conversation")
	end := 0
	for i, e := range evs {
		if _, ok := e.(*event.RunFinished); ok {
			end = i + 1
			break
		}
	}
	require.IsType(t, &event.RunStarted{}, evs[end], "the next run starts after the first")
	interrupted := fold(t, false, evs[:end]...)
	require.NotEmpty(t, interrupted.PendingInterrupts())
	assert.Contains(t, screen(talking(t, 100, 30, interrupted, nil)), "‖ asks: ", "asked while nothing runs")

	streaming := fold(t, false, evs[:end+1]...)
	require.NotEmpty(t, streaming.PendingInterrupts(), "the view still holds it")
	s := screen(talking(t, 100, 30, streaming, nil))
	assert.NotContains(t, s, "asks", "not asked while the next run streams:\n%s", s)
	s = screen(model(t, 100, 30, streaming))
	assert.NotContains(t, s, "asks", "nor read-only:\n%s", s)
}
