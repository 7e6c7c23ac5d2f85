package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestScreens renders the model in typical situations and compares the
// screens, without styles, with golden files; every screen must fill the
// terminal exactly.
func TestScreens(t *testing.T) {
	t.Parallel()
	seed1 := "swarm-1"
	withViolation := fold(t, true,
		&event.RunStarted{ThreadID: "th", RunID: "r1"},
		&event.TextMessageContent{MessageID: "nope", Delta: "text for a message never started"},
		&event.StepFinished{StepName: "never-started"},
	)
	cases := []struct {
		name string
		w, h int
		v    *view.View
		keys []string
	}{
		{name: "empty", w: 80, h: 12, v: view.New()},
		{name: "streaming", w: 100, h: 30, v: swarm(t, seed1, 300)},
		{name: "final", w: 100, h: 30, v: swarm(t, seed1, -1)},
		{name: "final-researcher-expanded", w: 100, h: 40, v: swarm(t, seed1, -1), keys: []string{"down", "enter"}},
		{name: "root-expanded-narrow", w: 48, h: 40, v: swarm(t, seed1, -1), keys: []string{"enter"}},
		{name: "scrolled-to-last", w: 80, h: 14, v: swarm(t, seed1, -1), keys: []string{"end"}},
		{name: "eight-researchers-streaming", w: 110, h: 60, v: swarm(t, "swarm-7", 900)},
		{name: "statuses", w: 90, h: 30, v: fold(t, true, statusEvents()...)},
		{name: "abandoned", w: 90, h: 30, v: fold(t, true, append(statusEvents(), &event.RunError{Message: "agent crashed"})...)},
		{name: "state", w: 100, h: 24, v: swarm(t, seed1, -1), keys: []string{"s"}},
		{name: "state-unfolded", w: 100, h: 24, v: swarm(t, seed1, -1), keys: []string{"s", "down", "down", "down", "enter", "down", "down", "right"}},
		{name: "diagnostics", w: 80, h: 16, v: withViolation, keys: []string{"d"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := model(t, tc.w, tc.h, tc.v)
			keys(m, tc.keys...)
			requireGeometry(t, m, tc.w, tc.h)
			golden(t, tc.name, screen(m))
		})
	}
}

// treeOrder returns the invocations of v depth first, as the panes show
// them: the root, then each invocation followed by its children.
func treeOrder(v *view.View) []*view.Invocation {
	var out []*view.Invocation
	var walk func(inv *view.Invocation)
	walk = func(inv *view.Invocation) {
		out = append(out, inv)
		for _, id := range inv.Children() {
			walk(v.Invocation(id))
		}
	}
	walk(v.Root())
	return out
}

