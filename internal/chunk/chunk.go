// Package chunk holds what the two expansions of the chunk shorthand
// (docs/protocol.md §4) share: the reducer's, which folds chunks into a view,
// and package transform's, which turns them into explicit events.
//
// # Concurrency
//
// Its functions are pure.
package chunk

import "github.com/agview/agview/event"

// Delta reports whether a chunk emits a CONTENT/ARGS event, and the delta it
// carries: when the chunk carries a delta or a rawEvent, or opened nothing
// (opened false) and carries metadata that must land somewhere.
func Delta(delta *string, b *event.Base, opened bool) (string, bool) {
	switch {
	case delta != nil:
		return *delta, true
	case b.RawEvent != nil:
		return "", true
	case !opened && b.Metadata != nil:
		return "", true
	}
	return "", false
}
