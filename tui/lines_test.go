package tui

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/store"
)

// lockedWriter records writes; after closed is set, a write fails the test.
type lockedWriter struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
	closed bool
	t      *testing.T
	err    error // returned by every write when set
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		w.t.Errorf("write after stop returned: %q", p)
	}
	w.writes++
	if w.err != nil {
		return 0, w.err
	}
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// linesOf streams events into a store watched by Lines and returns what it
// printed. With settle, every view is handed to Lines (the store waits for
// its subscriber after each event); without, Lines sees whichever views it
// has time for.
func linesOf(t *testing.T, settle bool, evs ...event.Event) string {
	t.Helper()
	s := store.New(nil)
	defer s.Close()
	w := &lockedWriter{t: t}
	stop := Lines(w, s)
	ctx := deadline(t)
	for _, e := range evs {
		_ = s.Dispatch(e)
		if settle {
			require.NoError(t, s.Settle(ctx))
		}
	}
	require.NoError(t, s.End(nil))
	stop()
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	stop() // idempotent, and writes nothing more
	return w.String()
}

// TestLines compares Lines' output for the demo swarm with a golden file,
// and checks that the lines are the same when Lines skips views.
func TestLines(t *testing.T) {
	t.Parallel()
	evs := events(t, "swarm-1")
	got := linesOf(t, true, evs...)
	golden(t, "lines-swarm-1", got)
	assert.NotContains(t, got, "\x1b", "no escape sequence in plain lines")

	sorted := func(s string) []string {
		l := strings.Split(strings.TrimSpace(s), "\n")
		slices.Sort(l)
		return l
	}
	for range 3 {
		assert.Equal(t, sorted(got), sorted(linesOf(t, false, evs...)),
			"every change is reported once even when views are skipped")
	}
}

// TestLinesEvents checks the line printed for each kind of change.
func TestLinesEvents(t *testing.T) {
	t.Parallel()
	evs := append(statusEvents(),
		&event.ToolCallStart{ToolCallID: "c1", ToolCallName: "web_search"},
		&event.ToolCallArgs{ToolCallID: "c1", Delta: `{"q":1}`},
		&event.ToolCallEnd{ToolCallID: "c1"},
		&event.ToolCallResult{MessageID: "r1", ToolCallID: "c1", Content: []byte(`"found\u001b[2J it"`)},
		&event.ToolCallStart{Attribution: event.By("d"), ToolCallID: "c2", ToolCallName: "fetch"},
		&event.TextMessageContent{MessageID: "never-started", Delta: "x"},
		&event.RunError{Message: "agent crashed", Code: event.Ptr("E1")},
	)
	got := linesOf(t, true, evs...)
	for _, want := range []string{
		"run r1 started (thread th)",
		"alpha a started: finishes (spawned by agent)",
		"alpha-helper a1 started (spawned by alpha a)",
		"alpha a finished",
		"beta b suspended (awaiting int-1)",
		"gamma c errored: source down (E503)",
		"ghost seen without SUBAGENT_STARTED (unannounced)",
		"agent: tool web_search (c1) answered: found it",
		"delta d: tool fetch (c2) abandoned",
		"delta d abandoned",
		"run r1 errored: agent crashed (E1)",
		"violation V7 at event ",
		"(TEXT_MESSAGE_CONTENT): no text message 'never-started' is in progress",
	} {
		assert.Contains(t, got, want, "a line says %q", want)
	}
	assert.Less(t, strings.Index(got, "run r1 started"), strings.Index(got, "alpha a started"), "the run starts first")
	assert.Less(t, strings.Index(got, "delta d abandoned"), strings.Index(got, "run r1 errored"), "the run ends after its invocations")
	assert.NotContains(t, got, "\x1b", "text from the wire is cleaned")
}

// TestLinesInterrupt checks the line of a run that ends on an interrupt.
func TestLinesInterrupt(t *testing.T) {
	t.Parallel()
	got := linesOf(t, true, events(t, "swarm-1")...)
	assert.Regexp(t, `run run-demo interrupted: 1 interrupt awaiting an answer \(approval-\S+ from researcher sa-\S+\)\n`, got)
}

// TestLinesWriteError checks that a failing writer stops the printing
// without failing anything else.
func TestLinesWriteError(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	w := &lockedWriter{t: t, err: errors.New("disk full")}
	stop := Lines(w, s)
	ctx := deadline(t)
	for _, e := range statusEvents() {
		require.NoError(t, s.Dispatch(e))
		require.NoError(t, s.Settle(ctx))
	}
	stop()
	assert.Equal(t, 1, w.writes, "printing stops at the first failed write")
}

// TestLinesStopWaits checks that no line is written once stop returned,
// even while events keep coming.
func TestLinesStopWaits(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	w := &lockedWriter{t: t}
	stop := Lines(w, s)
	evs := events(t, "swarm-1")
	for _, e := range evs[:300] {
		_ = s.Dispatch(e)
	}
	stop()
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	for _, e := range evs[300:] {
		_ = s.Dispatch(e)
	}
	require.NoError(t, s.Settle(deadline(t)))
	assert.Contains(t, w.String(), "run run-demo started", "lines up to stop were written")
}