// TestKeys drives the model with key presses and checks the selection, the
// expanded panes and the mode.
func TestKeys(t *testing.T) {
	t.Parallel()
	v := swarm(t, "swarm-1", -1)
	order := treeOrder(v)
	require.Len(t, order, 6, "seed 1: the root, four researchers and a summarizer")
	require.Equal(t, "summarizer", order[3].Name(), "seed 1: the second researcher has the summarizer")
	cases := []struct {
		name     string
		keys     []string
		selected int   // position in order
		expanded []int // positions in order
		mode     Mode
	}{
		{name: "starts on the root", selected: 0},
		{name: "down", keys: []string{"down"}, selected: 1},
		{name: "j", keys: []string{"j", "j"}, selected: 2},
		{name: "down stops at the last", keys: []string{"down", "down", "down", "down", "down", "down", "down"}, selected: 5},
		{name: "up stops at the root", keys: []string{"up", "k"}, selected: 0},
		{name: "tab wraps", keys: []string{"tab", "tab", "tab", "tab", "tab", "tab", "tab"}, selected: 1},
		{name: "shift+tab wraps", keys: []string{"shift+tab"}, selected: 5},
		{name: "end and home", keys: []string{"end"}, selected: 5},
		{name: "home", keys: []string{"end", "home"}, selected: 0},
		{name: "left goes to the parent", keys: []string{"down", "down", "down", "left"}, selected: 2},
		{name: "right goes to the first child", keys: []string{"down", "down", "right"}, selected: 3},
		{name: "right without children stays", keys: []string{"down", "right"}, selected: 1},
		{name: "left on the root stays", keys: []string{"left"}, selected: 0},
		{name: "right from the root", keys: []string{"right"}, selected: 1},
		{name: "enter expands", keys: []string{"enter"}, selected: 0, expanded: []int{0}},
		{name: "enter again collapses", keys: []string{"enter", "enter"}, selected: 0},
		{name: "space expands", keys: []string{"down", "space"}, selected: 1, expanded: []int{1}},
		{name: "expanded panes stay expanded", keys: []string{"down", "enter", "down", "down", "enter", "up"}, selected: 2, expanded: []int{1, 3}},
		{name: "a expands all", keys: []string{"a"}, selected: 0, expanded: []int{0, 1, 2, 3, 4, 5}},
		{name: "a again collapses all", keys: []string{"a", "a"}, selected: 0},
		{name: "a completes a partial expansion", keys: []string{"enter", "a"}, selected: 0, expanded: []int{0, 1, 2, 3, 4, 5}},
		{name: "pgdown", keys: []string{"pgdown"}, selected: 3},
		{name: "pgup", keys: []string{"end", "pgup"}, selected: 1},
		{name: "s shows the state", keys: []string{"s"}, mode: ModeState},
		{name: "s again comes back", keys: []string{"s", "s"}, mode: ModePanes},
		{name: "esc leaves the state", keys: []string{"s", "esc"}, mode: ModePanes},
		{name: "d shows the diagnostics", keys: []string{"d"}, mode: ModeDiagnostics},
		{name: "esc leaves the diagnostics", keys: []string{"d", "esc"}, mode: ModePanes},
		{name: "keys in the state do not move the panes", keys: []string{"s", "down", "down", "enter", "s"}, selected: 0},
		{name: "selection survives the state", keys: []string{"down", "s", "s"}, selected: 1},
		{name: "unknown keys are ignored", keys: []string{"x", "z", "1"}, selected: 0},
		{name: "? shows the keys", keys: []string{"?"}, mode: ModeHelp},
		{name: "? again comes back", keys: []string{"down", "?", "?"}, selected: 1, mode: ModePanes},
		{name: "esc leaves the keys", keys: []string{"?", "esc"}, mode: ModePanes},
		{name: "the keys come back to the state", keys: []string{"s", "?", "esc"}, mode: ModeState},
		{name: "the keys come back to the diagnostics", keys: []string{"d", "?", "?"}, mode: ModeDiagnostics},
		{name: "keys in the help do not move the panes", keys: []string{"?", "down", "end", "esc"}, selected: 0},
		{name: "without a conversation i does nothing", keys: []string{"i", "j"}, selected: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := model(t, 100, 20, v)
			cmd := keys(m, tc.keys...)
			assert.Nil(t, cmd, "no key here quits")
			assert.Equal(t, tc.mode, m.Mode(), "mode")
			assert.Same(t, order[tc.selected], m.Selected(), "selected pane: want %s", order[tc.selected].Name())
			for i, inv := range order {
				assert.Equal(t, contains(tc.expanded, i), m.Expanded(inv), "expanded(%d %s %s)", i, inv.Name(), inv.ID())
			}
		})
	}
}

func contains(s []int, x int) bool {
	for _, y := range s {
		if x == y {
			return true
		}
	}
	return false
}

