// Package model is the data behind a view.View: every value the view answers
// from and every piece of verifier bookkeeping the reducer needs (open
// entities, owners, chunk lanes, steps, runs), held in persistent collections
// so that folding an event copies only the paths it changes.
//
// Package view defines View and Invocation as defined types of the View and
// Inv types here, so that the reducer (which imports both) can convert a
// *view.View to a *model.View and build the next one, while users of package
// view see only its read methods: the methods declared here are not part of
// the defined types' method sets, and the single field of View and Inv is
// unexported.
//
// # Where things are
//
// Read the files in this order: domain.go is what a view is made of (runs,
// invocations, messages, tool calls, steps, diagnostics); bookkeeping.go is
// what the reducer remembers to check the rules (owners, where each message
// lives, what is open in the current run), and callbook.go the same for
// tool calls (owners, which message holds each call); state.go ties them into a State
// and holds the read methods; hot.go keeps a streamed fold cheap (hot
// groups, a node's hot message), which nothing else needs to know about.
//
// # Immutability
//
// A State reachable from a published View is never written again. The
// reducer copies the State struct (eight words), replaces the persistent
// collections it changes with updated versions and publishes a new View. Msg,
// Call, InvData and Run values reachable from a published View are likewise
// never written: they are copied, changed and stored anew.
//
// # Cost of a streamed delta
//
// The event that dominates real streams, a text delta into a subagent's open
// message, makes three small objects: the view, the changed invocation node
// (one cache line, with the message's streamed text on top of its stored
// version: see InvData) and the node's hot group. The text itself is appended in place to a shared buffer
// (persist.Text), and no message, vector path or map path is copied.
//
// # Concurrency
//
// Values are immutable once published, so any number of goroutines may read
// them without locks. The reducer may fold from one view in several
// goroutines at once.
package model
