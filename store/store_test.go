package store_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/benchmeter"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/store"
	"github.com/agview/agview/view"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// ---------------------------------------------------------------------------
// Event builders

func runStarted() event.Event { return &event.RunStarted{ThreadID: "th1", RunID: "r1"} }

func runFinished() event.Event { return &event.RunFinished{ThreadID: "th1", RunID: "r1"} }

func attr(tag string) event.Attribution {
	if tag == "" {
		return event.Attribution{}
	}
	return event.By(tag)
}

func textStart(id, tag string) event.Event {
	return &event.TextMessageStart{Attribution: attr(tag), MessageID: id}
}

func textContent(id, delta, tag string) event.Event {
	return &event.TextMessageContent{Attribution: attr(tag), MessageID: id, Delta: delta}
}

func textEnd(id, tag string) event.Event {
	return &event.TextMessageEnd{Attribution: attr(tag), MessageID: id}
}

func subStarted(id string) event.Event {
	return &event.SubagentStarted{ID: id, Name: "researcher"}
}

func subFinished(id string) event.Event { return &event.SubagentFinished{ID: id} }

// dispatchAll dispatches events and requires every one to be accepted.
func dispatchAll(t *testing.T, s *store.Store, events ...event.Event) {
	t.Helper()
	for i, e := range events {
		require.NoError(t, s.Dispatch(e), "event %d (%s) must be accepted", i, e.EventType())
	}
}

// content returns the text of message id in v, and whether it exists.
func content(v *view.View, id string) (string, bool) {
	for m := range v.Messages() {
		if m.ID == id {
			var s string
			if len(m.Content) > 0 && m.Content[0] == '"' {
				s = strings.Trim(string(m.Content), `"`)
			}
			return s, true
		}
	}
	return "", false
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// ---------------------------------------------------------------------------
// Dispatch, Refuse, End

func TestDispatchFoldsAndPublishes(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()

	v0 := s.View()
	require.NotNil(t, v0)
	assert.Equal(t, 0, v0.EventCount())

	dispatchAll(t, s, runStarted(), textStart("m1", ""), textContent("m1", "Hello, ", ""),
		textContent("m1", "world", ""), textEnd("m1", ""), runFinished())

	v := s.View()
	assert.Equal(t, 6, v.EventCount(), "every dispatched event is counted")
	got, ok := content(v, "m1")
	require.True(t, ok, "message m1 is in the view")
	assert.Equal(t, "Hello, world", got)
	assert.Equal(t, 0, v0.EventCount(), "an earlier view never changes")
	runs := v.Runs()
	require.Len(t, runs, 1)
	assert.Equal(t, view.RunFinished, runs[0].Status)
}

func TestNewOptions(t *testing.T) {
	t.Parallel()
	initial, err := reducer.Reduce(view.New(), runStarted())
	require.NoError(t, err)

	cases := []struct {
		name  string
		opts  *store.Options
		want  *view.View
		count int
	}{
		{name: "nil options", opts: nil, count: 0},
		{name: "zero options", opts: &store.Options{}, count: 0},
		{name: "initial view", opts: &store.Options{Initial: initial}, want: initial, count: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := store.New(tc.opts)
			defer s.Close()
			if tc.opts != nil {
				tc.opts.Initial = nil // the store does not retain opts
			}
			if tc.want != nil {
				assert.Same(t, tc.want, s.View())
			}
			assert.Equal(t, tc.count, s.View().EventCount())
		})
	}
}