// TestQuitKeys checks that q and ctrl+c quit from every mode.
func TestQuitKeys(t *testing.T) {
	t.Parallel()
	for _, before := range [][]string{nil, {"s"}, {"d"}, {"down", "enter"}} {
		for _, k := range []string{"q", "ctrl+c"} {
			t.Run(strings.Join(append(before, k), " "), func(t *testing.T) {
				m := model(t, 80, 24, swarm(t, "swarm-1", 50))
				keys(m, before...)
				cmd := keys(m, k)
				require.NotNil(t, cmd, "%s must return a command", k)
				assert.Equal(t, tea.QuitMsg{}, cmd(), "%s must quit", k)
			})
		}
	}
}

// titleLines returns the pane title lines of a screen: those that open a
// box.
func titleLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimLeft(l, " ")
		if strings.HasPrefix(l, "╭") || strings.HasPrefix(l, "┏") {
			out = append(out, l)
		}
	}
	return out
}

// TestPanePerInvocation checks that every invocation has exactly one pane,
// in tree order, whose title names it and shows its status.
func TestPanePerInvocation(t *testing.T) {
	t.Parallel()
	for _, rec := range []string{"swarm-1", "swarm-3", "swarm-7"} {
		t.Run(rec, func(t *testing.T) {
			t.Parallel()
			for _, n := range []int{150, 400, -1} {
				v := swarm(t, rec, n)
				m := model(t, 120, 4*(v.InvocationCount()+1)+3, v)
				titles := titleLines(screen(m))
				order := treeOrder(v)
				require.Len(t, titles, len(order), "one pane per invocation, the root included")
				for i, inv := range order {
					word := invBadge(inv.Status(), t0).word
					assert.Contains(t, titles[i], word, "pane %d shows the status of %s", i, inv.ID())
					if inv.IsRoot() {
						assert.Contains(t, titles[i], "parent agent")
						continue
					}
					assert.Contains(t, titles[i], inv.Name()+" "+inv.ID(), "pane %d names %s", i, inv.ID())
				}
			}
		})
	}
}

// TestStatuses checks the badge of every invocation status and the
// header's counts.
func TestStatuses(t *testing.T) {
	t.Parallel()
	live := fold(t, true, statusEvents()...)
	ended := fold(t, true, append(statusEvents(), &event.RunError{Message: "agent crashed", Code: event.Ptr("E1")})...)
	cases := []struct {
		name   string
		v      *view.View
		want   map[string]string // invocation id → title part
		header string
		run    string
	}{
		{
			name: "live",
			v:    live,
			want: map[string]string{
				"a": "✓ alpha a", "a1": "✓ alpha-helper a1", "b": "‖ beta b", "c": "✗ gamma c",
				"d": spinnerFrames[0] + " delta d", "ghost": "? ghost",
			},
			header: "6 subagents: 1 running · 2 finished · 1 suspended · 1 errored · 1 unannounced",
			run:    "run r1 " + spinnerFrames[0] + " running",
		},
		{
			name: "after RUN_ERROR",
			v:    ended,
			want: map[string]string{
				"a": "✓ alpha a", "b": "‖ beta b", "c": "✗ gamma c", "d": "⊘ delta d",
			},
			header: "1 suspended · 1 errored · 1 abandoned",
			run:    "run r1 ✗ errored: agent crashed (E1)",
		},
	}
	words := map[view.Status]string{
		view.Running: "running", view.Finished: "finished", view.Suspended: "suspended",
		view.Errored: "errored", view.Abandoned: "abandoned", view.Unannounced: "unannounced",
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := model(t, 100, 40, tc.v)
			s := screen(m)
			titles := titleLines(s)
			for id, part := range tc.want {
				inv := tc.v.Invocation(id)
				require.NotNil(t, inv, "invocation %s", id)
				found := false
				for _, l := range titles {
					if strings.Contains(l, part) {
						found = true
						assert.Contains(t, l, words[inv.Status()], "the title of %s ends with its status", id)
					}
				}
				assert.True(t, found, "a pane title shows %q:\n%s", part, s)
			}
			assert.Contains(t, s, tc.header, "header counts")
			assert.Contains(t, s, tc.run, "header run status")
		})
	}
	t.Run("unannounced counted", func(t *testing.T) {
		assert.Contains(t, screen(model(t, 120, 40, live)), "1 unannounced")
	})
	t.Run("errors show in the pane", func(t *testing.T) {
		s := screen(model(t, 100, 40, live))
		assert.Contains(t, s, "✗ source down (E503)", "a collapsed errored pane shows its error")
	})
}

