package main

import (
	"context"
	"fmt"
	"image"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/store"
	"github.com/agview/agview/view"
)

func TestMain(m *testing.M) {
	// Gio's headless renderer asks EGL for its default display: without a
	// platform Mesa looks for an X server. Surfaceless needs none, and
	// renders with llvmpipe where there is no GPU.
	if os.Getenv("EGL_PLATFORM") == "" {
		os.Setenv("EGL_PLATFORM", "surfaceless")
	}
	goleak.VerifyTestMain(m)
}

// TestConversation holds the demo's conversation through the window: the
// swarm stops on its approval interrupt, Approve (or Reject) is clicked,
// the suspended researcher goes on as answered, and a follow-up typed in
// the box is answered in a third run, all against the in-process agent
// over HTTP.
func TestConversation(t *testing.T) {
	for _, c := range []struct {
		button   string
		approved bool
		result   string // what the researcher's pane shows after the answer
	}{
		{"Approve", true, "Purchased"},
		{"Reject", false, "Purchase declined by the user"},
	} {
		t.Run(c.button, func(t *testing.T) {
			ctx := testCtx(t)
			srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
			defer srv.Close()
			cl := client.New(srv.URL())
			defer cl.Close()
			s := newSender(ctx, cl, func() {})
			defer s.wait()
			u := newUI(newTheme(), s)
			defer u.watch(cl.Store(), func() {})()
			h := newHarness(t, u, image.Pt(1280, 800))

			require.True(t, s.run(agenttest.SwarmInput(&agenttest.SwarmConfig{Seed: 1, ThreadID: "desktop-thread"})))
			v := waitFor(t, ctx, h, cl.Store(), func(v *view.View) bool { return lastRun(v) == view.RunInterrupted })
			pending := v.PendingInterrupts()
			require.Len(t, pending, 1, "the demo's approval interrupt")
			suspended := *pending[0].Subagent
			assert.Equal(t, view.Suspended, u.panes[suspended].status, "the pane shows the researcher waiting")

			h.typeLine("What does the report cost?")
			assert.Contains(t, u.notice, "answer the pending interrupt first", "a message alone cannot leave the interrupt unanswered")
			h.click(c.button)
			v = waitFor(t, ctx, h, cl.Store(), func(v *view.View) bool {
				return len(v.Runs()) == 2 && lastRun(v) == view.RunFinished
			})
			require.NoError(t, s.lastErr())
			assert.Equal(t, view.Finished, u.panes[suspended].status, "the answered researcher finished")
			assert.Contains(t, paneText(u, suspended), c.result)
			assert.Empty(t, v.PendingInterrupts())
			inputs := srv.Inputs()
			require.Len(t, inputs, 2)
			require.Len(t, inputs[1].Resume, 1)
			assert.Equal(t, pending[0].ID, inputs[1].Resume[0].InterruptID)
			assert.JSONEq(t, fmt.Sprintf(`{"approved":%t}`, c.approved), string(inputs[1].Resume[0].Payload))
			assert.Contains(t, paneText(u, ""), "user: What does the report cost?", "the message typed while the interrupt was pending went with the answer")

			h.typeLine("Which city switched first?")
			v = waitFor(t, ctx, h, cl.Store(), func(v *view.View) bool {
				return len(v.Runs()) == 3 && lastRun(v) == view.RunFinished
			})
			require.NoError(t, s.lastErr())
			assert.Contains(t, paneText(u, ""), "user: Which city switched first?", "the follow-up is in the parent agent's pane")
			assert.Empty(t, u.editor.Text(), "the box is emptied once sent")
		})
	}
}

// waitFor lays out frames until the UI shows a view of s satisfying cond
// and no turn is under way (cond is about the view only: Store.Wait checks
// it when the view changes). The store is only waited on by the test, never
// by a frame.
func waitFor(t *testing.T, ctx context.Context, h *harness, s *store.Store, cond func(*view.View) bool) *view.View {
	t.Helper()
	_, err := s.Wait(ctx, cond)
	require.NoError(t, err)
	require.NoError(t, s.Settle(ctx))
	for !cond(h.u.feed.view()) || (h.u.sender != nil && h.u.sender.sending()) {
		select {
		case <-ctx.Done():
			t.Fatal("the UI never showed the view waited for")
		case <-time.After(time.Millisecond):
		}
	}
	h.frame()
	return h.u.shown
}

// stuck is an agent connection every call of which blocks until the test
// ends: were the UI goroutine to make one, its frame would never return.
type stuck struct {
	calls atomic.Int64
	done  <-chan struct{}
}

func (s *stuck) Run(ctx context.Context, _ *event.RunAgentInput) (*view.View, error) {
	s.calls.Add(1)
	<-s.done
	return nil, context.Canceled
}

func (s *stuck) Continue(ctx context.Context, _ *client.InputOptions) (*view.View, error) {
	s.calls.Add(1)
	<-s.done
	return nil, context.Canceled
}

