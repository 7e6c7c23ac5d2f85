// Package view is agview's immutable view model: everything folded from an
// AG-UI event stream, read through methods. Package reducer builds views;
// package view only reads them.
//
// A [View] answers:
//
//   - [View.Runs]: each run of the stream in order, with its thread and run
//     ids, status (running, finished, errored, interrupted, incomplete,
//     cancelled, failed), outcome, result, error and interrupts (each
//     carrying the subagent that raised it), and the token usage it reported
//     ([Run.Usage], summed by [Run.Tokens]).
//   - [View.Thread]: the conversation's thread, from the run input a client
//     folded before its run (reducer.Input, docs/protocol.md G15).
//   - The invocation tree: [View.Root] is the parent agent, [View.Invocation]
//     finds a subagent invocation by id and [View.Invocations] lists them in
//     the order they were first seen. Each [Invocation] has its id, name
//     (falling back to the id), description, parent invocation, the tool
//     call and message that spawned it, status (running, finished,
//     suspended, errored, abandoned, unannounced), outcome, result, error,
//     children in start order, and its own messages, tool calls (arguments,
//     result, the subagents each spawned), steps, reasoning and activity.
//   - [View.Messages]: the flat AG-UI message list exactly as the reference
//     client (@ag-ui/client 1.0) builds it, each message carrying its
//     subagentRunId: first the history the client sent (the run input's
//     messages), then what the streams did to it; this is what the next
//     RunAgentInput.messages sends back.
//   - [View.State]: the one run-scoped JSON document. A subagent's
//     STATE_SNAPSHOT or STATE_DELTA changes it exactly as the parent's does;
//     who changed it last is provenance only ([View.StateChangedBy]).
//   - [View.PendingInterrupts]: the interrupts awaiting an answer.
//   - [View.Diagnostics]: the refused events (a violation, with its rule id)
//     and the warnings (an unknown event type, a patch that could not be
//     applied, a tolerated decoding quirk, a stream that ended mid-run): the
//     first 1,000 and the last 1,000 of a stream; [View.DiagnosticsOmitted]
//     counts those between, which a view does not keep, so that a stream
//     refused event after event holds a view of bounded size.
//     [View.ViolationCount] counts every violation, omitted ones included.
//
// # JSON form
//
// [View.MarshalJSON] writes one JSON object with these keys, always present
// (but diagnosticsOmitted) and always in this order ([View.WriteJSON] writes the same bytes to an
// io.Writer as it goes, for a view too large to hold twice); agview replay
// --json prints it and golden tests compare it, so it is stable. Strings are
// written exactly as they came (docs/protocol.md G19): a lone surrogate as its
// escape ("k\ud800", never "k\ufffd"), a surrogate pair that arrived split
// across two deltas as its one character.
//
//	{
//	  "events": 12,                    // wire events seen (folded, refused or skipped)
//	  "messages": [ … ],               // AG-UI Message objects exactly as AG-UI serialises them
//	  "state": { … },                  // the run-scoped document (any JSON value)
//	  "pendingInterrupts": [ … ],      // AG-UI Interrupt objects
//	  "runs": [                        // in stream order
//	    {"threadId": "th1", "runId": "r1", "status": "finished",
//	     "outcome": null, "result": null, "error": null,
//	     "usage": [{"model": "m", "inputTokens": 12, "outputTokens": 30, "totalTokens": 42}]}
//	  ],
//	  "invocations": [                 // subagents only, flat, in first-seen order
//	    {"subagentRunId": "sa1", "run": 0, "name": "researcher", "description": null,
//	     "status": "finished", "parentSubagentRunId": null,
//	     "parentToolCallId": "tc1", "parentMessageId": null,
//	     "children": ["sa2"], "messageIds": ["m2"], "toolCallIds": ["tc2"],
//	     "steps": [{"name": "search", "status": "closed"}],
//	     "outcome": null, "result": null, "error": null}
//	  ],
//	  "diagnostics": [                 // the first 1,000 and the last 1,000
//	    {"index": 7, "kind": "violation", "rule": "R15", "type": "TEXT_MESSAGE_CONTENT",
//	     "message": "…"}
//	  ],
//	  "diagnosticsOmitted": 4000       // only when some were omitted (View.DiagnosticsOmitted)
//	}
//
// Run status is one of running, finished, errored, interrupted, incomplete,
// cancelled, failed; outcome is the RUN_FINISHED outcome as sent (null when
// absent), result its result, error {"message", "code"} from RUN_ERROR or the
// transport; usage is the AG-UI TokenUsage list exactly as RUN_FINISHED (or,
// for an errored run, RUN_ERROR) sent it, and is the one key written only
// when present: a run that reported no usage has no usage key; the other is
// diagnosticsOmitted, the number of diagnostics between the first 1,000 and
// the last 1,000, which the diagnostics list leaves out, written after it
// only when it is not 0. An
// invocation's status is one of running, finished, suspended, errored,
// abandoned, unannounced; name is the announced name or, for an invocation
// seen only through attribution, its id; outcome is the
// SUBAGENT_FINISHED outcome as sent (cleared when a later run continues a
// suspended invocation); error is {"message", "code"} from SUBAGENT_ERROR.
// run is the index in runs of the run in which the invocation was first
// seen ([Invocation.RunIndex]), -1 for a subagent known only from history a
// client sent before the first run. An id names one invocation per run, but a
// later run may reuse an id for a new invocation (docs/protocol.md G10): two
// entries then share a subagentRunId and differ in run. children lists the
// ids of the invocations this one spawned, in start order; when an id
// repeats there, its occurrences refer, in order, to the invocations with
// that id whose parent this one is, as they appear in invocations (their
// run tells them apart). A
// step's status is open, closed or abandoned. Keys may be added in later
// versions; none will be removed or renamed.
//
// # Identity and versions
//
// An *Invocation is shared between successive views for as long as nothing
// about it changes: v1.Invocation(id) == v2.Invocation(id) means the
// invocation, its messages, tool calls, steps, reasoning and activity are the
// same in both. Anything that changes one of them (a delta streamed into one
// of its messages, a step, its status) makes a new *Invocation with a larger
// [Invocation.Version]. Subscribers that render one pane per invocation
// compare pointers to skip unchanged panes.
//
// # Immutability
//
// A View and everything reachable from it never change after the reducer
// returns it. Getters that return slices, maps or raw JSON return fresh
// copies the caller may modify. Building the next view costs O(size of the
// event): the next view shares everything unchanged with this one.
//
// # Concurrency
//
// Views are immutable values: any number of goroutines may read the same
// view, including while the reducer builds the next one, without locks.
// Reading never writes: streamed text is held ready to read.
package view