// TestStreamingText checks that a collapsed pane shows the end of a message
// while it streams, with a cursor, and its start once it is complete.
func TestStreamingText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("lorem ipsum ", 60) + "THE END"
	evs := []event.Event{
		&event.RunStarted{ThreadID: "th", RunID: "r1"},
		&event.SubagentStarted{ID: "w", Name: "writer"},
		&event.TextMessageStart{Attribution: event.By("w"), MessageID: "m1"},
		&event.TextMessageContent{Attribution: event.By("w"), MessageID: "m1", Delta: "First words. "},
	}
	v1 := fold(t, false, evs...)
	evs = append(evs, &event.TextMessageContent{Attribution: event.By("w"), MessageID: "m1", Delta: long})
	v2 := fold(t, false, evs...)
	evs = append(evs, &event.TextMessageEnd{Attribution: event.By("w"), MessageID: "m1"})
	v3 := fold(t, false, evs...)

	m := model(t, 80, 20, v1)
	assert.Contains(t, screen(m), "› First words.▍", "the text so far, with a cursor")
	m.Update(Frame{View: v2})
	assert.Contains(t, screen(m), "THE END▍", "the newest text shows while streaming")
	assert.NotContains(t, screen(m), "First words.", "the start scrolled out of the one-line summary")
	m.Update(Frame{View: v3})
	assert.Contains(t, screen(m), "› First words. lorem ipsum", "a finished message shows from its start")
	assert.NotContains(t, screen(m), "▍", "no cursor once the message ended")

	keys(m, "down", "enter")
	s := screen(m)
	assert.Contains(t, s, "First words. lorem ipsum", "expanded: the text wrapped")
	assert.Contains(t, s, "more line", "expanded: a long message is cut, and says so")
}

// TestCutOffMessages checks that a text or reasoning message abandoned while
// it streamed (RUN_ERROR, a broken transport) is marked "⊘ cut off" in the
// one-line summary and under its text in the timeline, and that a message
// that ended normally carries no marker.
func TestCutOffMessages(t *testing.T) {
	t.Parallel()
	by := event.By("w")
	text := []event.Event{
		&event.RunStarted{ThreadID: "th", RunID: "r1"},
		&event.SubagentStarted{ID: "w", Name: "writer"},
		&event.TextMessageStart{Attribution: by, MessageID: "m1"},
		&event.TextMessageContent{Attribution: by, MessageID: "m1", Delta: "First words."},
	}
	reasoning := []event.Event{
		&event.RunStarted{ThreadID: "th", RunID: "r1"},
		&event.SubagentStarted{ID: "w", Name: "writer"},
		&event.ReasoningStart{Attribution: by, MessageID: "rs1"},
		&event.ReasoningMessageStart{Attribution: by, MessageID: "rm1", Role: event.RoleReasoning},
		&event.ReasoningMessageContent{Attribution: by, MessageID: "rm1", Delta: "Weighing sources."},
	}
	runError := &event.RunError{Message: "agent crashed"}
	ended := fold(t, false, append(text,
		&event.TextMessageEnd{Attribution: by, MessageID: "m1"},
		&event.SubagentFinished{ID: "w"},
		&event.RunFinished{ThreadID: "th", RunID: "r1"})...)

	cases := []struct {
		name    string
		v       *view.View
		id      string // the message
		summary string // the collapsed pane's line
		line    string // the message's first line in the timeline
		indent  int    // the width of the message's prefix
		cut     bool
	}{
		{"text cut by RUN_ERROR", fold(t, false, append(text, runError)...), "m1",
			"› First words. ⊘ cut off", "› First words.", 2, true},
		{"reasoning cut by RUN_ERROR", fold(t, false, append(reasoning, runError)...), "rm1",
			"thinking › Weighing sources. ⊘ cut off", "thinking › Weighing sources.", 11, true},
		{"empty text cut by RUN_ERROR", fold(t, false, append(text[:3:3], runError)...), "m1",
			"› ⊘ cut off", "› ", 2, true},
		{"text cut by a broken transport", reducer.End(fold(t, false, text...), errors.New("connection reset")), "m1",
			"› First words. ⊘ cut off", "› First words.", 2, true},
		{"text ended normally", ended, "m1", "› First words.", "› First words.", 2, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, ok := tc.v.MessageStatus(tc.id)
			require.True(t, ok, "the message is in the view")
			require.Equal(t, tc.cut, status == view.EntityAbandoned, "the view's status is %s", status)

			m := model(t, 80, 20, tc.v)
			s := screen(m)
			assert.Contains(t, s, tc.summary, "collapsed: the latest message")
			if !tc.cut {
				assert.NotContains(t, s, cutOff, "collapsed: no marker on a message that ended")
			}

			keys(m, "down", "enter")
			lines := strings.Split(screen(m), "\n")
			i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "┃ "+tc.line) })
			require.GreaterOrEqual(t, i, 0, "expanded: the message's text is in the timeline:\n%s", screen(m))
			require.Less(t, i+1, len(lines))
			if tc.cut {
				assert.Contains(t, lines[i+1], "┃ "+spaces(tc.indent)+cutOff+" ", "expanded: the marker under the text, aligned with it")
			} else {
				assert.NotContains(t, screen(m), cutOff, "expanded: no marker on a message that ended")
			}
		})
	}
}

