// Package rules is the table of the protocol rules agview checks: each rule
// id that "agview verify" prints (R1–R28 for subagents, V1–V17 for the
// stream, A1, E1–E4 for the schema, and the G decisions used as rule ids),
// what it says, a stream that breaks it, and how a producer fixes it.
// "agview explain" prints it and docs/rules.md is generated from it.
package rules

// Rule is one rule of the protocol as agview checks it.
type Rule struct {
	// ID is the rule id diagnostics carry, e.g. "R15".
	ID string
	// Title says the rule in a line.
	Title string
	// Text explains it in one paragraph.
	Text string
	// Example is a stream (one JSON event per line) whose last event shows
	// the rule at work: it breaks the rule, or, for a rule that accepts, is
	// accepted as the rule says.
	Example []string
	// Accepts marks a rule that describes what is accepted (nothing is
	// printed for it, or only a warning under another id).
	Accepts bool
	// Fix says what a producer does about it.
	Fix string
	// ReportedAs is the id a violation of this rule is reported under, when
	// not its own (history ownership, R25, is enforced by R15/R16).
	ReportedAs string
	// End says how the example's stream ends: "" when the last event is
	// what matters, "eof" when the stream simply ends there, "broken" when
	// the transport breaks there.
	End string
}

const (
	started  = `{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`
	finished = `{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`
	sub1     = `{"type":"SUBAGENT_STARTED","subagentRunId":"sub-1","name":"researcher"}`
)

// All returns every rule, in the order of their ids (R, V, A, E, G).
func All() []Rule { return table }

