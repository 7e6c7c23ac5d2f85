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
	// asks for it, so that a store nobody waits on allocates nothing. It is
	// the one broadcast every subscriber and every Wait sleeps on: a
	// publication closes at most one channel, whatever the number of
	// sleepers.
	changed atomic.Pointer[chan struct{}]

	// fanout is set once the store has a subscriber: from then on the
	// notifier goroutine closes changed, so that Dispatch never pays for
	// waking the subscribers. bell is its one-slot doorbell.
	fanout atomic.Bool
	bell   chan struct{}
	notify sync.Once

	// subsMu guards subsClosed and every replacement of subs; Dispatch reads
	// subs without locking.
	subsMu     sync.Mutex
	subsClosed bool
	subs       atomic.Pointer[[]*subscriber] // copy on write
	wg         sync.WaitGroup                // one per goroutine the store started
	inFn       atomic.Int64                  // subscriber goroutines in (or entering) their function

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
	s := &Store{done: make(chan struct{}), bell: make(chan struct{}, 1)}
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
	for {
		if p := s.changed.Load(); p != nil {
			return *p
		}
		ch := make(chan struct{})
		if s.changed.CompareAndSwap(nil, &ch) {
			return ch
		}
	}
}

// broadcast closes the channel Changed handed out, if any, waking everyone
// who sleeps on it.
func (s *Store) broadcast() {
	if p := s.changed.Swap(nil); p != nil {
		close(*p)
	}
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

// InputAfter folds the input of a run whose history is the first held
// messages the view holds (activity left out) followed by in.Messages, as
// reducer.InputAfter does (a journal's input record, package client). It
// returns what Input returns, and reducer.InputAfter's *reducer.InputError.
func (s *Store) InputAfter(held int, lastID string, in *event.RunAgentInput) error {
	return s.apply(func(cur *view.View) (*view.View, error) { return reducer.InputAfter(cur, held, lastID, in) })
}

// End records the end of the stream (reducer.End): cause nil means the stream
// ended; an error matching io.EOF means it ended cleanly, though not as its
// format says (recorded as a warning, docs/protocol.md G18); a context error means
// it was cancelled; any other error means the transport broke, which fails
// the open run and abandons its open invocations. It returns ErrClosed after Close, a *PanicError if the reducer
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
//
// Close waits for as long as a subscriber's function runs: a function that
// blocks forever blocks Close forever. Use CloseContext to bound the wait.
func (s *Store) Close() { _ = s.CloseContext(context.Background()) }

// CloseContext is Close with a bound on the wait: it closes the store at
// once (Dispatch, Refuse and End return ErrClosed, no subscriber function is
// called again) and then waits for the subscriber functions under way to
// return, until ctx ends. It returns nil when every goroutine the store
// started has returned, else a *CloseError wrapping ctx's error and saying
// how many subscriber functions were still running; those goroutines return
// as soon as their function does, with nothing left for anyone to wait for.
// CloseContext may be called again, e.g. with a longer deadline; like Close,
// it must not be called from a subscriber's function.
func (s *Store) CloseContext(ctx context.Context) error {
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
	s.ringNotifier() // the notifier sees done and returns

	waited := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(waited)
	}()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
	}
	// A goroutine counts itself before it checks whether it was stopped:
	// when none is counted now, none will call its function again, and the
	// rest return at once.
	busy := s.inFn.Load()
	if busy == 0 {
		<-waited
		return nil
	}
	return &CloseError{Running: busy, Err: context.Cause(ctx)}
}

// CloseError is returned by CloseContext when its context ended while
// subscriber functions were still running.
type CloseError struct {
	// Running is how many subscriber functions had not returned.
	Running int64
	// Err is the context's error (its cause, when it has one).
	Err error
}

// Error says how many subscribers were still running and why CloseContext
// stopped waiting.
func (e *CloseError) Error() string {
	return fmt.Sprintf("store: closed, but %d subscriber functions were still running: %v", e.Running, e.Err)
}

// Unwrap returns the context's error, so that errors.Is(err,
// context.DeadlineExceeded) holds.
func (e *CloseError) Unwrap() error { return e.Err }

// publish makes v the latest view and wakes everyone waiting for a change.
// The caller holds s.mu.
func (s *Store) publish(v *view.View) {
	if v == s.cur.Load() {
		return
	}
	s.cur.Store(v)
	if s.fanout.Load() {
		// Waking the sleepers is the notifier's work: one non-blocking send
		// here, whatever their number.
		s.ringNotifier()
		return
	}
	s.broadcast()
}

func (s *Store) ringNotifier() {
	select {
	case s.bell <- struct{}{}:
	default:
	}
}

// notifier wakes the sleepers after each publication: it closes the
// broadcast channel. Publications made while it does so ring its doorbell
// once, so a burst of events costs one wake-up of every subscriber, not one
// per event.
func (s *Store) notifier() {
	defer s.wg.Done()
	for {
		select {
		case <-s.bell:
		case <-s.done:
			return
		}
		s.broadcast()
	}
}

// subscriber is one subscription: a goroutine that sleeps on the store's
// broadcast channel (Changed) and hands the latest view to deliver.
type subscriber struct {
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

func (sub *subscriber) stop() {
	sub.once.Do(func() {
		sub.stopped.Store(true)
		close(sub.quit)
	})
}

func (s *Store) subscribe(deliver func(v *view.View)) (unsubscribe func()) {
	sub := &subscriber{
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
	s.notify.Do(func() {
		s.wg.Add(1)
		go s.notifier()
		s.fanout.Store(true)
	})
	s.subsMu.Unlock()

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

// run is a subscriber's goroutine. It delivers the current view first,
// then sleeps on the broadcast channel until the next publication.
func (s *Store) run(sub *subscriber) {
	defer s.wg.Done()
	for {
		// The channel is taken before the view is loaded: a publication
		// after the load closes it, so no view is missed for good; one
		// before it is included.
		ch := s.Changed()
		v := s.cur.Load()
		s.inFn.Add(1)
		if sub.stopped.Load() {
			s.inFn.Add(-1)
			return
		}
		if v != sub.handled.Load() {
			sub.deliver(v)
			sub.handled.Store(v)
			s.signalProgress()
		}
		s.inFn.Add(-1)
		select {
		case <-sub.quit:
			return
		case <-ch:
		}
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
