// Package store holds the one mutable thing in agview: the latest view of a
// stream. It serialises the events it is given through the reducer, publishes
// each resulting view, and tells subscribers about it without ever waiting for
// them.
//
// A Store starts from an empty view (or Options.Initial). Feed it with
// Input for the input of each run a client sends (its history, docs/protocol.md
// G15: package client does this), Dispatch for every decoded event, Refuse
// for every wire event that did not decode, and End when the stream is over:
//
//	s := store.New(nil)
//	defer s.Close()
//	unsubscribe := s.Subscribe(func(v *view.View) { render(v) })
//	defer unsubscribe()
//	var bad *event.DecodeError
//	var unknown *event.UnknownTypeError
//	for e, err := range events { // e.g. from package transport
//		switch {
//		case err == nil:
//			s.Dispatch(e) // a *reducer.Violation is recorded in the view, and returned
//		case errors.As(err, &bad) || errors.As(err, &unknown): // this event only
//			s.Refuse(err)
//		default: // the stream broke
//			s.End(err)
//			return
//		}
//	}
//	s.End(nil)
//
// The store re-implements no protocol rule: a refused event is refused by the
// reducer, which records it in the view's diagnostics; the store keeps going
// with the next event (docs/protocol.md G1). Whoever wants to stop at the first
// violation stops calling Dispatch.
//
// # Subscriptions
//
// Subscribe delivers views with latest-value semantics: each subscriber has
// its own goroutine, which sleeps on one broadcast channel shared by every
// subscriber (the channel Changed returns). A publication stores the view and
// rings the store's notifier without blocking; the notifier closes the
// channel, waking every sleeper at once, and a burst of publications made
// while it does so costs one more wake-up, not one per event. Dispatch
// therefore costs the same with one subscriber or ten thousand. When woken, a
// subscriber reads the latest view and calls its function with it. A slow
// subscriber therefore skips views it had no time for, but always sees a
// whole, immutable view, never an older view after a newer one, and never
// slows Dispatch down. A new subscriber is first called with the latest view
// as soon as its goroutine starts.
//
// SubscribeInvocation watches one subagent invocation: its function runs only
// when that invocation changed. The view shares an *view.Invocation between
// successive views while the invocation is unchanged, so "changed" is pointer
// inequality between the invocation last delivered and the latest one.
//
// Settle waits until every subscriber has caught up with the latest view, and
// Wait until the view satisfies a condition: tests and command-line tools use
// them instead of sleeping.
//
// # Hiding subagents
//
// StripSubagents and HideSubagents are deprecated forwarders to package
// transform (Strip, HideSubagents), where the stream transformers live:
// hiding subagents from a consumer older than subagent support is a filter
// on an event stream, not a store operation.
//
// # Concurrency
//
// Every method of Store is safe to call from any goroutine. Input, Dispatch,
// Refuse, End and Close are serialised by one mutex, under which only the reducer
// runs: no user code is ever called while it is held. View never locks: it
// loads the latest view from an atomic pointer, and a view, once published,
// is never written again, so it may be read by any number of goroutines.
//
// A subscriber's function runs on that subscriber's own goroutine, one call at
// a time, never concurrently with itself. It may call any method of the store
// except Close (which waits for that very goroutine) and Settle (which would
// wait for the call it is in); in particular it may call its own unsubscribe
// function. Unsubscribing is idempotent and never waits: once it returns no
// new call starts, though a call already under way on the subscriber's
// goroutine may still be running. Close stops every subscriber and waits until
// every goroutine the store started has returned, however long a subscriber's
// function takes; CloseContext closes the store just the same but stops
// waiting when its context ends, reporting the subscriber functions still
// running in a *CloseError (their goroutines return when the functions do).
package store