func TestDispatchViolationKeepsGoing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		before  []event.Event
		bad     event.Event
		rule    string
		after   []event.Event
		message string // id of a message the later events complete
	}{
		{
			name:   "content for a message never started",
			before: []event.Event{runStarted()},
			bad:    textContent("nope", "x", ""),
			rule:   "V7",
			after:  []event.Event{textStart("m1", ""), textContent("m1", "ok", ""), textEnd("m1", ""), runFinished()},
		},
		{
			name:   "first event is not RUN_STARTED",
			bad:    textStart("m1", ""),
			rule:   "V1",
			after:  []event.Event{runStarted(), textStart("m1", ""), textContent("m1", "ok", ""), textEnd("m1", ""), runFinished()},
			before: nil,
		},
		{
			name:   "continuation tagged with another owner",
			before: []event.Event{runStarted(), subStarted("a"), subStarted("b"), textStart("m1", "a")},
			bad:    textContent("m1", "intruder", "b"),
			rule:   "R15",
			after:  []event.Event{textContent("m1", "ok", "a"), textEnd("m1", "a"), subFinished("a"), subFinished("b"), runFinished()},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := store.New(nil)
			defer s.Close()
			dispatchAll(t, s, tc.before...)
			before := s.View()

			err := s.Dispatch(tc.bad)
			var vio *reducer.Violation
			require.ErrorAs(t, err, &vio, "a refused event returns a *reducer.Violation")
			assert.Equal(t, tc.rule, vio.Rule)
			assert.Equal(t, len(tc.before), vio.Index, "the violation names the event's index")

			v := s.View()
			assert.NotSame(t, before, v, "the refusal is published")
			assert.Equal(t, len(tc.before)+1, v.EventCount(), "the refused event is counted")
			var found bool
			for _, d := range v.Diagnostics() {
				if d.Kind == view.DiagViolation && d.Index == len(tc.before) {
					found = true
					assert.Equal(t, tc.rule, d.Rule)
				}
			}
			assert.True(t, found, "the view's diagnostics record the violation")

			dispatchAll(t, s, tc.after...)
			got, ok := content(s.View(), "m1")
			require.True(t, ok)
			assert.Equal(t, "ok", got, "the events after the refused one are folded")
		})
	}
}

func TestDispatchNilEvent(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	before := s.View()
	assert.ErrorIs(t, s.Dispatch(nil), store.ErrNilEvent)
	assert.Same(t, before, s.View(), "a nil event changes nothing")
}

func TestDispatchContainsReducerPanic(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	dispatchAll(t, s, runStarted())

	// A typed nil event is a programming error the reducer does not expect.
	var bad *event.TextMessageContent
	err := s.Dispatch(bad)
	require.Error(t, err)
	var perr *store.PanicError
	var vio *reducer.Violation
	switch {
	case errors.As(err, &perr):
		assert.Equal(t, 1, perr.Index)
		assert.Equal(t, event.TypeTextMessageContent, perr.Type)
		assert.NotEmpty(t, perr.Stack)
		assert.Contains(t, perr.Error(), "event 1 (TEXT_MESSAGE_CONTENT)")
	case errors.As(err, &vio):
		// The reducer itself refuses it: fine too.
	default:
		t.Fatalf("Dispatch(typed nil) = %v; want a *store.PanicError or a *reducer.Violation", err)
	}
	assert.Equal(t, 2, s.View().EventCount(), "the bad event is counted")
	dispatchAll(t, s, textStart("m1", ""), textEnd("m1", ""), runFinished())
}

func TestRefuse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		cause error
		kind  view.DiagKind
		typ   event.Type
	}{
		{
			name:  "decode error",
			cause: &event.DecodeError{Type: event.TypeTextMessageContent, Pointer: "/delta", Offset: 40, Rule: event.RuleSchema, Reason: "expected a string"},
			kind:  view.DiagViolation,
			typ:   event.TypeTextMessageContent,
		},
		{
			name:  "decode error wrapped with a line number",
			cause: &event.LineError{Line: 3, Err: &event.DecodeError{Type: event.TypeStepStarted, Pointer: "/stepName", Offset: -1, Rule: event.RuleSchema, Reason: "missing"}},
			kind:  view.DiagViolation,
			typ:   event.TypeStepStarted,
		},
		{
			name:  "unknown type is a warning",
			cause: &event.UnknownTypeError{Type: "FANCY_NEW_EVENT"},
			kind:  view.DiagWarning,
			typ:   "FANCY_NEW_EVENT",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := store.New(nil)
			defer s.Close()
			dispatchAll(t, s, runStarted())
			require.NoError(t, s.Refuse(tc.cause))
			v := s.View()
			assert.Equal(t, 2, v.EventCount(), "a refused wire event is counted")
			var found bool
			for _, d := range v.Diagnostics() {
				if d.Index == 1 {
					found = true
					assert.Equal(t, tc.kind, d.Kind)
					assert.Equal(t, tc.typ, d.Type)
				}
			}
			assert.True(t, found, "the diagnostics record event 1")
			dispatchAll(t, s, textStart("m1", ""), textEnd("m1", ""), runFinished())
		})
	}
}

