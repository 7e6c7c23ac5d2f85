package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"time"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/store"
	"github.com/agview/agview/transport"
)

// thread is one AG-UI thread (a conversation with the agent) as this
// replica serves it: its view, folded from the journal by a follower
// goroutine into a store whatever replica runs its runs; the hub that serves
// the store's views to the viewers; and, while this replica runs one of its
// runs, that run. Its id is the threadId of every run's RunAgentInput.
//
// The follower folds each record as it is appended: a run's input (the
// history it starts from, G15), its events, and how the client saw it end.
// A run whose records stop without an end while no writer holds the
// thread's lease any more was cut (its replica died, or lost the journal):
// a watcher sees the lease gone and ends it as a broken stream would
// (G11: failed, open invocations abandoned, everything received kept).
type thread struct {
	id      string
	created time.Time
	j       journal.Journal
	st      *store.Store
	hub     *hub
	unsub   func()
	log     *slog.Logger
	poll    time.Duration // how often the watcher asks whether an open run's writer is alive

	ctx    context.Context // ends the follower and the watcher
	cancel context.CancelFunc
	wg     sync.WaitGroup

	foldMu sync.Mutex // serialises what is folded into st: the follower's records and the watcher's cut

	mu      sync.Mutex
	seq     uint64        // the last record folded
	moved   chan struct{} // closed when seq moves
	open    string        // the run open in the journal: input seen, no end yet; "" when none
	runErr  string        // how the last run ended, "" when it did not fail
	idle    chan struct{} // closed when open becomes ""
	local   *localRun     // this replica's run in progress, nil when none
	retired bool          // dropped or closed: no run may start
}

// localRun is a run this replica runs.
type localRun struct {
	id   string
	stop context.CancelFunc
	done chan struct{} // closed when the run is over and journalled
}

// newThread starts following thread id of j, configured by opts (filled in
// by NewServer).
func newThread(id, agent string, j journal.Journal, opts *Options) *thread {
	ctx, cancel := context.WithCancel(context.Background())
	t := &thread{
		id: id, created: time.Now(), j: j, st: store.New(nil), log: opts.Logger, poll: opts.CutPoll,
		ctx: ctx, cancel: cancel, moved: make(chan struct{}), idle: make(chan struct{}),
	}
	close(t.idle)
	t.hub = newHub(id, agent, t.st.View(), false, opts.Logger)
	t.hub.maxQueued = int64(opts.MaxQueuedBytes)
	// The hub is the store's only subscriber: it serialises each changed
	// invocation once, for every viewer, and never blocks the store.
	t.unsub = t.st.Subscribe(t.hub.update)
	t.wg.Add(2)
	go func() {
		defer t.wg.Done()
		t.follow()
	}()
	go func() {
		defer t.wg.Done()
		t.watch()
	}()
	return t
}

// follow folds the thread's records into the store as they are appended,
// until the thread is closed. A journal that fails is asked again, after the
// last record folded.
func (t *thread) follow() {
	for t.ctx.Err() == nil {
		for rec, err := range t.j.Follow(t.ctx, t.id, t.lastSeq()+1) {
			if err != nil {
				if t.ctx.Err() == nil {
					t.log.Warn("cannot follow the thread's journal; trying again", "thread", t.id, "err", err)
				}
				break
			}
			t.apply(rec)
		}
		select {
		case <-t.ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// apply folds one record.
func (t *thread) apply(rec journal.Record) {
	t.foldMu.Lock()
	defer t.foldMu.Unlock()
	switch rec.Kind {
	case journal.KindInput:
		t.mu.Lock()
		prev := t.open
		t.mu.Unlock()
		if prev != "" {
			// A new run began while the last one had no end: its writer went
			// away without one.
			t.finish(cutError(t.id, prev))
		}
		// The record holds what the journal did not (client.EncodeInputRecord).
		in, err := client.FoldInputRecord(t.st, rec.Data)
		if in == nil {
			t.log.Error("a run's input in the journal does not decode; its run is shown without it", "thread", t.id, "seq", rec.Seq, "err", err)
			in = &event.RunAgentInput{}
		} else if err != nil {
			t.log.Warn("a run's input does not fold", "thread", t.id, "seq", rec.Seq, "err", err)
		}
		t.mu.Lock()
		t.open, t.runErr = in.RunID, ""
		if t.open == "" {
			t.open = fmt.Sprintf("seq-%d", rec.Seq)
		}
		t.idle = make(chan struct{})
		t.mu.Unlock()
		t.hub.setActive(true, "")
	case journal.KindEvent:
		e, err := event.Decode(rec.Data)
		if err != nil {
			_ = t.st.Refuse(err) // recorded in the view's diagnostics
		} else {
			_ = t.st.Dispatch(e) // a violation is recorded in the view
		}
	case journal.KindEnd:
		var end journal.End
		if err := json.Unmarshal(rec.Data, &end); err != nil {
			t.log.Error("a run's end in the journal does not decode", "thread", t.id, "seq", rec.Seq, "err", err)
		}
		var cause error
		switch {
		case end.Canceled:
			cause = context.Canceled
		case end.Error != "":
			cause = errors.New(end.Error)
		}
		t.finish(cause)
	}
	t.mu.Lock()
	t.seq = rec.Seq
	close(t.moved)
	t.moved = make(chan struct{})
	t.mu.Unlock()
}

// finish ends the run open in the store with cause (nil: its stream ended)
// and tells the viewers, once the hub has rendered the final view. The
// caller holds foldMu.
func (t *thread) finish(cause error) {
	_ = t.st.End(cause)
	_ = t.st.Settle(t.ctx)
	runErr := ""
	if cause != nil {
		runErr = cause.Error()
	}
	t.hub.setActive(false, runErr)
	t.mu.Lock()
	if t.open != "" {
		close(t.idle)
	}
	t.open, t.runErr = "", runErr
	t.mu.Unlock()
}

// watch ends a run that is open in the journal when no writer holds its
// lease any more and every record of it was folded: its replica died or
// lost the journal.
func (t *thread) watch() {
	tk := time.NewTicker(t.poll)
	defer tk.Stop()
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-tk.C:
		}
		t.mu.Lock()
		open := t.open
		t.mu.Unlock()
		if open == "" {
			continue
		}
		th, err := t.j.Stat(t.ctx, t.id)
		if err != nil || (th.Active != nil && th.Active.RunID == open) {
			continue
		}
		t.foldMu.Lock()
		t.mu.Lock()
		cut := t.open == open && t.seq == th.Last
		t.mu.Unlock()
		if cut {
			t.log.Warn("a run was cut: its writer went away without ending it", "thread", t.id, "run", open)
			t.finish(cutError(t.id, open))
		}
		t.foldMu.Unlock()
	}
}

// cutError is the cause a cut run ends with.
func cutError(thread, run string) error {
	return fmt.Errorf("run %s was cut: %w", run, &journal.Error{Code: journal.ErrCut, Op: "follow", Thread: thread})
}

// lastSeq returns the last record folded.
func (t *thread) lastSeq() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq
}

