// Package eventtypes holds one test: that every event type the event
// package knows is handled by every stage that must handle it (the reducer,
// the view's JSON form, the terminal UI and the legacy-peer transformer).
// Adding an event type without a sample here, or without handling it in one
// of those stages, fails the test. CONTRIBUTING.md lists the steps.
package eventtypes
