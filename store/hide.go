package store

import (
	"iter"

	"github.com/agview/agview/event"
	"github.com/agview/agview/transform"
)

// HideSubagents returns seq as a consumer older than subagent support must
// see it.
//
// Deprecated: HideSubagents is an event-stream filter, not a store
// operation: use transform.HideSubagents, which this calls, or
// transform.SubagentVisibility to decide from the peer's declared protocol
// version.
func HideSubagents(seq iter.Seq2[event.Event, error]) iter.Seq2[event.Event, error] {
	return transform.HideSubagents(seq)
}

// StripSubagents returns e without any subagent information, and whether
// to keep it.
//
// Deprecated: use transform.Strip, which this calls. A stream needs
// transform.HideSubagents, which also expands chunks and keeps each owner's
// steps apart before stripping.
func StripSubagents(e event.Event) (event.Event, bool) { return transform.Strip(e) }
