//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
)

// bigStateRun is a run whose state is about size bytes, changed by ticks
// small deltas.
func bigStateRun(size, ticks int) []event.Event {
	chunk := strings.Repeat("x", 1000)
	docs := make([]string, size/(len(chunk)+3))
	for i := range docs {
		docs[i] = chunk
	}
	snap, _ := json.Marshal(map[string]any{"docs": docs, "tick": 0})
	evs := []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r"},
		&event.StateSnapshot{Snapshot: snap},
	}
	for i := 1; i <= ticks; i++ {
		evs = append(evs, &event.StateDelta{Delta: json.RawMessage(fmt.Sprintf(`[{"op":"replace","path":"/tick","value":%d}]`, i))})
	}
	return append(evs, &event.RunFinished{ThreadID: "t", RunID: "r"})
}

// TestStalledViewersMemory: a run with an 8 MB state changed every few
// milliseconds, watched by 300 connections that never read (each with a
// 4 KB receive buffer, so that the kernel holds little for them), keeps the
// service's peak RSS under 600 MiB: every viewer writes the hub's one copy
// of each event, and a viewer still stuck on an old frame when a new one
// comes is dropped rather than left to pin it. Measured, not timed.
func TestStalledViewersMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process and holds 300 connections")
	}
	const (
		stateBytes = 8 << 20
		stalled    = 300
		limit      = 600 << 20
	)
	ctx := testCtx(t)
	agent := agenttest.NewServer(agenttest.Events(bigStateRun(stateBytes, 150)...), &agenttest.Options{Delay: 15 * time.Millisecond})
	t.Cleanup(agent.Close)
	p := startBFF(t, "-agent", agent.URL(), "-interval", "0", "-max-viewers", "1000", "-max-viewers-per-client", "1000")

	var info ThreadInfo
	p.post(t, ctx, "/threads", `{"message":"a large state"}`, http.StatusCreated, &info)

	// The stalled viewers connect while the state changes: today's service
	// gave each its own copy of whichever frame was latest.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	conns := make([]net.Conn, 0, stalled)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for i := range stalled {
		c, err := d.DialContext(ctx, "tcp", p.host)
		require.NoError(t, err, "viewer %d", i)
		conns = append(conns, c)
		_, err = fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", info.Events, p.host)
		require.NoError(t, err)
		time.Sleep(5 * time.Millisecond) // spread over the run's frames
	}
	p.waitIdle(t, ctx, info.ID)

	// The service still serves a reader: the whole 8 MB state, once.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+strings.TrimPrefix(info.Events, "/"), nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var v viewer
	require.NoError(t, v.watch(res.Body, idle))
	assert.Greater(t, len(v.state), stateBytes/2, "a fresh viewer gets the whole state")
	res.Body.Close()

	peak := p.peakRSS(t)
	t.Logf("peak RSS with %d stalled viewers and a %d MiB state: %d MiB; viewers dropped for falling behind: %d",
		stalled, stateBytes>>20, peak>>20, strings.Count(p.stderr.String(), "dropped a viewer that fell behind"))
	assert.Less(t, peak, int64(limit), "peak RSS")
	assert.Contains(t, p.stderr.String(), "dropped a viewer that fell behind", "stalled viewers on old frames are dropped")
}

// TestSlowViewerIsDropped: in process (so under -race), a viewer that reads
// nothing while a large state changes is disconnected by the hub as soon as
// a new frame finds it more than MaxQueuedBytes behind, instead of pinning
// the old frame until the write timeout.
func TestSlowViewerIsDropped(t *testing.T) {
	// The run holds its state changes until the viewer is there, so that
	// they come while it is stuck.
	frames := agenttest.Events(bigStateRun(2<<20, 40)...)
	gate := make(chan struct{})
	script := agenttest.ScriptFunc(func(in *event.RunAgentInput) iter.Seq[json.RawMessage] {
		return func(yield func(json.RawMessage) bool) {
			i := 0
			for f := range frames.Frames(in) {
				if i == 2 { // after RUN_STARTED and the large STATE_SNAPSHOT
					<-gate
				}
				i++
				if !yield(f) {
					return
				}
			}
		}
	})
	e := newEnv(t, script, &agenttest.Options{Delay: 5 * time.Millisecond},
		&Options{MaxQueuedBytes: 64 << 10, KeepAlive: 50 * time.Millisecond})
	ctx := testCtx(t)
	info := e.start(t, "")
	// A service whose connections have small send buffers, so that the
	// kernel holds little for the viewer: it is stuck in its first write.
	ts := httptest.NewUnstartedServer(e.svc)
	ts.Listener = smallSendBuffers{ts.Listener}
	ts.Start()
	t.Cleanup(ts.Close)
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	host := strings.TrimPrefix(ts.URL, "http://")
	c, err := d.DialContext(ctx, "tcp", host)
	require.NoError(t, err)
	defer c.Close()
	_, err = fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", info.Events, host)
	require.NoError(t, err)
	h := e.svc.hub(t, info.ID)
	require.Eventually(t, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		for tb := range h.tabs {
			if tb.writing.Load() != 0 && tb.pending.Load() > 64<<10 {
				return true
			}
		}
		return false
	}, 10*time.Second, time.Millisecond, "the viewer is stuck in a write")
	close(gate)
	_, err = e.svc.Wait(ctx, info.ID)
	require.NoError(t, err)

	// Dropped: the stream ends (the server closed it) although the viewer
	// never left; kept, it would go on with keep-alives until the test's
	// deadline.
	require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Second)))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	var dropped viewer
	err = dropped.watch(res.Body, func(*viewer) bool { return false })
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server ended the stream of the viewer that fell behind: %v", err)

	// It reconnects as EventSource does, with the last id it got, and
	// catches up with the final view.
	var header http.Header
	if dropped.lastID != "" {
		header = http.Header{"Last-Event-Id": {dropped.lastID}}
	}
	again := e.getEvents(t, ctx, info.ID, "", header)
	require.Equal(t, http.StatusOK, again.StatusCode)
	caught := dropped
	require.NoError(t, caught.watch(again.Body, idle))
	final, err := e.svc.View(ctx, info.ID)
	require.NoError(t, err)
	want, err := marshal(StateOf(final))
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(caught.state), "the reconnected viewer has the final state")
	t.Logf("dropped after %d events (last id %q); caught up with %d more", dropped.events, dropped.lastID, caught.events-dropped.events)
}

// smallSendBuffers is a listener whose connections have a 4 KB send buffer.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}