func TestEnd(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		cause  error
		run    view.RunStatus
		invoke view.Status
	}{
		{name: "stream ended mid-run", cause: nil, run: view.RunIncomplete},
		{name: "cancelled", cause: context.Canceled, run: view.RunCancelled, invoke: view.Abandoned},
		{name: "transport broke", cause: errors.New("read tcp: connection reset by peer"), run: view.RunFailed, invoke: view.Abandoned},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := store.New(nil)
			defer s.Close()
			dispatchAll(t, s, runStarted(), subStarted("a"), textStart("m1", "a"))
			require.NoError(t, s.End(tc.cause))
			v := s.View()
			runs := v.Runs()
			require.Len(t, runs, 1)
			assert.Equal(t, tc.run, runs[0].Status)
			if tc.invoke != "" {
				inv := v.Invocation("a")
				require.NotNil(t, inv)
				assert.Equal(t, tc.invoke, inv.Status())
			}
		})
	}
}

func TestClosed(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	dispatchAll(t, s, runStarted())
	last := s.View()
	s.Close()
	s.Close() // idempotent

	assert.ErrorIs(t, s.Dispatch(textStart("m1", "")), store.ErrClosed)
	assert.ErrorIs(t, s.Refuse(&event.UnknownTypeError{Type: "X"}), store.ErrClosed)
	assert.ErrorIs(t, s.End(nil), store.ErrClosed)
	assert.Same(t, last, s.View(), "View still returns the last view")
	assert.ErrorIs(t, s.Settle(t.Context()), store.ErrClosed)

	called := false
	unsubscribe := s.Subscribe(func(*view.View) { called = true })
	unsubscribe()
	unsubscribe = s.SubscribeInvocation("a", func(*view.Invocation, *view.View) { called = true })
	unsubscribe()
	assert.False(t, called, "a subscription made after Close is never called")

	v, err := s.Wait(t.Context(), func(v *view.View) bool { return v.EventCount() == 1 })
	assert.NoError(t, err, "a closed store still answers Wait from its last view")
	assert.Same(t, last, v)
	_, err = s.Wait(t.Context(), func(v *view.View) bool { return v.EventCount() == 5 })
	assert.ErrorIs(t, err, store.ErrClosed)
}

func TestNilFunctionPanics(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	assert.Panics(t, func() { s.Subscribe(nil) })
	assert.Panics(t, func() { s.SubscribeInvocation("a", nil) })
}

// ---------------------------------------------------------------------------
// Subscriptions

func TestSubscribeDeliversCurrentThenLatest(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	dispatchAll(t, s, runStarted())

	var mu sync.Mutex
	var got []*view.View
	unsubscribe := s.Subscribe(func(v *view.View) {
		mu.Lock()
		got = append(got, v)
		mu.Unlock()
	})
	defer unsubscribe()
	require.NoError(t, s.Settle(ctx(t)))
	mu.Lock()
	require.Len(t, got, 1, "a new subscriber is first given the current view")
	assert.Same(t, s.View(), got[0])
	mu.Unlock()

	dispatchAll(t, s, textStart("m1", ""))
	require.NoError(t, s.Settle(ctx(t)))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 2)
	assert.Same(t, s.View(), got[1], "then the latest view")
}