// TestUINeverWaits shows that the UI goroutine never waits on the store or
// the agent: while the store's subscriber is held up, the agent blocks
// every call and another subscriber never returns (so Settle and Close
// would block forever), every frame, click and keystroke returns, and the
// UI shows the latest view as soon as it is handed over — one frame for a
// whole burst of events.
func TestUINeverWaits(t *testing.T) {
	done := make(chan struct{})
	agent := &stuck{done: done}
	s := store.New(nil)
	sender := newSender(t.Context(), agent, func() {})
	u := newUI(newTheme(), sender)
	blocked, hold := make(chan struct{}), make(chan struct{})
	var release sync.Once
	var invalidations atomic.Int64
	unblock := s.Subscribe(func(*view.View) { <-done }) // never returns while the test runs: Settle or Close would wait
	unwatch := u.watch(s, func() {
		if invalidations.Add(1) == 1 {
			close(blocked)
			<-hold // a slow subscriber: the store must not wait for it
		}
	})
	defer func() { // everything the test blocked, released in order
		close(done)
		release.Do(func() { close(hold) })
		sender.wait()
		unwatch()
		unblock()
		s.Close()
	}()
	<-blocked
	h := newHarness(t, u, image.Pt(1280, 800))

	// The whole first run of the swarm while the subscriber is held up: the
	// store never waits for it, and the UI draws what it was handed.
	cfg := &agenttest.SwarmConfig{Seed: 1, ThreadID: "desktop-thread", RunID: "run-1"}
	require.NoError(t, s.Input(agenttest.SwarmInput(cfg)))
	events := agenttest.SwarmEvents(cfg)
	for _, e := range events {
		require.NoError(t, s.Dispatch(e))
	}
	within(t, "frames while the subscriber is held up", func() {
		for range 3 {
			h.frame()
		}
	})
	assert.Equal(t, 0, u.shown.EventCount(), "nothing new was handed over yet")

	release.Do(func() { close(hold) })
	for u.feed.view() == nil || u.feed.view().EventCount() < len(events) {
		time.Sleep(time.Millisecond)
	}
	within(t, "a frame after the hand-over", h.frame)
	assert.Equal(t, len(events), u.shown.EventCount(), "the latest view is drawn")
	assert.Equal(t, view.RunInterrupted, lastRun(u.shown))
	assert.LessOrEqual(t, invalidations.Load(), int64(3), "a burst of %d events asks for a couple of frames, not one each", len(events))

	// Every action the window offers, while the agent blocks every call.
	within(t, "Approve while the agent blocks", func() { h.click("Approve") })
	require.Eventually(t, func() bool { return agent.calls.Load() == 1 }, 10*time.Second, time.Millisecond, "Approve started a turn, on another goroutine")
	within(t, "typing and frames while the turn hangs", func() {
		h.typeLine("hello?")
		for range 3 {
			h.frame()
		}
	})
	assert.True(t, sender.sending())
	assert.Equal(t, int64(1), agent.calls.Load(), "one turn at a time")
	assert.Contains(t, u.notice, "a turn is under way")
}

// within fails the test when f does not return within a deadline far
// beyond what a frame takes.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	ret := make(chan struct{})
	go func() {
		defer close(ret)
		f()
	}()
	select {
	case <-ret:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the UI goroutine is waiting", what)
	}
}

// TestAttach watches a journaled thread another client runs, read-only.
func TestAttach(t *testing.T) {
	ctx := testCtx(t)
	dsn := "file:" + t.TempDir()
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer srv.Close()
	j, err := journal.Open(ctx, dsn, nil)
	require.NoError(t, err)
	defer j.Close()
	c := client.New(srv.URL(), client.WithJournal(j, func(err error) { t.Error(err) }))
	defer c.Close()
	_, err = c.Run(ctx, agenttest.SwarmInput(&agenttest.SwarmConfig{Seed: 1, ThreadID: "watched"}))
	require.NoError(t, err)

	sess, err := open(ctx, &config{journal: dsn, thread: "watched"}, func() {})
	require.NoError(t, err)
	defer sess.close()
	assert.Nil(t, sess.sender, "attached: read-only")
	u := newUI(newTheme(), sess.sender)
	defer u.watch(sess.store, func() {})()
	h := newHarness(t, u, image.Pt(800, 600))
	waitFor(t, ctx, h, sess.store, func(v *view.View) bool { return lastRun(v) == view.RunInterrupted })
	_, ok := h.find("Approve")
	assert.False(t, ok, "no Approve button on a read-only window")
	_, ok = h.find("attached to a journal: watching read-only")
	assert.True(t, ok)
	assert.Len(t, u.order, c.Store().View().InvocationCount()+1, "the tree: the parent agent and every subagent")
}

func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"extra"}, exitUsage, "takes no arguments"},
		{[]string{"-thread", "t"}, exitUsage, "-thread needs -journal"},
		{[]string{"-journal", "memory", "-thread", "t", "-agent", "http://x"}, exitUsage, "takes no -agent"},
		{[]string{"-message", "hi"}, exitUsage, "-message is for -agent"},
		{[]string{"-delay", "-1s"}, exitUsage, "want 0 or more"},
		{[]string{"-nope"}, exitUsage, "flag provided but not defined"},
		{[]string{"-h"}, exitOK, "-journal DSN"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var stderr strings.Builder
			cfg, code := parseFlags(c.args, &stderr)
			assert.Nil(t, cfg)
			assert.Equal(t, c.code, code)
			assert.Contains(t, stderr.String(), c.err)
		})
	}
	cfg, code := parseFlags([]string{"-agent", "http://localhost:8000/agent", "-message", "hi"}, io.Discard)
	require.NotNil(t, cfg, "exit %d", code)
	assert.Equal(t, "http://localhost:8000/agent", cfg.agent)

	_, err := open(t.Context(), &config{journal: "postgres://x"}, func() {})
	assert.ErrorIs(t, err, journal.ErrInvalid)
}