// catchUp waits until every record the journal holds now is folded.
func (t *thread) catchUp(ctx context.Context) error {
	th, err := t.j.Stat(ctx, t.id)
	if err != nil {
		return err
	}
	return t.waitSeq(ctx, th.Last)
}

// waitSeq waits until record seq is folded.
func (t *thread) waitSeq(ctx context.Context, seq uint64) error {
	for {
		t.mu.Lock()
		done, moved := t.seq >= seq, t.moved
		t.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-moved:
		case <-ctx.Done():
			return ctx.Err()
		case <-t.ctx.Done():
			return ErrClosed
		}
	}
}

// busy reports whether a run is open on the thread (in the journal, or on
// this replica), and returns a channel closed when that may have changed.
func (t *thread) busy() (bool, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.open != "":
		return true, t.idle
	case t.local != nil:
		return true, t.local.done
	}
	return false, nil
}

// info describes the thread.
func (t *thread) info() ThreadInfo {
	t.mu.Lock()
	open := t.open
	t.mu.Unlock()
	info := threadInfo(t.id)
	info.Active, info.RunID, info.Created = open != "", open, t.created
	if r, ok := t.st.View().LastRun(); ok {
		info.Status = r.Status
		if open == "" {
			info.RunID = r.RunID
		}
	}
	return info
}

// threadInfo returns the paths of thread id.
func threadInfo(id string) ThreadInfo {
	base := "/threads/" + id
	return ThreadInfo{ID: id, Page: base, Runs: base + "/runs", Stop: base + "/stop", Events: base + "/events", Legacy: base + "/legacy", View: base + "/view"}
}

// setLocal records this replica's run in progress (nil: none), unless the
// thread was dropped.
func (t *thread) setLocal(r *localRun) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r != nil && t.retired {
		return ErrUnknownThread
	}
	if r == nil && t.local != nil {
		close(t.local.done)
	}
	t.local = r
	return nil
}

// stopLocal cancels this replica's run of the thread, runID ("" any), and
// reports whether there was one.
func (t *thread) stopLocal(runID string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.local == nil || (runID != "" && t.local.id != runID) {
		return false
	}
	t.local.stop()
	return true
}

// retire marks a thread this replica runs nothing of dropped, and reports
// whether it was.
func (t *thread) retire() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.local != nil {
		return false
	}
	t.retired = true
	return true
}

// close stops following the thread and releases its store and viewers. No
// run of this replica may be in progress (Server.Close waits for them;
// Server drops only threads it runs nothing of).
func (t *thread) close() {
	t.mu.Lock()
	t.retired = true
	t.mu.Unlock()
	t.cancel()
	t.wg.Wait()
	t.unsub()
	t.st.Close()
	t.hub.close()
}

// journalRunner is a transport.Runner that appends each event the runner it
// wraps yields to a run's journal writer, before handing it on: what a
// client folds, the journal holds, so every replica folds the same. A frame
// of an unknown type is journalled as {"type": T}, which decodes to the same
// error; any other frame that did not decode is not journalled (the
// transport does not hand on its bytes). An append that fails is logged and
// the run goes on (the NATS journal stores what it could not at its next
// append).
type journalRunner struct {
	runner transport.Runner
	w      journal.Writer
	log    *slog.Logger
	thread string
}

// Run runs the wrapped runner and journals its events.
func (r journalRunner) Run(ctx context.Context, input *event.RunAgentInput) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		failed := false
		for e, err := range r.runner.Run(ctx, input) {
			var data []byte
			var encErr error
			var unknown *event.UnknownTypeError
			switch {
			case err == nil:
				data, encErr = event.Encode(e)
			case errors.As(err, &unknown):
				data, encErr = json.Marshal(map[string]event.Type{"type": unknown.Type})
			}
			if data != nil && encErr == nil {
				_, encErr = r.w.Append(context.WithoutCancel(ctx), journal.Record{Kind: journal.KindEvent, Data: data})
			}
			if encErr != nil && !failed {
				failed = true
				r.log.Error("cannot journal the run's events; other replicas see them late or not at all", "thread", r.thread, "run", input.RunID, "err", encErr)
			}
			if !yield(e, err) {
				return
			}
		}
	}
}