func TestSlowSubscriberNeverBlocksDispatch(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()

	entered := make(chan struct{})
	release := make(chan struct{})
	var calls atomic.Int32
	var last atomic.Pointer[view.View]
	unsubscribe := s.Subscribe(func(v *view.View) {
		if calls.Add(1) == 1 {
			close(entered)
			<-release // stuck until the test has dispatched everything
		}
		last.Store(v)
	})
	defer unsubscribe()

	select {
	case <-entered:
	case <-ctx(t).Done():
		t.Fatal("the subscriber was never called")
	}

	const n = 2000
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Dispatch(runStarted())
		_ = s.Dispatch(textStart("m1", ""))
		for range n {
			_ = s.Dispatch(textContent("m1", "x", ""))
		}
	}()
	select {
	case <-done:
	case <-ctx(t).Done():
		close(release)
		t.Fatal("Dispatch blocked on a subscriber that was busy")
	}
	assert.Equal(t, n+2, s.View().EventCount())

	close(release)
	require.NoError(t, s.Settle(ctx(t)))
	assert.Equal(t, int32(2), calls.Load(), "a slow subscriber skips to the latest view: the first view, then the last")
	assert.Same(t, s.View(), last.Load(), "the subscriber ends on the latest view")
}

func TestSubscribersNeverSeeTornViews(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	dispatchAll(t, s, runStarted(), textStart("m1", ""))

	// Every view after the first two events has exactly EventCount()-2
	// characters in m1: a view mixing two states would break that.
	consistent := func(v *view.View) error {
		got, ok := content(v, "m1")
		if !ok {
			return fmt.Errorf("view with %d events has no m1", v.EventCount())
		}
		if len(got) != v.EventCount()-2 {
			return fmt.Errorf("view with %d events has %d characters in m1", v.EventCount(), len(got))
		}
		return nil
	}

	const subscribers, readers, n = 4, 2, 500
	var errs sync.Map
	var wg sync.WaitGroup
	var unsubs []func()
	for i := range subscribers {
		prev := 0
		unsubs = append(unsubs, s.Subscribe(func(v *view.View) {
			if err := consistent(v); err != nil {
				errs.Store(fmt.Sprintf("subscriber %d", i), err)
			}
			if v.EventCount() <= prev {
				errs.Store(fmt.Sprintf("subscriber %d order", i), fmt.Errorf("saw %d events after %d", v.EventCount(), prev))
			}
			prev = v.EventCount()
		}))
	}
	stop := make(chan struct{})
	for i := range readers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := consistent(s.View()); err != nil {
					errs.Store(fmt.Sprintf("reader %d", i), err)
					return
				}
			}
		})
	}
	for range n {
		require.NoError(t, s.Dispatch(textContent("m1", "x", "")))
	}
	require.NoError(t, s.Settle(ctx(t)))
	close(stop)
	wg.Wait()
	for _, u := range unsubs {
		u()
	}
	errs.Range(func(k, v any) bool {
		t.Errorf("%s: %v", k, v)
		return true
	})
}

func TestUnsubscribeFromInsideFn(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()

	var calls atomic.Int32
	var unsubscribe func()
	ready := make(chan struct{})
	unsubscribe = s.Subscribe(func(*view.View) {
		<-ready
		calls.Add(1)
		unsubscribe()
		unsubscribe() // idempotent, still inside fn
	})
	close(ready)
	require.NoError(t, s.Settle(ctx(t)))
	assert.Equal(t, int32(1), calls.Load())

	dispatchAll(t, s, runStarted(), textStart("m1", ""))
	require.NoError(t, s.Settle(ctx(t)))
	assert.Equal(t, int32(1), calls.Load(), "no call after unsubscribing")
	unsubscribe() // and from outside, once more
}

func TestUnsubscribeStopsDeliveries(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()

	var calls atomic.Int32
	unsubscribe := s.Subscribe(func(*view.View) { calls.Add(1) })
	require.NoError(t, s.Settle(ctx(t)))
	require.Equal(t, int32(1), calls.Load())

	unsubscribe()
	dispatchAll(t, s, runStarted(), textStart("m1", ""))
	require.NoError(t, s.Settle(ctx(t)), "Settle does not wait for an ended subscription")
	assert.Equal(t, int32(1), calls.Load(), "no call after unsubscribe returned")
}

