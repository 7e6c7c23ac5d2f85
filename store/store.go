package store

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// ErrClosed is returned by the methods of a Store that has been closed.
var ErrClosed = errors.New("store: closed")

// ErrNilEvent is returned by Dispatch when given a nil event. The view does
// not change: a nil event is a programming error, not a wire event.
var ErrNilEvent = errors.New("store: Dispatch called with a nil event")

// PanicError reports that the reducer panicked while folding an event: a bug
// in agview, which the store contains so that one bad event cannot bring down
// the program embedding it. The event is refused (recorded as a violation in
// the view's diagnostics) and the store goes on.
type PanicError struct {
	// Index is the event's index in the stream (the view's EventCount before it).
	Index int
	// Type is the event's wire type.
	Type event.Type
	// Value is what the reducer panicked with.
	Value any
	// Stack is the stack of the panicking goroutine.
	Stack []byte
}

// Error says which event made the reducer panic and with what.
func (e *PanicError) Error() string {
	if e.Type == "" {
		return fmt.Sprintf("store: event %d: the reducer panicked: %v", e.Index, e.Value)
	}
	return fmt.Sprintf("store: event %d (%s): the reducer panicked: %v", e.Index, e.Type, e.Value)
}

// Options configures a Store. The zero value and nil both mean the defaults.
type Options struct {
	// Initial is the view the store starts from, e.g. one folded from a
	// recording; nil means view.New().
	Initial *view.View
}

// Store holds the latest view of a stream, folds events into it one at a
// time and publishes every new view to its subscribers. Create one with New;
// the zero Store is not usable. See the package documentation for the
// concurrency contract.
type Store struct {
	// mu serialises every writer: Dispatch, Refuse, End and Close.
	mu     sync.Mutex
	closed bool // under mu

	cur  atomic.Pointer[view.View]
	done chan struct{} // closed by Close

	// changed is closed at the next publication; made only when someone
	// asks for it, so that a store nobody waits on allocates nothing.
	changedMu sync.Mutex
	changed   chan struct{}

	// subsMu guards subsClosed and every replacement of subs; Dispatch reads
	// subs without locking.
	subsMu     sync.Mutex
	subsClosed bool
	subs       atomic.Pointer[[]*subscriber] // copy on write
	wg         sync.WaitGroup                // one per subscriber goroutine

	// progress is closed the next time a subscriber has handled a view;
	// made only when Settle waits.
	progressMu sync.Mutex
	progress   chan struct{}
}

// New returns a store holding opts.Initial (or an empty view). opts may be
// nil; it is not retained.
func New(opts *Options) *Store {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Initial == nil {
		o.Initial = view.New()
	}
	s := &Store{done: make(chan struct{})}
	s.cur.Store(o.Initial)
	s.subs.Store(new([]*subscriber))
	return s
}

// View returns the latest view. It never blocks and never locks; the view it
// returns never changes.
func (s *Store) View() *view.View { return s.cur.Load() }

