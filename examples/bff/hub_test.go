package main

import (
	"bytes"
	"context"
	"iter"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transport"
)

// TestHubSerialisesOnlyWhatChanged: a pane's JSON is made once per change
// of its invocation and shared by every later frame until the next change.
func TestHubSerialisesOnlyWhatChanged(t *testing.T) {
	v := fold(t, paneStream...)
	h := newHub("r", "http://agent", v, true, nil)
	f1 := h.latest()
	require.Len(t, f1.panes, 4, "the root and three subagents")
	sa1, sa2 := f1.byKey["sub:sa1"], f1.byKey["sub:sa2"]

	// A delta streamed into sa1's message changes sa1 only.
	next, err := reducer.FoldJSON(v, []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":" further","subagentRunId":"sa1"}`))
	require.NoError(t, err)
	h.update(next)
	f2 := h.latest()
	assert.Equal(t, f1.seq+1, f2.seq)
	assert.NotSame(t, sa1, f2.byKey["sub:sa1"], "sa1's pane was made anew")
	assert.Equal(t, f2.seq, f2.byKey["sub:sa1"].seq)
	assert.Contains(t, string(f2.byKey["sub:sa1"].json()), "Looking further")
	assert.Same(t, sa2, f2.byKey["sub:sa2"], "sa2's pane is shared, not serialised again")
	assert.Same(t, f1.byKey[RootKey], f2.byKey[RootKey])
	assert.Same(t, f1.header, f2.header, "the header did not change")
	assert.Same(t, f1.state, f2.state)

	// The same view again, or a view that changes nothing a viewer sees,
	// publishes no frame.
	h.update(next)
	assert.Same(t, f2, h.latest())

	// A state change touches the state only.
	next, err = reducer.FoldJSON(next, []byte(`{"type":"STATE_SNAPSHOT","snapshot":{"k":1}}`))
	require.NoError(t, err)
	h.update(next)
	f3 := h.latest()
	assert.NotSame(t, f2.state, f3.state)
	assert.Same(t, f2.header, f3.header)
	for _, p := range f3.panes {
		assert.Same(t, f2.byKey[p.key], p, "pane %s unchanged", p.key)
	}

	// The life cycle changes the header only.
	h.setActive(false, "boom")
	f4 := h.latest()
	assert.NotSame(t, f3.header, f4.header)
	assert.Contains(t, string(f4.header.json()), `"error":"boom"`)
}

// TestHubNeverWaitsForViewers: frames are published whether or not the
// viewers read them; each viewer's doorbell holds one ring at most.
func TestHubNeverWaitsForViewers(t *testing.T) {
	v := fold(t, paneStream...)
	h := newHub("r", "http://agent", v, true, nil)
	tabs := make([]*tab, 10)
	for i := range tabs {
		tabs[i], _ = h.join(nil)
	}
	for i := range 100 {
		var err error
		v, err = reducer.FoldJSON(v, []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x","subagentRunId":"sa1"}`))
		require.NoError(t, err, "delta %d", i)
		h.update(v)
	}
	for i, tb := range tabs {
		assert.Len(t, tb.bell, 1, "viewer %d has one pending ring", i)
	}
	assert.Equal(t, 10, h.viewers())
	h.close()
	assert.Zero(t, h.viewers(), "close drops the viewers")
	_, leave := h.join(nil)
	leave()
	assert.Zero(t, h.viewers(), "a viewer joining a closed hub is not kept")
	select {
	case <-h.done:
	default:
		t.Fatal("done is closed")
	}
}

// TestHubDropsViewersThatFallBehind: a viewer still writing an old frame
// with more than maxQueued bytes of it to go when a new frame comes is
// kicked; one that is up to date, or nearly done, is not.
func TestHubDropsViewersThatFallBehind(t *testing.T) {
	v := fold(t, paneStream...)
	h := newHub("r", "http://agent", v, true, nil)
	h.maxQueued = 100
	var unblocked [3]int
	tabs := make([]*tab, 3)
	for i := range tabs {
		tabs[i], _ = h.join(func() { unblocked[i]++ })
	}
	seq := h.latest().seq
	tabs[0].writing.Store(seq) // stuck on the current frame, far from done
	tabs[0].pending.Store(1000)
	tabs[1].writing.Store(seq) // nearly done
	tabs[1].pending.Store(10)
	// tabs[2] is between writes.
	next, err := reducer.FoldJSON(v, []byte(`{"type":"STATE_SNAPSHOT","snapshot":{"k":1}}`))
	require.NoError(t, err)
	h.update(next)
	assert.True(t, tabs[0].kicked.Load(), "the viewer that fell behind is dropped")
	assert.Equal(t, 1, unblocked[0], "its write in progress is made to fail")
	assert.False(t, tabs[1].kicked.Load(), "a viewer nearly done is kept")
	assert.False(t, tabs[2].kicked.Load(), "an idle viewer is kept")
	assert.Zero(t, unblocked[1]+unblocked[2])
	h.setActive(false, "")
	assert.Equal(t, 1, unblocked[0], "a viewer is kicked once")
}

func TestAppendFrame(t *testing.T) {
	v := fold(t, paneStream...)
	h := newHub("r", "http://agent", v, true, nil)
	f1 := h.latest()
	next, err := reducer.FoldJSON(v, []byte(`{"type":"STEP_FINISHED","stepName":"search","subagentRunId":"sa1"}`))
	require.NoError(t, err)
	h.update(next)
	h.setActive(false, "")
	f := h.latest()

	read := func(bs [][]byte) []transport.SSEEvent {
		var out []transport.SSEEvent
		for ev, err := range transport.ParseSSE(bytes.NewReader(bytes.Join(bs, nil)), nil) {
			require.NoError(t, err)
			out = append(out, ev)
		}
		return out
	}
	t.Run("snapshot", func(t *testing.T) {
		evs := read(appendFrame(nil, f, 0, true))
		require.Len(t, evs, 1)
		assert.Equal(t, EventSnapshot, evs[0].Event)
		assert.Equal(t, strconv.FormatUint(f.seq, 10), evs[0].ID)
		assert.Same(t, f.snapshot(), f.snapshot(), "one snapshot per frame, shared by every viewer")
		var vw viewer
		require.NoError(t, vw.apply(evs[0]))
		assert.Len(t, vw.panes, len(f.panes))
		assert.False(t, vw.header.Active)
	})
	t.Run("changes", func(t *testing.T) {
		evs := read(appendFrame(nil, f, f1.seq, false))
		var names []string
		for _, ev := range evs {
			names = append(names, ev.Event)
		}
		assert.Equal(t, []string{EventPane, EventRun}, names, "sa1's pane, then the header")
		// Only the last event carries an id: a reader that lost the end of a
		// write resumes from the frame before.
		raw := string(bytes.Join(appendFrame(nil, f, f1.seq, false), nil))
		assert.Equal(t, 1, strings.Count(raw, "\nid: "), "one id line")
		assert.Regexp(t, `event: run\ndata: [^\n]*\nid: [0-9]+\n\n$`, raw, "the id ends the last event")
		assert.Equal(t, strconv.FormatUint(f.seq, 10), evs[len(evs)-1].ID)
	})
	t.Run("shared", func(t *testing.T) {
		// What a viewer writes is the hub's bytes, not a copy: memory does
		// not grow with the viewers.
		bs := appendFrame(nil, f, f1.seq, false)
		require.Len(t, bs, 4, "sa1's pane, the header without its last byte, the id line and the blank line")
		assert.Same(t, &f.byKey["sub:sa1"].ev[0], &bs[0][0])
		assert.Same(t, &f.header.ev[0], &bs[1][0])
		snap := appendFrame(nil, f, 0, true)
		assert.Same(t, &f.snapshot().ev[0], &snap[0][0])
	})
	t.Run("nothing new", func(t *testing.T) {
		assert.Empty(t, appendFrame(nil, f, f.seq, false))
	})
}

func TestParseSince(t *testing.T) {
	cases := []struct {
		name, query, header string
		want                uint64
		wantErr             string
	}{
		{"none", "", "", 0, ""},
		{"query", "?since=42", "", 42, ""},
		{"header", "", "7", 7, ""},
		{"query wins", "?since=3", "9", 3, ""},
		{"negative", "?since=-1", "", 0, "since"},
		{"not a number", "", "abc", 0, "Last-Event-ID"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequestWithContext(context.Background(), "GET", "/threads/x/events"+c.query, nil)
			if c.header != "" {
				r.Header.Set("Last-Event-ID", c.header)
			}
			got, err := parseSince(r)
			if c.wantErr != "" {
				var re *RequestError
				require.ErrorAs(t, err, &re)
				assert.Equal(t, c.wantErr, re.Where)
				assert.Equal(t, 400, re.Status)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestAppendComment(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"one line", "boom", ": boom\n\n"},
		{"LF", "a\nb", ": a\n: b\n\n"},
		{"CRLF and CR", "a\r\nb\rc", ": a\n: b\n: c\n\n"},
		{"empty", "", "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, string(appendComment(nil, c.text)))
		})
	}
}

// TestJournalRunner: the runner hands on exactly what the runner it wraps
// yields, and journals each event's wire JSON before handing it on.
func TestJournalRunner(t *testing.T) {
	j := journal.NewMemory("test")
	defer j.Close()
	w, err := j.Begin(t.Context(), journal.Lease{Thread: "t", RunID: "r"})
	require.NoError(t, err)
	evs := []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r"},
		&event.RunFinished{ThreadID: "t", RunID: "r"},
	}
	r := journalRunner{runner: sliceRunner(evs), w: w, log: slog.New(slog.DiscardHandler), thread: "t"}
	var got []event.Event
	for e, err := range r.Run(t.Context(), &event.RunAgentInput{RunID: "r"}) {
		require.NoError(t, err)
		got = append(got, e)
		th, err := j.Stat(t.Context(), "t")
		require.NoError(t, err)
		assert.Equal(t, uint64(len(got)), th.Last, "event %d is journalled before it is handed on", len(got))
		if len(got) == 1 {
			break // stopping early stops the runner
		}
	}
	assert.Equal(t, evs[:1], got)
	for e, err := range r.Run(t.Context(), &event.RunAgentInput{RunID: "r"}) {
		require.NoError(t, err)
		got = append(got, e)
	}
	assert.Len(t, got, 3)
	require.NoError(t, w.End(t.Context()))
	var types []string
	for rec, err := range j.Read(t.Context(), "t", 1) {
		require.NoError(t, err)
		assert.Equal(t, journal.KindEvent, rec.Kind)
		e, err := event.Decode(rec.Data)
		require.NoError(t, err)
		types = append(types, string(e.EventType()))
	}
	assert.Equal(t, []string{"RUN_STARTED", "RUN_STARTED", "RUN_FINISHED"}, types)
}

type sliceRunner []event.Event

func (s sliceRunner) Run(context.Context, *event.RunAgentInput) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		for _, e := range s {
			if !yield(e, nil) {
				return
			}
		}
	}
}