func TestSubscribeInvocationFiresOnlyOnChange(t *testing.T) {
	t.Parallel()
	type call struct {
		status view.Status
		events int
	}
	steps := []struct {
		name string
		ev   event.Event
		fire bool        // whether the subscription to "a" must fire
		want view.Status // the status it then sees
	}{
		{name: "run starts", ev: runStarted()},
		{name: "b starts", ev: subStarted("b")},
		{name: "a starts", ev: subStarted("a"), fire: true, want: view.Running},
		{name: "parent text", ev: textStart("p1", "")},
		{name: "b opens a message", ev: textStart("mb", "b")},
		{name: "a opens a message", ev: textStart("ma", "a"), fire: true, want: view.Running},
		{name: "b streams", ev: textContent("mb", "hello", "b")},
		{name: "b closes its message", ev: textEnd("mb", "b")},
		{name: "a closes its message", ev: textEnd("ma", "a"), fire: true, want: view.Running},
		{name: "b finishes", ev: subFinished("b")},
		{name: "parent text ends", ev: textEnd("p1", "")},
		{name: "a finishes", ev: subFinished("a"), fire: true, want: view.Finished},
		{name: "run finishes", ev: runFinished()},
	}

	s := store.New(nil)
	defer s.Close()
	var mu sync.Mutex
	var calls []call
	unsubscribe := s.SubscribeInvocation("a", func(inv *view.Invocation, v *view.View) {
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, "a", inv.ID())
		assert.Same(t, inv, v.Invocation("a"), "fn gets the invocation of the view it gets")
		calls = append(calls, call{inv.Status(), v.EventCount()})
	})
	defer unsubscribe()

	want := 0
	for i, st := range steps {
		require.NoError(t, s.Dispatch(st.ev), "step %d: %s", i, st.name)
		require.NoError(t, s.Settle(ctx(t)))
		mu.Lock()
		if st.fire {
			want++
		}
		if assert.Len(t, calls, want, "after step %d (%s)", i, st.name) && st.fire {
			assert.Equal(t, call{st.want, i + 1}, calls[want-1], "step %d: %s", i, st.name)
		}
		mu.Unlock()
	}
}

func TestSubscribeInvocationExistingAndLate(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	dispatchAll(t, s, runStarted(), subStarted("a"))

	var a, b atomic.Int32
	ua := s.SubscribeInvocation("a", func(*view.Invocation, *view.View) { a.Add(1) })
	defer ua()
	ub := s.SubscribeInvocation("b", func(*view.Invocation, *view.View) { b.Add(1) })
	defer ub()
	require.NoError(t, s.Settle(ctx(t)))
	assert.Equal(t, int32(1), a.Load(), "an invocation that exists is delivered at once")
	assert.Equal(t, int32(0), b.Load(), "an unknown invocation is not delivered")

	dispatchAll(t, s, subStarted("b"))
	require.NoError(t, s.Settle(ctx(t)))
	assert.Equal(t, int32(1), b.Load(), "it is delivered once it exists")
}

func TestConcurrentDispatchIsSerialised(t *testing.T) {
	t.Parallel()
	const writers, perWriter = 6, 300
	s := store.New(nil)
	defer s.Close()
	dispatchAll(t, s, runStarted())
	for w := range writers {
		dispatchAll(t, s, textStart(fmt.Sprintf("m%d", w), ""))
	}

	var wg sync.WaitGroup
	var failures atomic.Int32
	for w := range writers {
		wg.Go(func() {
			id := fmt.Sprintf("m%d", w)
			for i := range perWriter {
				if err := s.Dispatch(textContent(id, string(rune('a'+i%26)), "")); err != nil {
					failures.Add(1)
				}
			}
		})
	}
	wg.Wait()
	assert.Zero(t, failures.Load(), "no concurrent event was refused")

	v := s.View()
	assert.Equal(t, 1+writers+writers*perWriter, v.EventCount(), "every event was folded exactly once")
	for w := range writers {
		got, ok := content(v, fmt.Sprintf("m%d", w))
		require.True(t, ok)
		var want strings.Builder
		for i := range perWriter {
			want.WriteRune(rune('a' + i%26))
		}
		assert.Equal(t, want.String(), got, "writer %d's deltas are all there, in its order", w)
	}
}

