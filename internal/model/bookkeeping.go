package model

import (
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/persist"
	"github.com/agview/agview/patch"
)

// The verifier's bookkeeping: what the reducer must remember to check the
// rules and to find things again (where a message lives, who owns an id,
// what is open in the current run), kept in the cold part of a state.

// OwnerRec is a recorded message owner with the kind of message it was
// recorded for.
type OwnerRec struct {
	Owner Owner
	Kind  Kind
	// Replayed: recorded from history (MESSAGES_SNAPSHOT, RUN_STARTED.input),
	// which the reference records for every kind of message.
	Replayed bool
}

// Loc locates a message: the invocation node holding it (-1: the root) and
// its position in that node's message vector.
type Loc struct {
	Inv int
	Pos int
}

// CallLoc locates a tool call: the id of the message holding it and its
// index in that message's calls. A message's calls are only ever appended
// to, so the index stays right while the message holds the call.
type CallLoc struct {
	Msg string
	Idx int
}

// SpanLoc is an open reasoning span: its owner and where its record is.
type SpanLoc struct {
	Owner Owner
	Inv   int
	Pos   int
}

// StepLoc is an open step: its owner, name and where its record is.
type StepLoc struct {
	Owner Owner
	Name  string
	Inv   int
	Pos   int
}

// LaneKind is the kind of a pending chunk stream (docs/protocol.md §4).
type LaneKind uint8

// Lane kinds.
const (
	LaneText LaneKind = iota + 1
	LaneTool
	LaneReasoning
)

// Lane is the pending chunk stream of one owner.
type Lane struct {
	Owner     Owner
	Kind      LaneKind
	ID        string
	Role      *event.Role
	Name      *string
	ToolName  string
	ParentMsg *string
}

// Open is an open text or reasoning message: its owner and, while it is in
// the message list (In), where it lives, so that a streamed delta finds it in
// the small map of open entities without a lookup in the message index.
type Open struct {
	Owner Owner
	Loc   Loc
	In    bool
}

// OpenCall is an open tool call: its owner and, while a message holds it
// (Held), where that message lives and the call's index in it.
type OpenCall struct {
	Owner Owner
	Loc   Loc
	Idx   int
	Held  bool
}

// RunScope is the verifier bookkeeping that resets at every RUN_STARTED
// (docs/protocol.md V5): open entities, steps, subagent lifecycle, chunk lanes.
type RunScope struct {
	OpenText  persist.Map[Open]     // text message id → owner, where
	OpenTool  persist.Map[OpenCall] // tool call id → owner, where
	OpenRsn   persist.Map[Open]     // reasoning message id → owner, where
	OpenSpan  persist.Map[SpanLoc]  // reasoning span id → owner, record
	OpenSteps persist.Map[StepLoc]  // owner key + "\x00" + name → step

	Active     persist.Map[int]      // active subagent id → node
	Closed     persist.Map[struct{}] // ids finished, suspended or errored in this run
	Started    persist.Map[struct{}] // ids started in this run
	Attributed persist.Map[struct{}] // ids some attributable event carried in this run

	Lanes persist.Map[Lane] // owner key → pending chunk stream
}

// Cold is the part of a State most events leave alone.
type Cold struct {
	// Stamp is the step of the fold that made this copy: a Builder changes
	// in place a Cold stamped after the last view it handed out.
	Stamp uint64
	Ended bool
	// Thread is the threadId of the last run input folded (reducer.Input):
	// the client's own thread, which the stream's RUN_STARTED may not name.
	Thread string

	Phase Phase
	Runs  persist.Vector[Run]
	Scope RunScope

	// Messages: the AG-UI list in order, where each message lives, which
	// message holds each tool call.
	Order   persist.Seq
	MsgLoc  persist.Map[Loc]
	CallLoc persist.Map[CallLoc] // tool call id → where it is held
	// ResultAfter: assistant message id → the last tool result inserted
	// after it (a hint: the tool messages up to it follow the message).
	ResultAfter persist.Map[string]

	// Owners, kept for the whole stream (docs/protocol.md G6).
	MsgOwner  persist.Map[OwnerRec]
	CallOwner persist.Map[Owner]
	SpanOwner persist.Map[Owner]

	InvIDs persist.Map[int] // subagent id → its latest node
	// invs are the subagent nodes by key, stale for the keys in State.hot.
	invs persist.Vector[*Inv]

	Doc     patch.Document // the run-scoped state
	DocBy   Owner          // who last changed it (provenance)
	DocSet  bool           // DocBy is meaningful
	Pending []event.Interrupt

	Diags     persist.Vector[Diag]
	Violating int // violations recorded
	Thinking  Thinking
}