// TestToolCalls checks that tool calls show their arguments and results,
// and what they wait for.
func TestToolCalls(t *testing.T) {
	t.Parallel()
	base := []event.Event{
		&event.RunStarted{ThreadID: "th", RunID: "r1"},
		&event.ToolCallStart{ToolCallID: "c1", ToolCallName: "web_search"},
		&event.ToolCallArgs{ToolCallID: "c1", Delta: `{"query":"winter `},
	}
	streaming := fold(t, false, base...)
	base = append(base, &event.ToolCallArgs{ToolCallID: "c1", Delta: `range"}`}, &event.ToolCallEnd{ToolCallID: "c1"})
	waiting := fold(t, false, base...)
	base = append(base, &event.ToolCallResult{MessageID: "res1", ToolCallID: "c1", Content: []byte(`"3 sources found"`)})
	answered := fold(t, false, base...)

	cases := []struct {
		name string
		v    *view.View
		want []string
	}{
		{"streaming arguments", streaming, []string{`⚙ web_search {"query":"winter ` + spinnerFrames[0]}},
		{"awaiting the result", waiting, []string{`⚙ web_search {"query":"winter range"} … awaiting result`}},
		{"answered", answered, []string{`⚙ web_search {"query":"winter range"} → 3 sources found`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := model(t, 100, 20, tc.v)
			for _, w := range tc.want {
				assert.Contains(t, screen(m), w)
			}
			keys(m, "enter")
			s := screen(m)
			assert.Contains(t, s, `⚙ web_search {"query":"winter`, "expanded: the call and its arguments")
			if tc.v == answered {
				assert.Contains(t, s, "↳ 3 sources found", "expanded: the result under the call")
			}
		})
	}
}

