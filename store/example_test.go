package store_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/store"
	"github.com/agview/agview/view"
)

// A store folds events into a view and tells subscribers about new views.
func ExampleStore() {
	s := store.New(nil)
	defer s.Close()

	unsubscribe := s.Subscribe(func(v *view.View) {
		// Runs on the subscriber's own goroutine, with the latest view.
		_ = v.EventCount()
	})
	defer unsubscribe()

	for _, e := range []event.Event{
		&event.RunStarted{ThreadID: "th1", RunID: "r1"},
		&event.TextMessageStart{MessageID: "m1"},
		&event.TextMessageContent{MessageID: "m1", Delta: "Hello"},
		&event.TextMessageContent{MessageID: "nope", Delta: "?"}, // refused: no such message
		&event.TextMessageEnd{MessageID: "m1"},
		&event.RunFinished{ThreadID: "th1", RunID: "r1"},
	} {
		// A refused event is recorded in the view; the store goes on.
		var vio *reducer.Violation
		if err := s.Dispatch(e); errors.As(err, &vio) {
			fmt.Printf("refused event %d (%s): rule %s\n", vio.Index, vio.Type, vio.Rule)
		}
	}
	if err := s.Settle(context.Background()); err != nil {
		fmt.Println(err)
	}

	v := s.View()
	fmt.Println("events:", v.EventCount())
	for m := range v.Messages() {
		fmt.Printf("%s %s: %s\n", m.Role, m.ID, m.Content)
	}
	fmt.Println("run:", v.Runs()[0].Status)
	// Output:
	// refused event 3 (TEXT_MESSAGE_CONTENT): rule V7
	// events: 6
	// assistant m1: "Hello"
	// run: finished
}

// SubscribeInvocation watches one subagent: its function runs only when that
// invocation changed, not for the events of others.
func ExampleStore_SubscribeInvocation() {
	s := store.New(nil)
	defer s.Close()

	seen := make(chan view.Status, 16)
	unsubscribe := s.SubscribeInvocation("sa-1", func(inv *view.Invocation, v *view.View) {
		seen <- inv.Status()
	})
	defer unsubscribe()

	ctx := context.Background()
	for _, e := range []event.Event{
		&event.RunStarted{ThreadID: "th1", RunID: "r1"},
		&event.SubagentStarted{ID: "sa-1", Name: "researcher"},
		&event.SubagentStarted{ID: "sa-2", Name: "critic"},
		&event.SubagentFinished{ID: "sa-2"},
		&event.SubagentFinished{ID: "sa-1"},
		&event.RunFinished{ThreadID: "th1", RunID: "r1"},
	} {
		_ = s.Dispatch(e)
		_ = s.Settle(ctx) // deliver each view before the next, for a predictable output
	}
	close(seen)
	for st := range seen {
		fmt.Println("sa-1:", st)
	}
	// Output:
	// sa-1: running
	// sa-1: finished
}

// Wait blocks until the view satisfies a condition: no polling, no sleeping.
func ExampleStore_Wait() {
	s := store.New(nil)
	defer s.Close()

	go func() {
		_ = s.Dispatch(&event.RunStarted{ThreadID: "th1", RunID: "r1"})
		_ = s.Dispatch(&event.RunFinished{ThreadID: "th1", RunID: "r1"})
	}()

	v, err := s.Wait(context.Background(), func(v *view.View) bool {
		runs := v.Runs()
		return len(runs) > 0 && runs[len(runs)-1].Status != view.RunRunning
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Runs()[0].Status)
	// Output: finished
}

// StripSubagents works on one event and never modifies it.
func ExampleStripSubagents() {
	in := &event.TextMessageContent{Attribution: event.By("sa-1"), MessageID: "m1", Delta: "hi"}
	out, keep := store.StripSubagents(in)
	_, inTagged := in.SubagentRunID()
	_, outTagged := out.SubagentRunID()
	fmt.Println(keep, inTagged, outTagged)

	_, keep = store.StripSubagents(&event.SubagentStarted{ID: "sa-1", Name: "researcher"})
	fmt.Println(keep)
	// Output:
	// true true false
	// false
}

// CloseContext bounds how long closing waits for a subscriber that is stuck,
// e.g. writing to a client that stopped reading.
func ExampleStore_CloseContext() {
	s := store.New(nil)
	stuck := make(chan struct{})
	entered := make(chan struct{})
	s.Subscribe(func(v *view.View) {
		close(entered)
		<-stuck // blocks until released
	})
	<-entered

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := s.CloseContext(ctx)
	var ce *store.CloseError
	if errors.As(err, &ce) {
		fmt.Println("still running:", ce.Running, errors.Is(err, context.DeadlineExceeded))
	}
	fmt.Println("dispatch after close:", s.Dispatch(&event.RunStarted{ThreadID: "t", RunID: "r"}))

	close(stuck)
	fmt.Println("second close:", s.CloseContext(context.Background()))
	// Output:
	// still running: 1 true
	// dispatch after close: store: closed
	// second close: <nil>
}
