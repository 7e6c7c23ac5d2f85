package tui

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// t0 is the time frames carry in tests: the spinner shows its first frame.
var t0 = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)

// fold folds events into a new view, requiring each to be accepted unless
// lenient.
func fold(t testing.TB, lenient bool, events ...event.Event) *view.View {
	t.Helper()
	v := view.New()
	for i, e := range events {
		next, err := reducer.Fold(v, e)
		if !lenient {
			require.NoError(t, err, "event %d (%s) must be accepted", i, e.EventType())
		}
		v = next
	}
	return v
}

// recordings are the demo swarms the tests use, recorded under testdata
// (go test ./tui -update records them anew) so that the golden screens do
// not change when package agenttest's demo does.
var recordings = map[string]func() []event.Event{
	"swarm-1": func() []event.Event { return agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 1}) },
	"swarm-3": func() []event.Event { return agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 3, Researchers: 8}) },
	"swarm-7": func() []event.Event { return agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 7, Researchers: 8}) },
	// The conversation: seed 1, its approval granted, then a follow-up
	// question (a user message whose id is user-2, in run run-3).
	"swarm-1-conversation": func() []event.Event {
		cfg := &agenttest.SwarmConfig{Seed: 1}
		evs := append(agenttest.SwarmEvents(cfg), agenttest.SwarmResumeEvents(cfg, true)...)
		v := view.New()
		for _, e := range evs {
			v, _ = reducer.Fold(v, e)
		}
		in := &event.RunAgentInput{ThreadID: "thread-demo", RunID: "run-3", State: v.State()}
		for m := range v.Messages() {
			if m.Role != event.RoleActivity {
				in.Messages = append(in.Messages, m)
			}
		}
		in.Messages = append(in.Messages, event.Message{ID: "user-2", Role: event.RoleUser, Content: []byte(`"And what about the winters?"`)})
		return append(evs, agenttest.SwarmFollowUpEvents(cfg, in)...)
	},
}

var (
	recordMu sync.Mutex
	recorded = map[string][]event.Event{}
)

// events returns the events of the recording testdata/name.jsonl.
func events(t testing.TB, name string) []event.Event {
	t.Helper()
	recordMu.Lock()
	defer recordMu.Unlock()
	if evs, ok := recorded[name]; ok {
		return evs
	}
	record, ok := recordings[name]
	require.True(t, ok, "no recording %q", name)
	path := filepath.Join("testdata", name+".jsonl")
	if *update {
		var b []byte
		for _, e := range record() {
			line, err := event.Encode(e)
			require.NoError(t, err)
			b = append(append(b, line...), '\n')
		}
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err, "recording missing: run go test ./tui -update")
	var evs []event.Event
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		e, err := event.Decode(line)
		require.NoError(t, err, "%s line %d", path, i+1)
		evs = append(evs, e)
	}
	recorded[name] = evs
	return evs
}

// swarm returns the view of the first n events of a recording (all of them
// when n < 0).
func swarm(t testing.TB, name string, n int) *view.View {
	t.Helper()
	evs := events(t, name)
	if n >= 0 && n < len(evs) {
		evs = evs[:n]
	}
	return fold(t, false, evs...)
}

// deadline returns a context that ends a little before the test binary's
// deadline (or after a minute), so that a test waiting for something that
// never comes fails with a message instead of a panic.
func deadline(t testing.TB) context.Context {
	t.Helper()
	d := time.Now().Add(time.Minute)
	if td, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if x, ok := td.Deadline(); ok {
			d = x.Add(-5 * time.Second)
		}
	}
	ctx, cancel := context.WithDeadline(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// model returns a model of the given size showing v.
func model(t testing.TB, w, h int, v *view.View) *Model {
	t.Helper()
	m := New(nil, &Options{Title: "test"})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(Frame{View: v, Time: t0})
	return m
}

// press returns the key press message for a key name as Update matches it.
func press(k string) tea.KeyPressMsg {
	codes := map[string]rune{
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"tab": tea.KeyTab, "enter": tea.KeyEnter, "esc": tea.KeyEscape, "home": tea.KeyHome,
		"end": tea.KeyEnd, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"backspace": tea.KeyBackspace, "delete": tea.KeyDelete,
	}
	switch {
	case k == "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case strings.HasPrefix(k, "ctrl+") && len(k) == 6:
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	switch k {
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	if c, ok := codes[k]; ok {
		return tea.KeyPressMsg{Code: c}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// keys presses each key in turn and returns the last command.
func keys(m *Model, ks ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range ks {
		_, cmd = m.Update(press(k))
	}
	return cmd
}

// screen returns the model's screen without styles.
func screen(m *Model) string { return ansi.Strip(m.View().Content) }

// stripANSI removes the escape sequences of styled text.
func stripANSI(s string) string { return ansi.Strip(s) }

// requireGeometry checks that the screen has exactly h lines of exactly w
// cells each, as the renderer counts them.
func requireGeometry(t *testing.T, m *Model, w, h int) {
	t.Helper()
	lines := strings.Split(m.View().Content, "\n")
	require.Len(t, lines, h, "the screen must have one line per terminal row")
	for i, l := range lines {
		require.Equal(t, w, ansi.StringWidthWc(l), "line %d must fill the width exactly: %q", i, ansi.Strip(l))
	}
}

// golden compares got with testdata/golden/name.txt, rewriting it with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing: run go test ./tui -update")
	assert.Equal(t, string(want), got, "screen differs from %s (go test ./tui -update rewrites it)", path)
}

// statusEvents is a stream whose subagents end in every status but
// abandoned: alpha finished, beta suspended, gamma errored, delta still
// running (streaming a message), and "ghost" seen only through attribution.
// Append a RUN_ERROR to abandon delta.
func statusEvents() []event.Event {
	return []event.Event{
		&event.RunStarted{ThreadID: "th", RunID: "r1"},
		&event.SubagentStarted{ID: "a", Name: "alpha", Description: event.Ptr("finishes")},
		&event.SubagentStarted{ID: "b", Name: "beta", Description: event.Ptr("suspends")},
		&event.SubagentStarted{ID: "c", Name: "gamma", Description: event.Ptr("fails")},
		&event.SubagentStarted{ID: "d", Name: "delta", Description: event.Ptr("keeps going")},
		&event.SubagentStarted{ID: "a1", Name: "alpha-helper", ParentSubagentRunID: event.Ptr("a")},
		&event.SubagentFinished{ID: "a1"},
		&event.SubagentFinished{ID: "a"},
		&event.SubagentFinished{ID: "b", Outcome: &event.SubagentOutcome{Type: "suspended", InterruptIDs: []string{"int-1"}}},
		&event.SubagentError{ID: "c", Message: "source down", Code: event.Ptr("E503")},
		&event.TextMessageStart{Attribution: event.By("d"), MessageID: "m-d"},
		&event.TextMessageContent{Attribution: event.By("d"), MessageID: "m-d", Delta: "Still working on the first part of the answer"},
		&event.TextMessageStart{Attribution: event.By("ghost"), MessageID: "m-g"},
		&event.TextMessageContent{Attribution: event.By("ghost"), MessageID: "m-g", Delta: "boo"},
		&event.TextMessageEnd{Attribution: event.By("ghost"), MessageID: "m-g"},
	}
}
