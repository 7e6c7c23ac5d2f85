package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// conversation is one run of the service: a client (and so one store) that
// folds every agent run of the conversation, the log of what the agent sent,
// and the hub that serves the store's views to the viewers.
type conversation struct {
	id      string
	created time.Time
	client  *client.Client
	log     *eventLog
	hub     *hub
	unsub   func()
	slog    *slog.Logger

	mu      sync.Mutex
	active  bool          // an agent run is in progress
	retired bool          // dropped or closed: no agent run may start
	idle    chan struct{} // closed when the agent run in progress ends
}

func newConversation(id, agent string, runner transport.Runner, log *slog.Logger) *conversation {
	c := &conversation{id: id, created: time.Now(), log: &eventLog{}, slog: log, idle: make(chan struct{})}
	c.client = client.New(agent, client.WithRunner(recorder{runner: runner, log: c.log}))
	c.hub = newHub(id, agent, c.client.Store().View(), false, log)
	// The hub is the store's only subscriber: it serialises each changed
	// invocation once, for every viewer, and never blocks the store.
	c.unsub = c.client.Store().Subscribe(c.hub.update)
	return c
}

// info describes the conversation.
func (c *conversation) info() RunInfo {
	c.mu.Lock()
	active := c.active
	c.mu.Unlock()
	base := "/runs/" + c.id
	info := RunInfo{ID: c.id, Active: active, Created: c.created, Page: base, Events: base + "/events", Legacy: base + "/legacy", View: base + "/view"}
	if r, ok := c.client.Store().View().LastRun(); ok {
		info.Status = r.Status
	}
	return info
}

// begin marks an agent run in progress and returns its input, built from
// the latest view, unless one is in progress already (ErrBusy) or the
// conversation was dropped (ErrUnknownRun).
func (c *conversation) begin(input func(*view.View) *event.RunAgentInput) (*event.RunAgentInput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.retired:
		return nil, ErrUnknownRun
	case c.active:
		return nil, ErrBusy
	}
	c.active = true
	c.idle = make(chan struct{})
	c.log.setActive(true)
	c.hub.setActive(true, "")
	return input(c.client.Store().View()), nil
}

// run runs one agent run to its end. Server.begin calls it on a goroutine
// of its own, after begin.
func (c *conversation) run(ctx context.Context, input *event.RunAgentInput) {
	v, err := c.client.Run(ctx, input)
	// The hub renders the final view before the header says the agent run
	// is over, so a viewer that sees "active": false has the final panes.
	_ = c.client.Store().Settle(ctx)
	runErr := ""
	if err != nil {
		runErr = err.Error()
	}
	attrs := []any{"run", c.id, "events", v.EventCount(), "invocations", v.InvocationCount()}
	if r, ok := v.LastRun(); ok {
		attrs = append(attrs, "status", r.Status)
	}
	if err != nil {
		c.slog.Warn("agent run failed", append(attrs, "err", err)...)
	} else {
		c.slog.Info("agent run ended", attrs...)
	}
	c.log.setActive(false)
	c.hub.setActive(false, runErr)
	c.mu.Lock()
	c.active = false
	close(c.idle)
	c.mu.Unlock()
}

// retire marks an idle conversation dropped, and reports whether it was
// idle.
func (c *conversation) retire() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active {
		return false
	}
	c.retired = true
	return true
}

// close releases the conversation: its store, its viewers, its log's
// followers. No agent run may be in progress (Server.Close waits for them;
// Server.create drops only idle ones).
func (c *conversation) close() {
	c.mu.Lock()
	c.retired = true
	c.mu.Unlock()
	c.unsub()
	c.client.Close()
	c.hub.close()
	c.log.close()
}
