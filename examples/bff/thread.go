package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
)

// thread is one conversation with the agent, an AG-UI thread: a client (and
// so one store) that folds every run of the thread, the log of what the
// agent sent, and the hub that serves the store's views to the viewers. Its
// id is the threadId of every run's RunAgentInput.
type thread struct {
	id      string
	created time.Time
	client  *client.Client
	log     *eventLog
	hub     *hub
	unsub   func()
	slog    *slog.Logger

	mu      sync.Mutex
	active  bool               // a run is in progress
	runID   string             // the run in progress, or the last one
	stop    context.CancelFunc // cancels the run in progress
	retired bool               // dropped or closed: no run may start
	idle    chan struct{}      // closed when the run in progress ends
}

// newThread returns the thread id of the agent at agent, reached through
// runner, configured by opts (filled in by NewServer).
func newThread(id, agent string, runner transport.Runner, opts *Options) *thread {
	t := &thread{id: id, created: time.Now(), log: &eventLog{}, slog: opts.Logger, idle: make(chan struct{})}
	t.client = client.New(agent, client.WithRunner(recorder{runner: runner, log: t.log}))
	t.hub = newHub(id, agent, t.client.Store().View(), false, opts.Logger)
	t.hub.maxQueued = int64(opts.MaxQueuedBytes)
	// The hub is the store's only subscriber: it serialises each changed
	// invocation once, for every viewer, and never blocks the store.
	t.unsub = t.client.Store().Subscribe(t.hub.update)
	return t
}

// info describes the thread.
func (t *thread) info() ThreadInfo {
	t.mu.Lock()
	active, runID := t.active, t.runID
	t.mu.Unlock()
	base := "/threads/" + t.id
	info := ThreadInfo{ID: t.id, Active: active, RunID: runID, Created: t.created, Page: base,
		Runs: base + "/runs", Stop: base + "/stop", Events: base + "/events", Legacy: base + "/legacy", View: base + "/view"}
	if r, ok := t.client.Store().View().LastRun(); ok {
		info.Status = r.Status
	}
	return info
}

// begin marks a run in progress and returns its input, built from the
// latest view with opts (client.NextInput: the history, the state, an answer
// to every pending interrupt, then opts.Messages), unless one is in progress
// already (ErrBusy) or the thread was dropped (ErrUnknownThread). The input
// names the thread and a new run id.
// stop is what stopRun calls to cancel the run.
func (t *thread) begin(opts client.InputOptions, stop context.CancelFunc) (*event.RunAgentInput, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.retired:
		return nil, ErrUnknownThread
	case t.active:
		return nil, ErrBusy
	}
	opts.ThreadID = t.id
	opts.RunID = client.NewID()
	in := client.NextInput(t.client.Store().View(), &opts)
	t.active, t.runID, t.stop = true, in.RunID, stop
	t.idle = make(chan struct{})
	t.log.setActive(true)
	t.hub.setActive(true, "")
	return in, nil
}

// run runs one run to its end, until ctx ends (stopRun cancels it).
// Server.begin calls it on a goroutine of its own, after begin.
func (t *thread) run(ctx context.Context, input *event.RunAgentInput) {
	v, err := t.client.Run(ctx, input)
	// The hub renders the final view before the header says the run is
	// over, so a viewer that sees "active": false has the final panes.
	_ = t.client.Store().Settle(context.WithoutCancel(ctx))
	runErr := ""
	if err != nil {
		runErr = err.Error()
	}
	attrs := []any{"thread", t.id, "run", input.RunID, "events", v.EventCount(), "invocations", v.InvocationCount()}
	if r, ok := v.LastRun(); ok {
		attrs = append(attrs, "status", r.Status)
	}
	if err != nil {
		t.slog.Warn("run failed", append(attrs, "err", err)...)
	} else {
		t.slog.Info("run ended", attrs...)
	}
	t.log.setActive(false)
	t.hub.setActive(false, runErr)
	t.mu.Lock()
	t.active, t.stop = false, nil
	close(t.idle)
	t.mu.Unlock()
}

// stopRun cancels the run in progress, and reports whether there was one.
func (t *thread) stopRun() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.active {
		return false
	}
	if t.stop != nil {
		t.stop()
	}
	return true
}

// retire marks an idle thread dropped, and reports whether it was idle.
func (t *thread) retire() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.active {
		return false
	}
	t.retired = true
	return true
}

// close releases the thread: its store, its viewers, its log's followers.
// No run may be in progress (Server.Close waits for them; Server.create
// drops only idle ones).
func (t *thread) close() {
	t.mu.Lock()
	t.retired = true
	t.mu.Unlock()
	t.unsub()
	t.client.Close()
	t.hub.close()
	t.log.close()
}