// Lookup returns the rule with id (case-insensitive), if there is one.
func Lookup(id string) (Rule, bool) {
	for _, r := range table {
		if equalFold(r.ID, id) {
			return r, true
		}
	}
	return Rule{}, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

var table = []Rule{
	{ID: "R1", Title: "subagentRunId is never null",
		Text:    "An absent subagentRunId means the parent agent. The field is optional: a producer leaves it out, it never spells it null — not on an event, not on a message in a MESSAGES_SNAPSHOT or RUN_STARTED.input, not on an interrupt or a message of the history a client sends.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":null}`},
		Fix:     "Omit the key for the parent agent's events; serialisers that write null for a missing optional (pydantic, serde) need `exclude_none`/`skip_serializing_if`."},
	{ID: "R2", Title: "Only attributable events carry a tag", Accepts: true,
		Text:    "Only the 24 attributable event types carry subagentRunId. A tag on a step, CUSTOM, RAW or state event is provenance only: the state is one run-scoped document whoever sends the delta (R22). A tag on RUN_STARTED, RUN_FINISHED, RUN_ERROR or MESSAGES_SNAPSHOT is dropped with a warning (G3).",
		Example: []string{started, `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/n","value":1}],"subagentRunId":"sub-1"}`},
		Fix:     "Nothing to fix for state and steps; leave the tag off run-scoped events."},
	{ID: "R3", Title: "Lifecycle events carry their required fields",
		Text:    "SUBAGENT_STARTED, SUBAGENT_FINISHED and SUBAGENT_ERROR identify an invocation: each carries subagentRunId (a string); SUBAGENT_STARTED carries name; SUBAGENT_ERROR carries message.",
		Example: []string{started, `{"type":"SUBAGENT_STARTED","name":"researcher"}`},
		Fix:     "Send the invocation's id on every lifecycle event, its name on SUBAGENT_STARTED and a message on SUBAGENT_ERROR."},
	{ID: "R4", Title: "Optional lifecycle fields are never null",
		Text:    "The optional fields of the lifecycle events (description, parentSubagentRunId, parentToolCallId, parentMessageId, outcome, code, outcome.interruptIds) are left out when absent, never null; interruptIds holds strings.",
		Example: []string{started, sub1, `{"type":"SUBAGENT_ERROR","subagentRunId":"sub-1","message":"boom","code":null}`},
		Fix:     "Omit an optional field that has no value."},
	{ID: "R5", Title: "An id names one invocation per run",
		Text:    "Within a run, a subagentRunId that finished or errored cannot be announced again: ids are per invocation. (A suspended invocation may continue under its id in a later run, R6.)",
		Example: []string{started, sub1, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sub-1"}`, sub1},
		Fix:     "Mint a new id for each invocation; reuse an id only to continue a suspended invocation in a later run."},
	{ID: "R6", Title: "A suspended invocation continues in a later run", Accepts: true,
		Text: "An id that ended suspended may reappear in a later run: its SUBAGENT_STARTED continues the same invocation (suspended → running), in the same place of the tree. Reusing an id that finished, errored or was abandoned in an earlier run starts a new invocation, with a warning (G10).",
		Example: []string{started, sub1, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sub-1","outcome":{"type":"suspended"}}`, finished,
			`{"type":"RUN_STARTED","threadId":"t1","runId":"r2"}`, sub1},
		Fix: "Nothing to fix: this is how a suspended subagent resumes."},
	{ID: "R7", Title: "Announce before attributing",
		Text: "A producer announces an invocation with SUBAGENT_STARTED before any event attributed to it. A SUBAGENT_STARTED for an id that already has attributed events in this run is rejected (docs/protocol.md §5.1; the reference client does not check it). Attribution with no lifecycle events at all stays valid (R11).",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":"sub-1"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`, sub1},
		Fix: "Send SUBAGENT_STARTED first, or never send it for that id."},
	{ID: "R8", Title: "An active id is not announced again",
		Text:    "A SUBAGENT_STARTED for an id that is already running is rejected: finish it first.",
		Example: []string{started, sub1, sub1},
		Fix:     "Close the invocation with SUBAGENT_FINISHED or SUBAGENT_ERROR before announcing the id again, or mint a new id."},
	{ID: "R9", Title: "SUBAGENT_FINISHED and SUBAGENT_ERROR name an active invocation",
		Text:    "A terminal lifecycle event must name an invocation that was announced in this run and is still active.",
		Example: []string{started, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sub-9"}`},
		Fix:     "Send SUBAGENT_STARTED first; send one terminal event per invocation."},
	{ID: "R10", Title: "Every invocation closes before RUN_FINISHED",
		Text:    "RUN_FINISHED is rejected while an announced invocation is still active (RUN_ERROR is not: it abandons them, R23).",
		Example: []string{started, sub1, finished},
		Fix:     "Send SUBAGENT_FINISHED (or SUBAGENT_ERROR) for every invocation before RUN_FINISHED."},
	{ID: "R11", Title: "Attribution without lifecycle events is valid", Accepts: true,
		Text:    "A producer may tag events with ids it never announces: the consumer groups them by id, shown as unannounced invocations named after their id. verify warns that the id was never announced.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":"sub-7"}`},
		Fix:     "Nothing to fix; announcing (R12) gives the invocation a name and a status."},
	{ID: "R12", Title: "A producer that can report the lifecycle does so",
		Text:    "SHOULD: send SUBAGENT_STARTED/FINISHED/ERROR when the producer knows them, so that consumers can show names, nesting and statuses. Events attributed to an invocation that was never announced are accepted (R11) with a warning, once per invocation and run.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sub-1"}`},
		Fix:     "Emit the lifecycle events."},
	{ID: "R13", Title: "SUBAGENT_ERROR ends the invocation, not the run", Accepts: true,
		Text:    "An errored invocation is marked errored; the run goes on and the parent may continue and finish it.",
		Example: []string{started, sub1, `{"type":"SUBAGENT_ERROR","subagentRunId":"sub-1","message":"search failed"}`, finished},
		Fix:     "Nothing to fix."},
	{ID: "R14", Title: "A SUBAGENT_FINISHED outcome is success or suspended",
		Text:    `The outcome of SUBAGENT_FINISHED is {"type":"success"} (or absent, which means success) or {"type":"suspended","interruptIds":[…]}. Any other outcome, or interruptIds on a success outcome, is rejected (docs/protocol.md §5.1; the reference strips it and reads success).`,
		Example: []string{started, sub1, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sub-1","outcome":{"type":"cancelled"}}`},
		Fix:     "Report a failure with SUBAGENT_ERROR, a pause with the suspended outcome."},
	{ID: "R15", Title: "A continuation agrees with its opener's owner",
		Text: "A continuation (TEXT_MESSAGE_CONTENT/END, TOOL_CALL_ARGS/END, REASONING_* continuations, ACTIVITY_DELTA, REASONING_ENCRYPTED_VALUE) tagged with another subagent than the one that opened its entity is rejected: one producer's content never lands in another's. An untagged continuation always agrees.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":"sub-1"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi","subagentRunId":"sub-2"}`},
		Fix: "Tag continuations with the opener's subagentRunId, or leave them untagged; give each subagent its own message and tool call ids."},
	{ID: "R16", Title: "Owners are kept: a reopen under another owner is rejected",
		Text: "The owner of a message, tool call or reasoning id is kept for the whole stream, also after it closes (first writer wins). A second opener for that id tagged with another owner is rejected; an untagged reopen keeps the original owner.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":"sub-1"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":"sub-2"}`},
		Fix: "Mint message and tool call ids per invocation (prefix them with the subagent's id)."},
	{ID: "R17", Title: "A step is finished by whoever started it",
		Text: "Steps are keyed by owner and name: the parent and a subagent may each have a step of the same name open. STEP_FINISHED carries the same attribution as its STEP_STARTED; here untagged means the parent, not \"inherit\".",
		Example: []string{started, sub1, `{"type":"STEP_STARTED","stepName":"search","subagentRunId":"sub-1"}`,
			`{"type":"STEP_FINISHED","stepName":"search"}`},
		Fix: "Tag STEP_FINISHED exactly as its STEP_STARTED."},
	{ID: "R18", Title: "A tool call belongs to its message's owner",
		Text: "A tool call whose parentMessageId names a message with a recorded owner (opened by TEXT_MESSAGE_START, a tool result, or from history) must have that owner; an untagged call inherits it. An assistant message created by a tool call, an activity or a reasoning message records no owner for this rule.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":"sub-1"}`,
			`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"search","parentMessageId":"m1","subagentRunId":"sub-2"}`},
		Fix: "Put a subagent's tool calls on its own messages."},
	{ID: "R19", Title: "parentSubagentRunId names an invocation started in this run",
		Text:    "A nested invocation names its parent with parentSubagentRunId; the parent must have been announced in this run (it may have finished already). Naming an unknown id, an id only seen as a tag, or itself is rejected.",
		Example: []string{started, `{"type":"SUBAGENT_STARTED","subagentRunId":"sub-2","name":"fact-checker","parentSubagentRunId":"sub-9"}`},
		Fix:     "Announce the parent first, or leave parentSubagentRunId out for a child of the parent agent."},
	{ID: "R20", Title: "Invocations interleave", Accepts: true,
		Text: "Invocations run in parallel and their events interleave; a consumer tracks entities per invocation and never closes one invocation's entities because another ended.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant","subagentRunId":"sub-1"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"b","role":"assistant","subagentRunId":"sub-2"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"one"}`},
		Fix: "Nothing to fix."},
	{ID: "R21", Title: "Late continuations are accepted", Accepts: true,
		Text: "Events attributed to an invocation that already finished are accepted (a message it opened may close after it).",
		Example: []string{started, sub1, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":"sub-1"}`,
			`{"type":"SUBAGENT_FINISHED","subagentRunId":"sub-1"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m1","subagentRunId":"sub-1"}`},
		Fix: "Nothing to fix, though closing entities before SUBAGENT_FINISHED reads better."},
	{ID: "R22", Title: "State is one run-scoped document", Accepts: true,
		Text:    "STATE_SNAPSHOT and STATE_DELTA change the one state document of the run whoever sends them; a tag is provenance, never a per-subagent state.",
		Example: []string{started, `{"type":"STATE_SNAPSHOT","snapshot":{"n":1},"subagentRunId":"sub-1"}`},
		Fix:     "Nothing to fix; keep per-subagent data under keys of your own in the one document."},
	{ID: "R23", Title: "RUN_ERROR ends everything", Accepts: true,
		Text:    "RUN_ERROR abandons every open invocation, message, tool call and step; no closing events are expected, and nothing but RUN_STARTED may follow (V3).",
		Example: []string{started, sub1, `{"type":"RUN_ERROR","message":"model unavailable"}`},
		Fix:     "Nothing to fix."},
	{ID: "R24", Title: "Interrupts may be attributed", Accepts: true,
		Text: "Interrupts in a RUN_FINISHED interrupt outcome may carry subagentRunId (raised inside that invocation; absent = the parent). A suspended SUBAGENT_FINISHED may list no interruptIds (an ancestor suspended by a descendant).",
		Example: []string{started, sub1, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sub-1","outcome":{"type":"suspended","interruptIds":["i1"]}}`,
			`{"type":"RUN_FINISHED","threadId":"t1","runId":"r1","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"approval","subagentRunId":"sub-1"}]}}`},
		Fix: "Nothing to fix."},
	{ID: "R25", Title: "History establishes ownership",
		Text:       "Each message of a MESSAGES_SNAPSHOT (authoritative: it overwrites recorded owners) and of RUN_STARTED.input.messages or the history a client sends (it only seeds ids not yet recorded) is owned by its tag; its tool calls inherit it. Later openers and continuations that disagree are rejected, reported as R16 (an opener) or R15 (a continuation).",
		ReportedAs: "R16",
		Example: []string{started, `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"assistant","content":"hi","subagentRunId":"sub-1"}]}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","subagentRunId":"sub-2"}`},
		Fix: "Reopen a history message only under its owner."},
	{ID: "R26", Title: "A tool result is attributed on its own", Accepts: true,
		Text: "TOOL_CALL_RESULT is attributed independently of its tool call (the executor may differ from the caller), and (re)sets the owner of its messageId.",
		Example: []string{started, `{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"search","subagentRunId":"sub-1"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"tc1"}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"res1","toolCallId":"tc1","content":"found","subagentRunId":"sub-2"}`},
		Fix: "Nothing to fix."},
	{ID: "R27", Title: "A replacing ACTIVITY_SNAPSHOT re-owns the activity", Accepts: true,
		Text: "An ACTIVITY_SNAPSHOT with replace not false re-mints the activity and takes it over (with a warning when the owner changes, G17); replace:false on an existing activity changes nothing, its owner included.",
		Example: []string{started, `{"type":"ACTIVITY_SNAPSHOT","messageId":"act1","activityType":"PLAN","content":{"steps":[]}}`,
			`{"type":"ACTIVITY_SNAPSHOT","messageId":"act1","activityType":"PLAN","content":{"steps":["a"]},"subagentRunId":"sub-1"}`},
		Fix: "Nothing to fix; let one producer own an activity."},
	{ID: "R28", Title: "Old consumers get no lifecycle events", Accepts: true,
		Text:    "A producer whose consumer predates subagent support must not send the SUBAGENT_* types (old clients fail while decoding them). A server re-emitting AG-UI to such a peer strips subagent data (agview's stream transformer for old peers does that).",
		Example: []string{started, sub1},
		Fix:     "Check the peer's declared protocol version before sending SUBAGENT_* events."},

	{ID: "V1", Title: "The first event is RUN_STARTED",
		Text:    "A stream begins with RUN_STARTED (RUN_ERROR is also allowed first).",
		Example: []string{`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`},
		Fix:     "Send RUN_STARTED before anything else."},
	{ID: "V2", Title: "After RUN_FINISHED, only RUN_STARTED or RUN_ERROR",
		Text:    "A finished run takes no more events; start a new run with RUN_STARTED.",
		Example: []string{started, finished, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`},
		Fix:     "Send everything before RUN_FINISHED, or start a new run."},
	{ID: "V3", Title: "After RUN_ERROR, only RUN_STARTED",
		Text:    "An errored run takes no more events, not even closing ones (R23).",
		Example: []string{started, `{"type":"RUN_ERROR","message":"boom"}`, `{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`},
		Fix:     "Stop sending after RUN_ERROR."},
	{ID: "V4", Title: "No RUN_STARTED while a run is active",
		Text:    "A run must end (RUN_FINISHED or RUN_ERROR) before the next one starts.",
		Example: []string{started, `{"type":"RUN_STARTED","threadId":"t1","runId":"r2"}`},
		Fix:     "Finish the run first."},
	{ID: "V5", Title: "Several runs per stream", Accepts: true,
		Text:    "A stream may hold several sequential runs; a RUN_STARTED after a terminal event resets the per-run bookkeeping (open sets, steps, invocations). Owners of messages and tool calls outlive runs (G6).",
		Example: []string{started, finished, `{"type":"RUN_STARTED","threadId":"t1","runId":"r2"}`},
		Fix:     "Nothing to fix."},
	{ID: "V6", Title: "TEXT_MESSAGE_START on an open id",
		Text:    "A text message that is in progress cannot be started again.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`},
		Fix:     "End it with TEXT_MESSAGE_END first, or use a new id."},
	{ID: "V7", Title: "TEXT_MESSAGE_CONTENT and END need an open message",
		Text:    "Content and end go to a text message started and not yet ended.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}`},
		Fix:     "Send TEXT_MESSAGE_START first (or use TEXT_MESSAGE_CHUNK, which opens the message itself)."},
	{ID: "V8", Title: "TOOL_CALL_START on an open id",
		Text:    "A tool call that is in progress cannot be started again.",
		Example: []string{started, `{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"search"}`, `{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"search"}`},
		Fix:     "End it with TOOL_CALL_END first, or use a new id."},
	{ID: "V9", Title: "TOOL_CALL_ARGS and END need an open tool call",
		Text:    "Arguments and end go to a tool call started and not yet ended.",
		Example: []string{started, `{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"{}"}`},
		Fix:     "Send TOOL_CALL_START first."},
	{ID: "V10", Title: "A step name is open once per owner",
		Text:    "STEP_STARTED with a name already open for the same owner is rejected (the parent and a subagent may each have one, R17).",
		Example: []string{started, `{"type":"STEP_STARTED","stepName":"plan"}`, `{"type":"STEP_STARTED","stepName":"plan"}`},
		Fix:     "Finish the step before starting it again."},
	{ID: "V11", Title: "STEP_FINISHED needs an open step",
		Text:    "A step must have been started (by anyone) to be finished.",
		Example: []string{started, `{"type":"STEP_FINISHED","stepName":"plan"}`},
		Fix:     "Send STEP_STARTED first."},
	{ID: "V12", Title: "Reasoning spans open and close once",
		Text:    "REASONING_START on a span id that is open, or REASONING_END without an open span, is rejected.",
		Example: []string{started, `{"type":"REASONING_END","messageId":"r1"}`},
		Fix:     "Pair every REASONING_START with one REASONING_END."},
	{ID: "V13", Title: "Reasoning messages open and close once",
		Text:    "REASONING_MESSAGE_START on an open id, or REASONING_MESSAGE_CONTENT/END without an open reasoning message, is rejected.",
		Example: []string{started, `{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"hmm"}`},
		Fix:     "Send REASONING_MESSAGE_START first."},
	{ID: "V14", Title: "RUN_FINISHED with nothing open",
		Text:    "RUN_FINISHED is rejected while a step, text message, reasoning message or span, or tool call is still open (open invocations are R10).",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, finished},
		Fix:     "Close everything before RUN_FINISHED."},
	{ID: "V15", Title: "RUN_ERROR is accepted at any time", Accepts: true,
		Text:    "A run may error at any point, with anything open (R23).",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"RUN_ERROR","message":"boom"}`},
		Fix:     "Nothing to fix."},
	{ID: "V16", Title: "What the stream rules do not check", Accepts: true,
		Text:    "Not checked: a TOOL_CALL_RESULT naming an unknown call, an ACTIVITY_DELTA before any snapshot, reopening a closed text or tool id (owner rules apply), the content of STATE_*, RAW and CUSTOM events.",
		Example: []string{started, `{"type":"TOOL_CALL_RESULT","messageId":"res1","toolCallId":"nobody","content":"x"}`},
		Fix:     "Nothing to fix."},
	{ID: "V17", Title: "The subagent rules are stream rules too", Accepts: true,
		Text:    "The stream verifier applies the subagent rules R1, R3–R5, R8–R10, R14–R19 and R25; each is reported under its own id.",
		Example: []string{started, sub1, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sub-1"}`, finished},
		Fix:     "See the R rules."},

	{ID: "A1", Title: "One id, one message",
		Text: "A message id names one message of one kind (text, reasoning, tool result, activity). TEXT_MESSAGE_START or REASONING_MESSAGE_START on a tool result's or activity's id, ACTIVITY_SNAPSHOT on a non-activity message, and TOOL_CALL_RESULT whose messageId already names a message are rejected.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
			`{"type":"ACTIVITY_SNAPSHOT","messageId":"m1","activityType":"PLAN","content":{}}`},
		Fix: "Mint distinct ids for tool results and activities."},

	{ID: "E1", Title: "Unknown event types are skipped", Accepts: true,
		Text:    "An event whose type the protocol does not describe is skipped with a warning (filed under G2); the stream goes on.",
		Example: []string{started, `{"type":"MY_EXTENSION","value":1}`},
		Fix:     "Use CUSTOM for events of your own."},
	{ID: "E2", Title: "Unknown members are removed",
		Text:    "A member the schema does not describe (at any depth), or an unknown member of a union in an optional position (a message role, a content part type, a RUN_FINISHED outcome type), is left out of the view with a warning naming its place (G20).",
		Example: []string{started, `{"type":"RUN_FINISHED","threadId":"t1","runId":"r1","outcome":{"type":"mystery"}}`},
		Fix:     "Send only what the schema describes; put extensions in CUSTOM events or rawEvent."},
	{ID: "E3", Title: "Events match the schema",
		Text:    "A malformed value on a described field — a wrong type, null on an optional field, a missing required field, a float timestamp, invalid JSON, a malformed JSON Patch operation — is a schema error: the event is rejected.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1"}`},
		Fix:     "Validate events against the AG-UI schema before sending them."},
	{ID: "E4", Title: "Legacy nulls read as absent",
		Text:    "A few fields that older producers set to null (rawEvent, RUN_FINISHED.result and outcome, SUBAGENT_FINISHED.result, TOOL_CALL_START.parentMessageId, and some inside RUN_STARTED.input) are read as absent, with a warning.",
		Example: []string{started, `{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"search","parentMessageId":null}`},
		Fix:     "Omit the field instead of sending null."},

	{ID: "G2", Title: "Tolerated: unknown types and patch operations",
		Text:    "An unknown event type is skipped, an unknown JSON Patch op is removed and the rest of the patch applied, each with a warning; the verdict stays accept.",
		Example: []string{started, `{"type":"STATE_DELTA","delta":[{"op":"increment","path":"/n"}]}`},
		Fix:     "Send only the six RFC 6902 operations."},
	{ID: "G3", Title: "A tag on a run-scoped event is dropped",
		Text:    "subagentRunId on RUN_STARTED, RUN_FINISHED, RUN_ERROR or MESSAGES_SNAPSHOT is ignored with a warning (the reference strips it).",
		Example: []string{started, `{"type":"RUN_ERROR","message":"boom","subagentRunId":"sub-1"}`},
		Fix:     "Leave the tag off run-scoped events; report a subagent's failure with SUBAGENT_ERROR."},
	{ID: "G8", Title: "A patch that cannot apply changes nothing",
		Text:    "A STATE_DELTA or ACTIVITY_DELTA whose patch cannot apply (a failed test, a path that does not resolve, an index out of range, a limit exceeded) is skipped whole with a warning naming the operation; the document stays as it was. The verdict stays accept.",
		Example: []string{started, `{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/missing","value":1}]}`},
		Fix:     "Send a STATE_SNAPSHOT when the consumer's state may differ from yours; patch only paths that exist."},
	{ID: "G9", Title: "Chunks go to one stream",
		Text:    "TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK and REASONING_MESSAGE_CHUNK expand to start/content/end events per owner's lane. The first chunk of a lane names its id; an id-less untagged chunk while several subagents have open chunk streams is ambiguous and rejected.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_CHUNK","delta":"hi"}`},
		Fix:     "Give the first chunk a messageId (toolCallId), and tag a subagent's chunks."},
	{ID: "G10", Title: "A finished id reused in a later run is a new invocation",
		Text: "Reusing, in a later run, an id that finished, errored or was abandoned starts a new invocation node, with a warning (a suspended id continues instead, R6).",
		Example: []string{started, sub1, `{"type":"SUBAGENT_FINISHED","subagentRunId":"sub-1"}`, finished,
			`{"type":"RUN_STARTED","threadId":"t1","runId":"r2"}`, sub1},
		Fix: "Mint a new id per invocation."},
	{ID: "G11", Title: "A broken or cancelled stream abandons what is open",
		Text:    "RUN_ERROR, a transport that breaks mid-run, or a consumer that cancels marks every open invocation abandoned, with the cause as the run's error; the text received so far is kept. A live connection (agview watch, the client) that closes cleanly while a run is running is a break too: the run is cut (failed) and agview watch exits 1 (G12 says why a recording differs).",
		Example: []string{started, sub1}, End: "broken",
		Fix: "Keep the connection open until RUN_FINISHED; send RUN_ERROR when the agent fails."},
	{ID: "G12", Title: "A stream that ends mid-run",
		Text:    "A stream that ends while a run is running is accepted with a warning; the run's status says it never finished. Which status depends on where the stream came from, on purpose. A recording that ends mid-run (agview replay, agview verify) may be the file of a run still going on: the run reads incomplete and the verdict is accept (exit 0). A live connection (agview watch, the client) that closes cleanly mid-run will bring nothing more: that is G11, the run is cut (failed), its open invocations abandoned, and watch exits 1. The reference client resolves either without error.",
		Example: []string{started}, End: "eof",
		Fix: "End every run with RUN_FINISHED or RUN_ERROR."},
	{ID: "G14", Title: "The message list follows the reference",
		Text: "Where the reference client's message list drops or skips something (a delta into a message a MESSAGES_SNAPSHOT removed, a tool call reopened under another name, an ACTIVITY_DELTA aimed at a message that is not an activity), agview does the same, with a warning.",
		Example: []string{started, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[]}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}`},
		Fix: "Don't remove open messages in a snapshot; close them first."},
	{ID: "G15", Title: "The client owns the conversation", Accepts: true,
		Text: "A client run starts from the messages it sends (RunAgentInput.messages): they are in the view first, in order, owned as their subagentRunId says, then the stream folds onto them as the reference's agent.messages does; RUN_STARTED.input.messages adds only ids not yet held. A journal's input record that names a history the journal's view does not hold (a record read out of order, another thread's) is refused under this id.",
		Example: []string{`{"type":"RUN_STARTED","threadId":"t1","runId":"r1","input":{"threadId":"t1","runId":"r1","messages":[{"id":"u1","role":"user","content":"hi"}],"tools":[],"context":[],"state":{},"forwardedProps":{}}}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"a1","role":"assistant"}`},
		Fix: "Send the whole history the agent should see; read a thread's journal from its first record."},
	{ID: "G17", Title: "A replacing ACTIVITY_SNAPSHOT from another owner warns",
		Text: "A replacing ACTIVITY_SNAPSHOT re-owns the activity, as upstream does (R27); when the owner changes, a warning names both owners.",
		Example: []string{started, `{"type":"ACTIVITY_SNAPSHOT","messageId":"act1","activityType":"PLAN","content":{}}`, sub1,
			`{"type":"ACTIVITY_SNAPSHOT","messageId":"act1","activityType":"PLAN","content":{"steps":[]},"subagentRunId":"sub-1"}`},
		Fix: "Keep an activity with the producer that opened it; give another producer's activity its own messageId."},
	{ID: "G18", Title: "Lenient stream ends",
		Text:    "At the end of an SSE stream, a last event without its blank line (or its line ending) is dispatched when its data is one complete JSON value, and a last line that holds no data (a comment, a stray field, junk) is ignored, each with a warning, the same in watch and replay; other data there is a truncation. An SSE event whose data is empty (a bare data line; the empty last line of this example) is skipped with a warning.",
		Example: []string{started, finished, ``},
		Fix:     "End every SSE event with a blank line, and send nothing after the last one."},
}