// TestUntrustedText checks that escape sequences and control characters
// from the wire never reach the terminal.
func TestUntrustedText(t *testing.T) {
	t.Parallel()
	evil := "before\x1b]0;pwned\x07\x1b[2J\x1b[31mred\u009b2J\u0085\x07\x08after\tx\u202e!\xff"
	v := fold(t, false,
		&event.RunStarted{ThreadID: "th", RunID: "r1\x1b[2J"},
		&event.SubagentStarted{ID: "s\x1b[1m", Name: "na\x1bme", Description: event.Ptr(evil)},
		&event.TextMessageStart{Attribution: event.By("s\x1b[1m"), MessageID: "m1"},
		&event.TextMessageContent{Attribution: event.By("s\x1b[1m"), MessageID: "m1", Delta: evil},
		&event.StateSnapshot{Snapshot: []byte(`{"k\u001b[2J":"v\u001b]0;x\u0007"}`)},
	)
	for _, ks := range [][]string{nil, {"a"}, {"s"}} {
		m := model(t, 120, 30, v)
		keys(m, ks...)
		raw := m.View().Content
		for _, bad := range []string{"\x1b[2J", "\x1b]0;", "\x07", "\x08", "\u009b", "\u0085", "\u202e", "\xff", "\t"} {
			assert.NotContains(t, raw, bad, "keys %v: %q must not reach the terminal", ks, bad)
		}
		requireGeometry(t, m, 120, 30)
	}
	s := screen(model(t, 120, 30, v))
	assert.Contains(t, s, "beforered2Jafter x!\uFFFD", "the printable text stays")
}

// TestScrollKeepsSelectionVisible moves through expanded panes on a short
// screen: the selected pane's top border must always be on screen.
func TestScrollKeepsSelectionVisible(t *testing.T) {
	t.Parallel()
	v := swarm(t, "swarm-3", -1)
	n := len(treeOrder(v))
	for _, expand := range []bool{false, true} {
		m := model(t, 90, 18, v)
		if expand {
			keys(m, "a")
		}
		for i := 0; i < n; i++ {
			s := screen(m)
			assert.Contains(t, s, "┏━", "pane %d: the selected pane's top is on screen", i)
			requireGeometry(t, m, 90, 18)
			keys(m, "down")
		}
		for i := 0; i < n; i++ {
			keys(m, "up")
			assert.Contains(t, screen(m), "┏━", "back up, pane %d: the selected pane's top is on screen", n-1-i)
		}
	}
}

// TestWindowSizes renders views at widths and heights down to the smallest
// and checks that every screen fills the terminal exactly.
func TestWindowSizes(t *testing.T) {
	t.Parallel()
	v := swarm(t, "swarm-7", 500)
	for _, w := range []int{20, 21, 33, 57, 80, 200} {
		for _, h := range []int{5, 9, 24} {
			for _, ks := range [][]string{nil, {"a"}, {"s"}, {"d"}, {"end"}} {
				m := model(t, w, h, v)
				keys(m, ks...)
				requireGeometry(t, m, w, h)
			}
		}
	}
	t.Run("too small", func(t *testing.T) {
		m := model(t, 19, 4, v)
		assert.Contains(t, screen(m), "terminal too small")
	})
}

// TestFrames checks the frame messages: Frame replaces the view and the
// time, a nil view or zero time keeps the current one.
func TestFrames(t *testing.T) {
	t.Parallel()
	v1 := swarm(t, "swarm-1", 100)
	v2 := swarm(t, "swarm-1", 200)
	m := model(t, 80, 24, v1)
	assert.Contains(t, screen(m), "100 events")
	_, cmd := m.Update(Frame{View: v2, Time: t0.Add(spinStep)})
	assert.Nil(t, cmd, "a Frame from outside schedules nothing")
	assert.Contains(t, screen(m), "200 events")
	assert.Contains(t, screen(m), spinnerFrames[1]+" running", "the spinner moved on with the time")
	m.Update(Frame{Time: t0.Add(2 * spinStep)})
	assert.Contains(t, screen(m), "200 events", "a nil view keeps the view")
	assert.Contains(t, screen(m), spinnerFrames[2]+" running")
	m.Update(Frame{View: v1})
	assert.Contains(t, screen(m), spinnerFrames[2]+" running", "a zero time keeps the time")
	_, cmd = m.Update(tea.FocusMsg{})
	assert.Nil(t, cmd, "other messages are ignored")
}