// ---------------------------------------------------------------------------
// Wait, Changed, Settle, Close

func TestWait(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()

	hasRun := func(v *view.View) bool { return len(v.Runs()) == 1 }
	result := make(chan *view.View, 1)
	go func() {
		v, err := s.Wait(ctx(t), hasRun)
		assert.NoError(t, err)
		result <- v
	}()
	dispatchAll(t, s, runStarted())
	v := <-result
	require.NotNil(t, v)
	assert.True(t, hasRun(v))

	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := s.Wait(cancelled, func(*view.View) bool { return false })
	assert.ErrorIs(t, err, context.Canceled)
}

func TestChanged(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	ch := s.Changed()
	select {
	case <-ch:
		t.Fatal("Changed is closed before any change")
	default:
	}
	dispatchAll(t, s, runStarted())
	select {
	case <-ch:
	default:
		t.Fatal("Changed is not closed after a change")
	}
	assert.NotEqual(t, ch, s.Changed(), "a new channel waits for the next change")
}

func TestSettleContext(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	release := make(chan struct{})
	unsubscribe := s.Subscribe(func(*view.View) { <-release })
	defer unsubscribe()

	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, s.Settle(cancelled), context.Canceled, "Settle gives up when its context ends")
	close(release)
	assert.NoError(t, s.Settle(ctx(t)))
}

func TestCloseWaitsForSubscribers(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	entered := make(chan struct{})
	release := make(chan struct{})
	var finished atomic.Bool
	var enter sync.Once
	s.Subscribe(func(*view.View) {
		// The Dispatch loop below may publish a view before Close begins,
		// which this subscriber is then handed once released.
		enter.Do(func() { close(entered) })
		<-release
		finished.Store(true)
	})
	for range 3 {
		s.Subscribe(func(*view.View) {})
	}
	<-entered

	closed := make(chan struct{})
	go func() {
		s.Close()
		close(closed)
	}()
	// Once Dispatch reports the store closed, Close is under way.
	for !errors.Is(s.Dispatch(runStarted()), store.ErrClosed) {
		runtime.Gosched()
	}
	select {
	case <-closed:
		t.Fatal("Close returned while a subscriber was still running")
	default:
	}
	close(release)
	<-closed
	assert.True(t, finished.Load(), "Close returned after the subscriber's call ended")
}

// ---------------------------------------------------------------------------
// Benchmarks

// BenchmarkDispatch measures what the store adds to the reducer (the lock,
// the atomic publication, the doorbells) on the demo swarm's stream, folded
// into a fresh view or store per iteration.
func BenchmarkDispatch(b *testing.B) {
	events := agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 1, Researchers: 8, Rounds: 4})
	perEvent := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(events)), "ns/event")
	}

	b.Run("reducer only", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v := view.New()
			for _, e := range events {
				v, _ = reducer.Fold(v, e)
			}
		}
		perEvent(b)
	})
	for _, subs := range []int{0, 1, 8} {
		b.Run(fmt.Sprintf("store/%d subscribers", subs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := store.New(nil)
				for range subs {
					s.Subscribe(func(v *view.View) { _ = v.EventCount() })
				}
				for _, e := range events {
					_ = s.Dispatch(e)
				}
				s.Close()
			}
			perEvent(b)
		})
	}
}

