// Package transform holds stream transformers: functions from a stream of
// AG-UI events to another, for a server that re-emits AG-UI to its own
// peers (a backend-for-frontend, a gateway, a proxy). A transformer takes
// and returns an iter.Seq2[event.Event, error], the shape every source of
// package transport yields; it never folds events into a view.
//
//	for e, err := range transform.SubagentVisibility(input)(src) {
//		… encode e for the peer, or report err …
//	}
//
// # Transformers
//
// ExpandChunks replaces the chunk shorthand (TEXT_MESSAGE_CHUNK,
// TOOL_CALL_CHUNK, REASONING_MESSAGE_CHUNK) by the explicit events it stands
// for, exactly as docs/protocol.md §4 says and package reducer folds it: one lane
// per owner, a chunk's lane found by its id, its tag, or the parent's or the
// sole open lane; START, CONTENT and END synthesized with the lane owner's
// tag. A chunk the rules refuse (no id on a stream's first chunk, a tag or
// opener field that disagrees with the open stream, an ambiguous id-less
// chunk) is yielded in its place as a *ChunkError, and the stream goes on.
//
// HideSubagents gives the stream a consumer older than subagent support
// can read (docs/protocol.md R28, the subagent module seed's (docs/protocol.md §5) SubagentVisibility transformer).
// Such a consumer fails to decode the three lifecycle events, and without
// attribution it can no longer keep concurrent invocations apart, so
// HideSubagents:
//
//   - expands chunks first (ExpandChunks): an id-less chunk finds its lane
//     by its tag, which is about to go, so two subagents streaming id-less
//     chunks at once would otherwise merge into each other's messages;
//   - keeps each owner's steps apart: a step whose name another owner has
//     open is renamed for the peer, "plan (subagent sa-1)", and its
//     STEP_FINISHED with it, so that the peer sees no step started twice or
//     finished by the wrong owner;
//   - removes every subagentRunId: from events, from the messages of
//     MESSAGES_SNAPSHOT and RUN_STARTED.input, and from interrupts;
//   - drops SUBAGENT_STARTED, and replaces SUBAGENT_FINISHED (when it carries
//     a result or an outcome) and SUBAGENT_ERROR by a CUSTOM event named
//     after it ("SUBAGENT_FINISHED", "SUBAGENT_ERROR") whose value is the
//     lifecycle event's members (the invocation's id, result, outcome or
//     error message and code) plus the invocation's "name" when it was
//     announced. CUSTOM is in every version of the protocol and is the
//     protocol's own place for producer-defined material: an old peer can
//     show it (an application renders custom events), and it changes
//     neither the message list the peer sends back with its next run nor the
//     run's state, as a text message or a state patch would. A successful
//     SUBAGENT_FINISHED with no result leaves no trace: the subagent's
//     messages already say what it did.
//
// SubagentVisibility gates HideSubagents on the protocol version the peer
// declares in the RunAgentInput it sent (protocolVersion), as the reference
// client strips subagent data for a peer pinned at or below 0.0.57: a peer
// that declares a version after 0.0.57 (the 1.0 release and later) gets the
// stream as it is; a peer that declares none, an older one or one that does
// not parse gets it hidden. SupportsSubagents says which.
//
// Strip is HideSubagents' per-event step, for a caller that has already
// expanded chunks and has no steps to keep apart.
//
// # Errors
//
// Errors of the source pass through in their place and end nothing: a
// transformer stops where its source stops. A *ChunkError stands where the
// chunk it could not expand stood.
//
// # Concurrency
//
// A transformer's result is an iterator with the contract of its source:
// single-use, consumed by one goroutine. Transformers keep their state in
// the iteration, so one function may serve any number of streams at once.
// They never modify the events they are given: an event that changes is
// copied first, and shares with the original what does not change.
package transform