// TestModeString names every mode.
func TestModeString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "panes", ModePanes.String())
	assert.Equal(t, "state", ModeState.String())
	assert.Equal(t, "diagnostics", ModeDiagnostics.String())
	assert.Equal(t, "help", ModeHelp.String())
	assert.Equal(t, "Mode(7)", Mode(7).String())
}

// TestWindowTitle checks the terminal title and the alternate screen.
func TestWindowTitle(t *testing.T) {
	t.Parallel()
	m := New(nil, &Options{Title: "http://agent\x1b[2J"})
	v := m.View()
	assert.True(t, v.AltScreen, "the TUI owns the alternate screen")
	assert.Equal(t, "agview · http://agent", v.WindowTitle)
	assert.Equal(t, "agview", New(nil, nil).View().WindowTitle)
}

// TestRendersOnlyChangedPanes checks the pane cache: a frame whose view
// changed one invocation re-renders that pane only.
func TestRendersOnlyChangedPanes(t *testing.T) {
	t.Parallel()
	evs := events(t, "swarm-1")
	v := fold(t, false, evs[:400]...)
	m := model(t, 100, 40, v)
	before := map[int]cachedPane{}
	for k, c := range m.cache {
		before[k] = c
	}
	next, err := reducer.Fold(v, evs[400])
	require.NoError(t, err)
	m.Update(Frame{View: next})
	changed := 0
	for k, c := range m.cache {
		if &before[k].lines[0] != &c.lines[0] {
			changed++
		}
	}
	assert.LessOrEqual(t, changed, 2, "one event changes one invocation (and at most the root's counts): %d panes re-rendered", changed)
	assert.Equal(t, len(m.cache), len(treeOrder(next)), "one cached pane per invocation")
}

// TestHeaderKeepsRunStatus: at 80 columns a long run id (a UUID) and a long
// title (the agent's URL) pushed the run's status out of the header; now
// they give way, cut with "…", and the status shows.
func TestHeaderKeepsRunStatus(t *testing.T) {
	t.Parallel()
	const id = "0b6f3c2e-5d0a-4a4e-9f55-8c1d2e3f4a5b"
	v := fold(t, false,
		&event.RunStarted{ThreadID: "t", RunID: id},
		&event.RunFinished{ThreadID: "t", RunID: id})
	for _, tc := range []struct {
		w     int
		title string
	}{
		{80, "http://localhost:8000/agent"},
		{80, "https://agents.example.com/v1/teams/research/agents/swarm-supervisor/run"},
		{60, "demo"},
		{120, "http://localhost:8000/agent"},
	} {
		m := model(t, tc.w, 24, v)
		m.title = tc.title
		m.layout()
		head := strings.Split(screen(m), "\n")[0]
		assert.Contains(t, head, "finished", "w=%d title=%q: %q", tc.w, tc.title, head)
		assert.LessOrEqual(t, width(head), tc.w)
		if tc.w >= 120 {
			assert.Contains(t, head, id, "the whole id when it fits")
		}
	}
}

// TestResumedStepChips: a subagent resumed in a later run takes its step
// again, and its pane showed the step chip twice; now once, counted.
func TestResumedStepChips(t *testing.T) {
	t.Parallel()
	_, resumed, _ := conversationViews(t)
	inv := resumed.Invocation("sa-0dd15648")
	require.NotNil(t, inv)
	require.Len(t, inv.Steps(), 2, "the step ran in both runs")
	m := model(t, 80, 24, resumed)
	lines := renderPane(inv, paneLook{width: 80, expanded: true}, m.now, m.nameOf, m.msgStatus)
	text := stripANSI(strings.Join(lines, "\n"))
	assert.Equal(t, 1, strings.Count(text, "research: winter-range"), text)
	assert.Contains(t, text, "research: winter-range ×2")
}