// Changed returns a channel that is closed when the store next publishes a
// view. Take the channel before reading View to be sure not to miss a change:
//
//	ch := s.Changed()
//	if !ready(s.View()) {
//		<-ch
//	}
//
// After Close nothing changes any more, and the channel is never closed.
func (s *Store) Changed() <-chan struct{} {
	s.changedMu.Lock()
	defer s.changedMu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

// Dispatch verifies e against the latest view and folds it (reducer.Fold).
// It returns nil when the event was accepted, or the *reducer.Violation that
// refused it; either way the published view counts the event and a refusal is
// recorded in its diagnostics, so the caller may simply go on with the next
// event. Dispatch never waits for a subscriber and never panics: should the
// reducer panic, the event is refused with a *PanicError. It returns ErrClosed
// after Close and ErrNilEvent for a nil event, without changing the view.
func (s *Store) Dispatch(e event.Event) error {
	if e == nil {
		return ErrNilEvent
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	next, err := fold(s.cur.Load(), e)
	s.publish(next)
	return err
}

// Refuse records one wire event that could not be folded, typically because
// it did not decode, with cause as the reason (reducer.Refuse says how each
// kind of error is recorded: an *event.UnknownTypeError is a warning, an
// *event.DecodeError a violation of its rule). The event's type is taken from
// cause when it is or wraps one of those two errors. The event is counted, so
// later events keep their stream indices. Refuse returns ErrClosed after
// Close, a *PanicError if the reducer panicked (the view is then unchanged),
// else nil.
func (s *Store) Refuse(cause error) error {
	var t event.Type
	var de *event.DecodeError
	var ue *event.UnknownTypeError
	switch {
	case errors.As(cause, &de):
		t = de.Type
	case errors.As(cause, &ue):
		t = ue.Type
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	next, err := refuse(s.cur.Load(), t, cause)
	s.publish(next)
	return err
}

// Input folds the input of a run about to start (reducer.Input): its
// messages become the history the run's events fold onto, its state (when
// present) the run state, and a new stream begins. A client calls it before
// it sends the input. It returns the *reducer.InputError that refused the
// input (the view is then unchanged), ErrClosed after Close, a *PanicError if
// the reducer panicked (the view is then unchanged), else nil.
func (s *Store) Input(in *event.RunAgentInput) error {
	return s.apply(func(cur *view.View) (*view.View, error) { return reducer.Input(cur, in) })
}

// End records the end of the stream (reducer.End): cause nil means the stream
// ended; a context error means it was cancelled; any other error means the
// transport broke, which fails the open run and abandons its open
// invocations. It returns ErrClosed after Close, a *PanicError if the reducer
// panicked (the view is then unchanged), else nil.
func (s *Store) End(cause error) error {
	return s.apply(func(cur *view.View) (*view.View, error) { return reducer.End(cur, cause), nil })
}

// apply publishes fold(latest view), unless the store is closed (ErrClosed),
// fold fails (its error; the view stays as it was) or the reducer panics
// (a *PanicError; the view stays as it was).
func (s *Store) apply(fold func(cur *view.View) (*view.View, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	cur := s.cur.Load()
	var next *view.View
	var err error
	if perr := protect(cur, "", func() { next, err = fold(cur) }); perr != nil {
		return perr
	}
	if err != nil {
		return err
	}
	s.publish(next)
	return nil
}

// Subscribe calls fn with the latest view on a goroutine of its own: first
// as soon as that goroutine starts, then after each change, skipping views published
// while fn was busy. It returns an idempotent function that ends the
// subscription; that function may be called from inside fn. After Close,
// Subscribe does nothing and returns a no-op. fn must not be nil; a panic in
// fn is not recovered.
func (s *Store) Subscribe(fn func(v *view.View)) (unsubscribe func()) {
	if fn == nil {
		panic("store: Subscribe with a nil function")
	}
	var last *view.View
	return s.subscribe(func(v *view.View) {
		if v == last {
			return
		}
		last = v
		fn(v)
	})
}

// SubscribeInvocation calls fn, on a goroutine of its own, each time the
// subagent invocation id changed: once it first exists (or at once, if it
// exists already), then whenever a view holds a different *view.Invocation
// for id than the one last delivered. fn receives the invocation and the view
// it belongs to (for the messages and tool calls it names). Changes made while
// fn was busy are delivered together, as the latest invocation. The returned
// function ends the subscription, as for Subscribe. fn must not be nil.
func (s *Store) SubscribeInvocation(id string, fn func(inv *view.Invocation, v *view.View)) (unsubscribe func()) {
	if fn == nil {
		panic("store: SubscribeInvocation with a nil function")
	}
	var last *view.Invocation
	return s.subscribe(func(v *view.View) {
		inv := v.Invocation(id)
		if inv == nil || inv == last {
			return
		}
		last = inv
		fn(inv, v)
	})
}

// Settle waits until every current subscriber has handled the latest view
// (called its function with it, or found nothing in it for that function),
// then returns nil. It returns ctx.Err() if ctx ends first and ErrClosed if
// the store is closed. Views published while Settle waits must be handled
// too. It must not be called from inside a subscriber's function, which would
// wait for itself.
func (s *Store) Settle(ctx context.Context) error {
	for {
		s.progressMu.Lock()
		if s.progress == nil {
			s.progress = make(chan struct{})
		}
		ch := s.progress
		s.progressMu.Unlock()
		select {
		case <-s.done:
			return ErrClosed
		default:
		}
		v := s.cur.Load()
		settled := true
		for _, sub := range *s.subs.Load() {
			if sub.handled.Load() != v && !sub.stopped.Load() {
				settled = false
				break
			}
		}
		if settled {
			return nil
		}
		// A subscriber behind the latest view signals progress once it has
		// caught up, after ch was taken.
		select {
		case <-ch:
		case <-s.done:
			return ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Wait returns the first view, the latest now or a later one, for which cond
// returns true. cond runs on the calling goroutine, with no lock held. Wait
// returns ctx.Err() if ctx ends first, and ErrClosed if the store is closed
// while the latest view does not satisfy cond; it returns the view it tried
// last in both cases.
func (s *Store) Wait(ctx context.Context, cond func(v *view.View) bool) (*view.View, error) {
	for {
		ch := s.Changed()
		v := s.cur.Load()
		if cond(v) {
			return v, nil
		}
		select {
		case <-ch:
		case <-s.done:
			// No view is published after Close; look at the last one once more.
			if v = s.cur.Load(); cond(v) {
				return v, nil
			}
			return v, ErrClosed
		case <-ctx.Done():
			return v, ctx.Err()
		}
	}
}

// Close stops every subscription and waits until every subscriber goroutine
// has returned (so it must not be called from a subscriber's function). A
// subscriber that has not yet handled the latest view may never see it: call
// Settle first when that matters. After Close the view no longer changes and
// Dispatch, Refuse and End return ErrClosed; View still returns the last view.
// Close is idempotent.
func (s *Store) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
	s.mu.Unlock()

	s.subsMu.Lock()
	s.subsClosed = true
	subs := *s.subs.Swap(new([]*subscriber))
	s.subsMu.Unlock()
	for _, sub := range subs {
		sub.stop()
	}
	s.wg.Wait()
}

// publish makes v the latest view and wakes everyone waiting for a change.
// The caller holds s.mu.
func (s *Store) publish(v *view.View) {
	if v == s.cur.Load() {
		return
	}
	s.cur.Store(v)
	s.changedMu.Lock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	s.changedMu.Unlock()
	for _, sub := range *s.subs.Load() {
		sub.ring()
	}
}

// subscriber is one subscription: a goroutine, woken through a one-slot
// doorbell, that hands the latest view to deliver.
type subscriber struct {
	bell    chan struct{} // capacity 1: a ring while one is pending is a no-op
	quit    chan struct{} // closed by stop
	once    sync.Once
	stopped atomic.Bool
	// handled is the latest view deliver has been given; Settle compares it
	// with the store's latest view.
	handled atomic.Pointer[view.View]
	// deliver filters and calls the user's function; only the subscriber's
	// goroutine calls it, so its state needs no lock.
	deliver func(v *view.View)
}

func (sub *subscriber) ring() {
	select {
	case sub.bell <- struct{}{}:
	default:
	}
}

func (sub *subscriber) stop() {
	sub.once.Do(func() {
		sub.stopped.Store(true)
		close(sub.quit)
	})
}

func (s *Store) subscribe(deliver func(v *view.View)) (unsubscribe func()) {
	sub := &subscriber{
		bell:    make(chan struct{}, 1),
		quit:    make(chan struct{}),
		deliver: deliver,
	}
	s.subsMu.Lock()
	if s.subsClosed {
		s.subsMu.Unlock()
		return func() {}
	}
	old := *s.subs.Load()
	subs := make([]*subscriber, len(old), len(old)+1)
	copy(subs, old)
	subs = append(subs, sub)
	s.subs.Store(&subs)
	s.wg.Add(1)
	s.subsMu.Unlock()

	sub.ring() // deliver the current view first
	go s.run(sub)
	return func() { s.unsubscribe(sub) }
}

func (s *Store) unsubscribe(sub *subscriber) {
	sub.stop()
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	old := *s.subs.Load()
	for i, x := range old {
		if x == sub {
			subs := make([]*subscriber, 0, len(old)-1)
			subs = append(subs, old[:i]...)
			subs = append(subs, old[i+1:]...)
			s.subs.Store(&subs)
			break
		}
	}
	s.signalProgress()
}

// run is a subscriber's goroutine.
func (s *Store) run(sub *subscriber) {
	defer s.wg.Done()
	for {
		select {
		case <-sub.quit:
			return
		case <-sub.bell:
		}
		// A publication after this load rings the (now empty) doorbell again,
		// so no view is missed for good; one before it is included.
		v := s.cur.Load()
		if sub.stopped.Load() {
			return
		}
		sub.deliver(v)
		sub.handled.Store(v)
		s.signalProgress()
	}
}

func (s *Store) signalProgress() {
	s.progressMu.Lock()
	if s.progress != nil {
		close(s.progress)
		s.progress = nil
	}
	s.progressMu.Unlock()
}

// fold runs reducer.Fold. Should the reducer panic, the event is refused
// with a *PanicError instead.
func fold(v *view.View, e event.Event) (*view.View, error) {
	var next *view.View
	var err error
	if perr := protect(v, e.EventType(), func() { next, err = reducer.Fold(v, e) }); perr != nil {
		next, _ = refuse(v, e.EventType(), perr)
		return next, perr
	}
	return next, err
}

// refuse runs reducer.Refuse. Should the reducer panic, v is returned
// unchanged with the *PanicError: nothing else can record the event.
func refuse(v *view.View, t event.Type, cause error) (*view.View, error) {
	var next *view.View
	if perr := protect(v, t, func() { next = reducer.Refuse(v, t, cause) }); perr != nil {
		return v, perr
	}
	return next, nil
}

// protect calls f and returns a *PanicError, for the event of type t about
// to be folded into v, if f panics.
func protect(v *view.View, t event.Type, f func()) (perr *PanicError) {
	defer func() {
		if r := recover(); r != nil {
			perr = &PanicError{Index: v.EventCount(), Type: t, Value: r, Stack: debug.Stack()}
		}
	}()
	f()
	return nil
}
