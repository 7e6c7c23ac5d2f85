// Package event is the AG-UI wire vocabulary: one Go type per event type of
// the 1.0 release (and the five deprecated THINKING_* types), the message,
// tool-call, interrupt, outcome and RunAgentInput data types, and strict
// decoding and encoding of their JSON.
//
// Work in progress: decoding and encoding are being written (issue 2).
//
// # Concurrency
//
// Events are plain values. Decoding allocates a fresh event that owns its
// bytes; an event may be read from any number of goroutines once built, and
// must not be written while others read it.
package event