// BenchmarkPublishSubscribers measures what one Dispatch costs with one
// subscriber and with 10,000, in the same run, and reports the ratio: the
// publication must cost the same whatever the number of subscribers (they
// read the latest view; none is rung per event). Each pass dispatches a
// batch of text deltas into one message, then settles, so the CPU time per
// event includes the subscribers' own wake-ups.
func BenchmarkPublishSubscribers(b *testing.B) {
	const batch = 2000
	counts := []int{1, 10_000}
	type setup struct {
		s      *store.Store
		events []event.Event
		wall   time.Duration
		cpu    time.Duration
	}
	setups := make([]*setup, len(counts))
	for i, n := range counts {
		s := store.New(nil)
		for range n {
			s.Subscribe(func(v *view.View) { _ = v.EventCount() })
		}
		require.NoError(b, s.Dispatch(runStarted()))
		require.NoError(b, s.Dispatch(textStart("m1", "")))
		require.NoError(b, s.Settle(b.Context()))
		events := make([]event.Event, batch)
		for j := range events {
			events[j] = textContent("m1", "x", "")
		}
		setups[i] = &setup{s: s, events: events}
		defer s.Close()
	}
	for b.Loop() {
		for _, st := range setups {
			cpu0, _ := benchmeter.CPUTime()
			t0 := time.Now()
			for _, e := range st.events {
				_ = st.s.Dispatch(e)
			}
			st.wall += time.Since(t0)
			_ = st.s.Settle(b.Context())
			cpu1, _ := benchmeter.CPUTime()
			st.cpu += cpu1 - cpu0
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N*batch) }
	for i, n := range counts {
		b.ReportMetric(per(setups[i].wall), fmt.Sprintf("dispatch-ns/event/%dsubs", n))
		b.ReportMetric(per(setups[i].cpu), fmt.Sprintf("cpu-ns/event/%dsubs", n))
	}
	b.ReportMetric(per(setups[1].wall)/per(setups[0].wall), "dispatch-ratio")
	b.ReportMetric(per(setups[1].cpu)/per(setups[0].cpu), "cpu-ratio")
	b.ReportMetric(0, "ns/op")
}

func TestCloseContext(t *testing.T) {
	t.Parallel()
	t.Run("a blocked subscriber does not hold it past its deadline", func(t *testing.T) {
		t.Parallel()
		s := store.New(nil)
		entered := make(chan struct{})
		release := make(chan struct{})
		s.Subscribe(func(*view.View) {
			close(entered)
			<-release
		})
		for range 3 {
			s.Subscribe(func(*view.View) {})
		}
		<-entered
		expired, cancel := context.WithDeadline(t.Context(), time.Unix(0, 0))
		defer cancel()
		err := s.CloseContext(expired)
		var ce *store.CloseError
		require.ErrorAs(t, err, &ce, "CloseContext gives up when its context ends")
		assert.Equal(t, int64(1), ce.Running, "one subscriber function is still running")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorIs(t, s.Dispatch(runStarted()), store.ErrClosed, "the store is closed all the same")
		close(release)
		assert.NoError(t, s.CloseContext(ctx(t)), "a second call waits for the rest")
	})
	t.Run("nothing running returns nil", func(t *testing.T) {
		t.Parallel()
		s := store.New(nil)
		s.Subscribe(func(*view.View) {})
		require.NoError(t, s.Settle(ctx(t)))
		assert.NoError(t, s.CloseContext(ctx(t)))
		assert.NoError(t, s.CloseContext(ctx(t)), "idempotent")
	})
}

// TestManySubscribersSeeTheLatestView checks the broadcast: every one of
// many subscribers ends on the last view, whichever views it skipped.
func TestManySubscribersSeeTheLatestView(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	const n = 500
	last := make([]atomic.Int64, n)
	for i := range n {
		s.Subscribe(func(v *view.View) { last[i].Store(int64(v.EventCount())) })
	}
	dispatchAll(t, s, runStarted(), textStart("m1", ""))
	for range 200 {
		require.NoError(t, s.Dispatch(textContent("m1", "x", "")))
	}
	require.NoError(t, s.Settle(ctx(t)))
	want := int64(s.View().EventCount())
	for i := range n {
		require.Equal(t, want, last[i].Load(), "subscriber %d ends on the latest view", i)
	}
}
