// Package reducer verifies AG-UI events against the protocol's rules and
// folds them into immutable views (package view).
//
//	v := view.New()
//	for e := range events {
//		next, err := reducer.Fold(v, e) // err is a *reducer.Violation or nil
//		v = next
//	}
//	v = reducer.End(v, streamErr)
//
// [Reduce] is the pure step: given a view and the next event it returns the
// next view, or, when the event breaks a rule, the same view and a
// [*Violation] naming the rule (the ids of docs/protocol.md: V1–V14 for the
// reference verifier, R5–R19 for the subagent rules, A1 for "one id, one
// message", G9 for chunk shorthand), the event's index and type, and the ids
// involved. A refused event is refused alone (G1): everything folded before
// it stays. [Fold] is Reduce for consumers that keep going after a
// violation: it records the violation in the view's diagnostics and counts
// the event. [Refuse] records an event that did not decode, and [End] the end
// of the stream (finished, cancelled, or broken).
//
// A [Builder] folds like Fold, FoldJSON, Refuse and End, for consumers that
// need a view only now and then (after a burst of events, once per frame,
// at the end of a file): between two calls of its View method it changes in
// place what no view it handed out can reach, so a run of streamed deltas
// copies nothing but the streamed bytes.
//
// # What is verified and folded
//
// The reducer does what the reference TypeScript client (@ag-ui/client 1.0)
// does between decoding and its message list — chunk expansion (§4), the
// stream verifier (§6.2), the subagent rules (§5) and the default apply
// (§7) — with the decisions of docs/protocol.md §9 where agview differs:
//
//   - Runs: the first event is RUN_STARTED or RUN_ERROR; after RUN_FINISHED
//     only RUN_STARTED or RUN_ERROR (a RUN_ERROR there leaves the finished
//     run as it was and is recorded as a V2 warning); after RUN_ERROR only
//     RUN_STARTED; several runs per stream; per-run bookkeeping resets at
//     RUN_STARTED.
//   - Entities: text messages, tool calls, reasoning messages and spans and
//     steps must be started before being continued or ended, and may not be
//     started twice while open; RUN_FINISHED needs everything closed,
//     subagents included (V14, R10). RUN_ERROR, a broken transport and a
//     cancelled stream abandon whatever is open (G11), what chunk streams
//     were streaming included; an invocation seen only through attribution
//     reads abandoned when it had something open then.
//   - Ownership: every entity has an owner (the parent agent or a subagent
//     invocation), kept for the whole stream (G6): a continuation or second
//     opener carrying another owner's subagentRunId is refused (R15, R16); an
//     untagged one agrees. A tool call belongs to the message holding it
//     (R18); replayed history (MESSAGES_SNAPSHOT, RUN_STARTED.input) sets
//     owners (R25); tool results and replacing activity snapshots re-own
//     (R26, R27). One id names one message of one kind (A1). A
//     MESSAGES_SNAPSHOT re-owns what it restates, open entities included,
//     and keeps what it cannot say about a tool call it restates (the
//     subagents it spawned, its result); a tool message in history answers
//     the call it names.
//   - Subagents: lifecycle rules R5, R7–R9, R14, R19; a suspended invocation
//     continues under the same id in a later run (G10), its old outcome and
//     result cleared, announced again or continued by attributed events
//     alone (then the run's end settles it: finished, suspended again when
//     one of the run's interrupts is its own, or abandoned); events
//     attributed to an invocation never announced are accepted (R11) with
//     an R12 warning; steps are per owner (R17); a subagent's state events
//     change the one run state (R22).
//   - Chunks: TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK and REASONING_MESSAGE_CHUNK
//     expand into START/CONTENT/END per owner lane exactly as §4 says (G9);
//     the expanded events are verified like explicit ones. A chunk stream
//     whose entity an untagged explicit END ended goes stale: the first
//     event that closes or continues it is refused, as by the reference,
//     and Fold drops the stream with that refusal, so it refuses one event,
//     never every later one (RUN_ERROR, accepted at any time, drops it with
//     a warning).
//   - The deprecated THINKING_* events are translated to REASONING_* with a
//     message id minted from the event index ("agview-thinking-12"), so that
//     folding stays deterministic; a THINKING_* event's subagentRunId goes to
//     its translation and is verified like any tag (G22).
//   - Warnings, not violations: an unknown event type (Refuse with an
//     *event.UnknownTypeError), an empty frame (event.ErrEmpty, G18), a
//     STATE_DELTA or ACTIVITY_DELTA that cannot be applied (skipped whole,
//     G8), an unknown patch operation (removed, G2), decoding warnings an
//     event carries (unknown members, G20), a stream that ends mid-run (G12)
//     or ends not as its format says (G18), a reused invocation id (G10), a
//     RUN_ERROR after RUN_FINISHED (V2), a stale chunk stream RUN_ERROR
//     discards (G9), an untagged chunk sent to the sole open subagent lane
//     (G9), an activity re-owned by a replacing snapshot (G17), a subagent
//     never announced (R12).
//   - Where the reference is right by agview's own rules (G8, G16): a failed
//     ACTIVITY_DELTA keeps activityType; reopening a message keeps it as it
//     is; R18 counts only the owners the reference records (a call naming an
//     activity or reasoning message as parent goes to a new assistant
//     message with the call's owner); a text delta into content parts
//     replaces them.
//
// # Cost
//
// Folding an event costs O(size of the event): views share everything
// unchanged through persistent collections, streamed text is appended in
// place to one growing buffer per message (amortised O(1) per byte), and
// nothing is copied wholesale. The exceptions are MESSAGES_SNAPSHOT
// (O(snapshot + messages)), the run terminals and End (O(what is still
// open)), and a TOOL_CALL_RESULT, which walks past the tool messages that
// follow the last result inserted after the call's message (none, unless
// history put some there). A streamed delta into a tool call costs O(log
// calls its message holds). On the shared benchmark workloads a streamed
// text delta folded with Reduce costs three small allocations (the view,
// the changed invocation node and its hot group); read by FoldJSON from its
// wire bytes it allocates no event and no string (the ids are only looked
// up), and folded by a Builder it allocates nothing but room for its text.
//
// # Concurrency
//
// Reduce, Fold, Refuse, End and FoldJSON are pure functions: they never
// modify the view or the event they are given and keep no state of their
// own, so any number of goroutines may call them, on the same view or on
// different ones. (The only memory they write that an earlier view can
// reach is spare room no view can see yet, such as the free part of a text
// buffer or of the message index's table, claimed atomically by one fold,
// and the Bloom filter of that index, which only ever gains bits,
// atomically: an earlier view then walks its index for a few more absent
// keys, and reads the same.) A
// view they return may be read by any number of goroutines while the next
// one is built. The events must not be modified while they are being
// folded; the view keeps copies of what it needs. A Builder belongs to one
// goroutine at a time; the views it hands out are as immutable as any
// other.
package reducer
