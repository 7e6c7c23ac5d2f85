package model

import (
	"bytes"
	"encoding/json"
	"iter"
	"unsafe"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/persist"
	"github.com/agview/agview/patch"
)

// The domain: what a view is made of — runs, invocations (who did what),
// messages and tool calls as the AG-UI list holds them, steps, reasoning
// spans, diagnostics — with no bookkeeping and no memory tricks.

// Phase is where the stream is in the run lifecycle (docs/protocol.md V1–V4).
type Phase uint8

// Phases.
const (
	PhaseNone     Phase = iota // no run yet: only RUN_STARTED or RUN_ERROR may come
	PhaseActive                // a run is running
	PhaseFinished              // the last run finished: RUN_STARTED or RUN_ERROR may come
	PhaseErrored               // the last run errored: only RUN_STARTED may come
)

// Run statuses; package view exposes them as typed constants with the same
// strings.
const (
	RunRunning     = "running"
	RunFinished    = "finished"
	RunErrored     = "errored"
	RunInterrupted = "interrupted"
	RunIncomplete  = "incomplete"
	RunCancelled   = "cancelled"
	RunFailed      = "failed"
)

// InvStatus is an invocation's status (one byte: nodes are copied on every
// streamed delta).
type InvStatus uint8

// Invocation statuses.
const (
	InvUnannounced InvStatus = iota
	InvRunning
	InvFinished
	InvSuspended
	InvErrored
	InvAbandoned
)

var invStatusNames = [...]string{"unannounced", "running", "finished", "suspended", "errored", "abandoned"}

// String returns the status as package view spells it.
func (s InvStatus) String() string { return invStatusNames[s] }

// EntStatus is the status of a message, tool call, step or span.
type EntStatus uint8

// Entity statuses. EntHistory marks what arrived complete (history,
// snapshots); package view reports it as closed.
const (
	EntHistory EntStatus = iota
	EntOpen
	EntClosed
	EntAbandoned
)

var entStatusNames = [...]string{"closed", "open", "closed", "abandoned"}

// String returns the status as package view spells it.
func (s EntStatus) String() string { return entStatusNames[s] }

// Owner names who produced or owns something: the parent agent (Sub false)
// or the subagent invocation ID (Sub true; "" is a legal id). As an event's
// tag, the zero Owner means "untagged".
type Owner struct {
	Sub bool
	ID  string
}

// Parent is the parent agent.
var Parent = Owner{}

// OwnerOf returns the owner named by an optional tag.
func OwnerOf(id string, ok bool) Owner { return Owner{Sub: ok, ID: id} }

// Key returns a map key for o, distinct for every owner.
func (o Owner) Key() string {
	if !o.Sub {
		return ""
	}
	return "\x01" + o.ID
}

// Tag returns o as an optional subagentRunId: nil for the parent agent.
func (o Owner) Tag() *string {
	if !o.Sub {
		return nil
	}
	id := o.ID
	return &id
}

// Describe names o for messages: "subagent 'x'" or "the parent agent".
func (o Owner) Describe() string {
	if !o.Sub {
		return "the parent agent"
	}
	return "subagent '" + o.ID + "'"
}

// Quoted names o as the reference's error texts do: 'x' or '(the parent agent)'.
func (o Owner) Quoted() string {
	if !o.Sub {
		return "'(the parent agent)'"
	}
	return "'" + o.ID + "'"
}

// Kind is the kind of a message for the rule "one id, one message"
// (docs/protocol.md G7).
type Kind uint8

// Message kinds.
const (
	KindText      Kind = iota + 1 // developer, system, assistant, user
	KindReasoning                 // reasoning
	KindTool                      // tool result
	KindActivity                  // activity
)

// KindOf returns the kind of a message role.
func KindOf(r event.Role) Kind {
	switch r {
	case event.RoleReasoning:
		return KindReasoning
	case event.RoleTool:
		return KindTool
	case event.RoleActivity:
		return KindActivity
	}
	return KindText
}

// String names the kind for messages.
func (k Kind) String() string {
	switch k {
	case KindReasoning:
		return "reasoning message"
	case KindTool:
		return "tool result message"
	case KindActivity:
		return "activity message"
	}
	return "text message"
}

// Thinking is the translation state of the deprecated THINKING_* events
// (docs/protocol.md §3.8): the ids minted for the open span and message.
type Thinking struct {
	Span    string
	SpanSet bool
	Msg     string
	MsgSet  bool
}

// Diag is one diagnostic.
type Diag struct {
	Index   int
	Kind    string // "violation" or "warning"
	Rule    string
	Type    event.Type
	Message string
}

// DiagsKept is the number of diagnostics a view keeps at each end of a
// stream: the first DiagsKept and the last DiagsKept. Those between are
// counted, not kept, so that a stream refused event after event (a
// misbehaving server, a file that is not AG-UI) holds a view of bounded
// size; the first say what went wrong first, the last what is going wrong
// now.
const DiagsKept = 1000

// DiagLog is a stream's diagnostics, bounded (see DiagsKept): the first
// ones in first, the later ones in last, of which the last DiagsKept are
// kept. last grows to 2×DiagsKept and is then cut to its last DiagsKept
// (dropped counts the ones cut), so that appending costs O(1) amortised.
// A DiagLog reachable from a published state is never written; a nil
// *DiagLog is empty.
type DiagLog struct {
	first, last persist.Vector[Diag]
	dropped     int
}

// Append returns l with d after its diagnostics; l is not written.
func (l *DiagLog) Append(d Diag) *DiagLog {
	c := new(DiagLog)
	if l != nil {
		*c = *l
	}
	if c.first.Len() < DiagsKept {
		c.first = c.first.Append(d)
		return c
	}
	c.last = c.last.Append(d)
	if c.last.Len() == 2*DiagsKept {
		var kept persist.Vector[Diag]
		for i := DiagsKept; i < 2*DiagsKept; i++ {
			kept = kept.Append(c.last.At(i))
		}
		c.last, c.dropped = kept, c.dropped+DiagsKept
	}
	return c
}

// skipped returns the number of diagnostics of l.last that are not kept.
func (l *DiagLog) skipped() int { return max(0, l.last.Len()-DiagsKept) }

// Len returns the number of diagnostics kept.
func (l *DiagLog) Len() int {
	if l == nil {
		return 0
	}
	return l.first.Len() + l.last.Len() - l.skipped()
}

// Omitted returns the number of diagnostics recorded but not kept: those
// after the first DiagsKept and before the last DiagsKept.
func (l *DiagLog) Omitted() int {
	if l == nil {
		return 0
	}
	return l.dropped + l.skipped()
}

// All iterates the diagnostics kept in order: the first ones, then the
// last ones.
func (l *DiagLog) All() iter.Seq[Diag] {
	return func(yield func(Diag) bool) {
		if l == nil {
			return
		}
		for d := range l.first.Values() {
			if !yield(d) {
				return
			}
		}
		for i := l.skipped(); i < l.last.Len(); i++ {
			if !yield(l.last.At(i)) {
				return
			}
		}
	}
}

// ErrorInfo is an error report (RUN_ERROR, SUBAGENT_ERROR, a broken stream).
type ErrorInfo struct {
	Message string
	Code    *string
}

// Run is one run of the stream.
type Run struct {
	ThreadID    string
	RunID       string
	ParentRunID *string
	Implicit    bool // opened by a RUN_ERROR with no RUN_STARTED
	Status      string
	Outcome     *event.RunFinishedOutcome
	Result      json.RawMessage
	Err         *ErrorInfo
	Interrupts  []event.Interrupt
	Usage       []event.TokenUsage // RUN_FINISHED's or RUN_ERROR's usage; nil when absent
	Start       int                // index of the event that opened it
	End         int                // index of the event that closed it, -1 while open
}

// InvInfo is the part of an invocation that streamed deltas leave alone.
type InvInfo struct {
	ID          string
	Root        bool
	Announced   bool
	Name        *string
	Description *string
	ParentSub   *string
	ParentKey   int // the parent node (-1: the root)
	ParentTool  *string
	ParentMsg   *string
	Outcome     *event.SubagentOutcome
	Result      json.RawMessage
	Err         *ErrorInfo
	Children    persist.Vector[string] // ids of the invocations it spawned, in start order
	Steps       persist.Vector[Step]
	Spans       persist.Vector[Span]
	Run         int // the run the node was first seen in (started, attributed or in history)
	// PlainMsg is the info the node's messages that carry its tag and
	// nothing else (no name, no metadata) share: most of a subagent's
	// messages cost no info of their own. Nil until the first one.
	PlainMsg *MsgInfo
	First    int // index of the event that first named it
}

// Step is one step of an invocation.
type Step struct {
	Name   string
	Status EntStatus
	Run    int
	Start  int
	End    int // -1 while open
}

// Span is one reasoning span (REASONING_START … REASONING_END).
type Span struct {
	ID     string
	Status EntStatus
	Start  int
	End    int
}

// MetaEntry is one member of a metadata object, in insertion order.
type MetaEntry struct {
	Key string
	Val json.RawMessage
}

// Meta is a metadata object kept in insertion order; nil means absent. A
// Meta reachable from a published view is never written: merging copies.
type Meta []MetaEntry

// Msg is one message of the AG-UI list plus what the view adds (status).
// The fields streamed deltas change are held directly; the rest is behind
// Info, and an assistant message's tool calls are behind Calls. A view holds
// one Msg per message, so it is kept to 48 bytes (the allocator's 48-byte
// size class; TestSizes pins it): the id and the text (16 bytes each), one
// word that points at the info or, for a message holding tool calls, at its
// calls (which point at the info), and one byte each for the role code and
// the flags below. Read the role,
// info and calls with Role, Info and Calls; change them on a private copy
// with SetRole, SetInfo, WithInfo, AppendCall, SetCall, AnswerCall and
// ForgetAnswer.
type Msg struct {
	ID string

	// Content: Text when it is a string (HasText); otherwise Info().Doc()
	// for an activity (HasDoc), Info().Raw() for an array of parts; all
	// unset = absent.
	Text persist.Text

	// more is the message's *MsgInfo, or its *callRep when held is set (the
	// rep then points at the info): one word for both, where an interface
	// would take two. Only the methods below read or set it.
	more unsafe.Pointer

	role    roleCode
	HasText bool
	HasDoc  bool
	Status  EntStatus
	// HasCalls: the toolCalls key is present (it may be empty).
	HasCalls bool
	held     bool // more is a *callRep: the message holds at least one call
}

// MsgInfo is the part of a message that streamed deltas leave alone. A
// tool result, a named message or one with metadata has one of its own, so
// it is kept to 32 bytes (a size class; TestSizes pins it): what a tool
// result or a subagent's message has (tag, name, tool call id) inline, and
// one pointer to the members few messages have (a MsgExtra), nil when it
// has none of them. Read those with Doc, Raw, Error, ActivityType,
// EncryptedValue and Meta; set them on a private info with SetExtra or the
// setters, which replace the MsgExtra and never write it: infos copied from
// one another (see Msg.WithInfo) share it.
type MsgInfo struct {
	Tag        *string // the message's subagentRunId
	Name       *string
	ToolCallID *string
	extra      *MsgExtra // never written once set; nil: none of its members
}

// MsgExtra is the part of a message's info that few messages have: an
// activity's document, content that is not a string, an error, an activity
// type, an encrypted value, metadata, or a role that is none of the seven.
// An info holds it behind a pointer (88 bytes, the 96-byte size class,
// allocated only for a message that has one of them); Extra returns a
// copy, and SetExtra stores one.
type MsgExtra struct {
	Doc            patch.Document  // an activity's content; whether it is set is Msg.HasDoc
	Raw            json.RawMessage // content that is neither a string nor a document (an array of parts)
	Error          *string
	ActivityType   *string
	EncryptedValue *string
	Meta           Meta
	role           *event.Role // the role of a message whose role code is roleOther
}

// none reports whether x has none of its members: an info keeps no
// MsgExtra for it.
func (x *MsgExtra) none() bool {
	return x.Doc == (patch.Document{}) && x.Raw == nil && x.Error == nil && x.ActivityType == nil &&
		x.EncryptedValue == nil && x.Meta == nil && x.role == nil
}

// noExtra is what the readers of an info without a MsgExtra read: all
// members absent. It is never written.
var noExtra = &MsgExtra{}

// extraOrNone returns i's MsgExtra, or noExtra when it has none; not to be
// written.
func (i *MsgInfo) extraOrNone() *MsgExtra {
	if i.extra == nil {
		return noExtra
	}
	return i.extra
}

// Extra returns a copy of the members of i that few messages have (all
// absent when it has none), to change and give back with SetExtra.
func (i *MsgInfo) Extra() MsgExtra { return *i.extraOrNone() }

// SetExtra sets the members of i that few messages have to those of x; i
// must be private (new, or from Msg.WithInfo). Pass a copy Extra returned to
// keep the role i keeps for a message whose role is none of the seven.
func (i *MsgInfo) SetExtra(x MsgExtra) {
	if x.none() {
		i.extra = nil
		return
	}
	p := new(MsgExtra)
	*p = x
	i.extra = p
}

// Doc returns an activity message's document (the zero Document when it
// has none; whether it is set is Msg.HasDoc).
func (i *MsgInfo) Doc() patch.Document { return i.extraOrNone().Doc }

// Raw returns the message's content when it is neither a string nor a
// document, nil otherwise.
func (i *MsgInfo) Raw() json.RawMessage { return i.extraOrNone().Raw }

// Error returns the message's error, nil when it has none.
func (i *MsgInfo) Error() *string { return i.extraOrNone().Error }

// ActivityType returns an activity message's type, nil when it has none.
func (i *MsgInfo) ActivityType() *string { return i.extraOrNone().ActivityType }

// EncryptedValue returns the message's encrypted value, nil when it has none.
func (i *MsgInfo) EncryptedValue() *string { return i.extraOrNone().EncryptedValue }

// Meta returns the message's metadata, nil when it has none.
func (i *MsgInfo) Meta() Meta { return i.extraOrNone().Meta }

// SetRaw sets the message's content that is neither a string nor a
// document; i must be private.
func (i *MsgInfo) SetRaw(raw json.RawMessage) {
	x := i.Extra()
	x.Raw = raw
	i.SetExtra(x)
}

// SetEncryptedValue sets the message's encrypted value; i must be private.
func (i *MsgInfo) SetEncryptedValue(v *string) {
	x := i.Extra()
	x.EncryptedValue = v
	i.SetExtra(x)
}

// SetMeta sets the message's metadata; i must be private.
func (i *MsgInfo) SetMeta(m Meta) {
	x := i.Extra()
	x.Meta = m
	i.SetExtra(x)
}

// keptRole returns the role i keeps for a message whose role code is
// roleOther, nil when it keeps none.
func (i *MsgInfo) keptRole() *event.Role { return i.extraOrNone().role }

// setKeptRole makes i keep role r (nil: none); i must be private.
func (i *MsgInfo) setKeptRole(r *event.Role) {
	x := i.Extra()
	x.role = r
	i.SetExtra(x)
}

// plainInfo is the info of every untagged message that has no name,
// metadata or other member: most streamed messages. It is shared and, like
// any MsgInfo reachable from a view, never written (changes go through
// WithInfo), so such a message costs no info of its own.
var plainInfo = &MsgInfo{}

// InfoOf returns the info of a new message with the given tag, name and
// metadata: the shared plainInfo when it has none of them.
func InfoOf(tag, name *string, meta json.RawMessage) *MsgInfo {
	if tag == nil && name == nil && meta == nil {
		return plainInfo
	}
	i := &MsgInfo{Tag: tag, Name: name}
	i.setMeta(meta)
	return i
}

// setMeta sets the metadata of a new info i to the object meta, leaving i
// without a MsgExtra when meta is absent.
func (i *MsgInfo) setMeta(meta json.RawMessage) {
	if m := MetaOf(meta); m != nil {
		i.extra = &MsgExtra{Meta: m}
	}
}

// ToolInfo returns the info of a new tool message answering call *callID,
// with the given tag and metadata. callID must point at a string that is
// never written, such as the ID of a published Call: a tool message's info
// is its own (every one names its call), and pointing at the id the
// message's call keeps makes it a MsgInfo alone, 32 bytes (and a MsgExtra
// when it has metadata). See ToolInfoCopy for a call id nothing keeps.
func ToolInfo(tag, callID *string, meta json.RawMessage) *MsgInfo {
	i := &MsgInfo{Tag: tag, ToolCallID: callID}
	i.setMeta(meta)
	return i
}

// ToolInfoCopy is ToolInfo for a call id nothing else keeps (a result of a
// call no message holds, or of one still open, which more events will
// replace): the info and its copy of the id's header are one allocation of
// 48 bytes (MsgInfo's 32, the header's 16).
func ToolInfoCopy(tag *string, callID string, meta json.RawMessage) *MsgInfo {
	t := &toolInfo{id: callID}
	t.info = MsgInfo{Tag: tag, ToolCallID: &t.id}
	t.info.setMeta(meta)
	return &t.info
}

// toolInfo is a tool message's info and the call id its ToolCallID points
// at (see ToolInfoCopy).
type toolInfo struct {
	info MsgInfo
	id   string
}

// roleCode is a message's role in one byte: one of the seven roles of
// package event, or roleOther, whose role string the message's info keeps
// (decoding refuses other roles, but a Go program may fold an event with any
// role, and the view gives it back exactly).
type roleCode uint8

const (
	roleOther roleCode = iota
	roleDeveloper
	roleSystem
	roleAssistant
	roleUser
	roleTool
	roleActivity
	roleReasoning
)

var roleOf = [...]event.Role{
	roleDeveloper: event.RoleDeveloper,
	roleSystem:    event.RoleSystem,
	roleAssistant: event.RoleAssistant,
	roleUser:      event.RoleUser,
	roleTool:      event.RoleTool,
	roleActivity:  event.RoleActivity,
	roleReasoning: event.RoleReasoning,
}

func codeOf(r event.Role) roleCode {
	switch r {
	case event.RoleDeveloper:
		return roleDeveloper
	case event.RoleSystem:
		return roleSystem
	case event.RoleAssistant:
		return roleAssistant
	case event.RoleUser:
		return roleUser
	case event.RoleTool:
		return roleTool
	case event.RoleActivity:
		return roleActivity
	case event.RoleReasoning:
		return roleReasoning
	}
	return roleOther
}

// NewMsg returns a new message with the given id, role and info (nil: none,
// the shared plainInfo). info is not written; a role that is none of the
// seven gets a private copy of it to keep the role in.
func NewMsg(id string, role event.Role, info *MsgInfo) *Msg {
	if info == nil {
		info = plainInfo
	}
	m := &Msg{ID: id, more: unsafe.Pointer(info)}
	m.SetRole(role)
	return m
}

// Role returns the message's role.
func (m *Msg) Role() event.Role {
	if m.role != roleOther {
		return roleOf[m.role]
	}
	if i := m.Info(); i != nil {
		if r := i.keptRole(); r != nil {
			return *r
		}
	}
	return ""
}

// SetRole sets the message's role; m must be a private copy. A role that is
// none of the seven makes the message's info a private copy keeping it.
func (m *Msg) SetRole(r event.Role) {
	code := codeOf(r)
	if i := m.Info(); code == roleOther || i != nil && i.keptRole() != nil {
		m.keepRole(code, r)
	}
	m.role = code
}

// keepRole gives m a private copy of its info that keeps role r when code
// is roleOther, and no role otherwise.
func (m *Msg) keepRole(code roleCode, r event.Role) {
	var i MsgInfo
	if old := m.Info(); old != nil {
		i = *old
	}
	var role *event.Role
	if code == roleOther {
		role = &r
	}
	i.setKeptRole(role)
	m.setInfo(&i)
}

// Info returns the message's info (nil only for the zero Msg). Callers must
// not write through it unless m came from WithInfo.
func (m *Msg) Info() *MsgInfo {
	if m.held {
		return (*callRep)(m.more).info
	}
	return (*MsgInfo)(m.more)
}

// SetInfo gives m the info i; m must be a private copy, i a new info not yet
// published. i takes over the role m's info kept, if any.
func (m *Msg) SetInfo(i *MsgInfo) {
	if old := m.Info(); old != nil && old.keptRole() != i.keptRole() {
		i.setKeptRole(old.keptRole())
	}
	m.setInfo(i)
}

// setInfo points m at i, copying its calls' rep when it holds calls.
func (m *Msg) setInfo(i *MsgInfo) {
	if !m.held {
		m.more = unsafe.Pointer(i)
		return
	}
	r := *(*callRep)(m.more)
	r.info = i
	m.more = unsafe.Pointer(&r)
}

// Kind returns the message's kind.
func (m *Msg) Kind() Kind { return KindOf(m.Role()) }

// WithInfo returns a copy of m whose info is a private copy the caller may
// change (through Info) before publishing.
func (m *Msg) WithInfo() *Msg {
	c := *m
	i := *m.Info()
	c.setInfo(&i)
	return &c
}

// Calls returns the message's tool calls (empty when it holds none).
func (m *Msg) Calls() CallList {
	if !m.held {
		return CallList{}
	}
	return CallList{(*callRep)(m.more)}
}

// AppendCall adds c after the message's tool calls and sets HasCalls; m must
// be a private copy.
func (m *Msg) AppendCall(c *Call) {
	m.holdCalls(m.Calls().Append(c))
	m.HasCalls = true
}

// SetCall replaces the message's tool call i (0 ≤ i < Calls().Len()) with c;
// m must be a private copy.
func (m *Msg) SetCall(i int, c *Call) { m.holdCalls(m.Calls().Set(i, c)) }

// AnswerCall is SetCall for a call a tool result inserted after m just
// answered (see CallList.Answer).
func (m *Msg) AnswerCall(i int, c *Call) { m.holdCalls(m.Calls().Answer(i, c)) }

// ForgetAnswer makes m's calls forget their last answer (see
// CallList.ForgetAnswer); m must be a private copy.
func (m *Msg) ForgetAnswer() {
	if l := m.Calls(); l.Len() > 0 {
		m.holdCalls(l.ForgetAnswer())
	}
}

// holdCalls makes l, a list Append or Set just made, m's calls.
func (m *Msg) holdCalls(l CallList) {
	l.r.info = m.Info()
	m.more, m.held = unsafe.Pointer(l.r), true
}

// Call is one tool call held by an assistant message, plus what the view
// adds. Arguments stream into Args, the answer sets Result; the rest, which
// most calls do not have, is behind Info.
//
// A Call is 96 bytes, exactly a size class: every call of a message is one,
// and every TOOL_CALL_ARGS copies it (see TestSizes). The result lives here,
// not behind Info, so that answering a call copies the call alone and the
// common call (no metadata, encrypted value or subagents) shares plainCall.
type Call struct {
	// ID is the call's id. A tool message that answered the call once it
	// was closed points its info's ToolCallID at the ID of the Call its
	// answer made (see ToolInfo): that Call stays alive as long as the
	// message, even when a later event (the call reopened, an encrypted
	// value, another result) replaces it.
	ID   string
	Name string
	Args persist.Text
	// Result is the id of the tool message answering the call and
	// ResultContent that message's content as sent (JSON), both set once a
	// TOOL_CALL_RESULT or a history tool message answered it (HasResult).
	// ResultContent shares its bytes with the tool message's text when the
	// content is a JSON string without escapes.
	Result        string
	ResultContent string
	Info          *CallInfo
	Status        EntStatus
	HasResult     bool
	// answered: a tool result inserted after the message holding the call
	// answered it, since a MESSAGES_SNAPSHOT last rebuilt the list (see
	// CallList.Answer and LastAnswer).
	answered bool
}

// CallInfo is the part of a tool call that streamed arguments and the
// answer leave alone, and that most calls do not have: those share
// plainCall. It is 56 bytes (the 64-byte size class).
type CallInfo struct {
	EncryptedValue *string
	Meta           Meta
	Spawned        []string // subagent ids it spawned (immutable, copied on write)
}

// plainCall is the info of every call without metadata, encrypted value or
// subagents: most calls. It is shared and, like any CallInfo reachable from
// a view, never written (changes go through WithInfo).
var plainCall = &CallInfo{}

// CallInfoOf returns the info of a new call with the given encrypted value
// and metadata: the shared plainCall when it has neither.
func CallInfoOf(encrypted *string, meta json.RawMessage) *CallInfo {
	m := MetaOf(meta)
	if encrypted == nil && m == nil {
		return plainCall
	}
	return &CallInfo{EncryptedValue: encrypted, Meta: m}
}

// WithInfo returns a copy of c whose info is a private copy the caller may
// change before publishing.
func (c *Call) WithInfo() *Call {
	d := *c
	i := *c.Info
	d.Info = &i
	return &d
}

// CloneUsage returns a deep copy of token usage entries (nil stays nil).
func CloneUsage(in []event.TokenUsage) []event.TokenUsage {
	if in == nil {
		return nil
	}
	out := make([]event.TokenUsage, len(in))
	for i, u := range in {
		for _, p := range []**string{&u.Provider, &u.Model} {
			if *p != nil {
				s := **p
				*p = &s
			}
		}
		for _, p := range []**int64{&u.InputTokens, &u.OutputTokens, &u.TotalTokens, &u.ReasoningTokens, &u.CachedInputTokens, &u.CacheWriteInputTokens} {
			if *p != nil {
				n := **p
				*p = &n
			}
		}
		out[i] = u
	}
	return out
}

// CloneInterrupts returns a deep copy of interrupts (nil stays nil).
func CloneInterrupts(in []event.Interrupt) []event.Interrupt {
	if in == nil {
		return nil
	}
	out := make([]event.Interrupt, len(in))
	for i, x := range in {
		x.Message = cloneStr(x.Message)
		x.ToolCallID = cloneStr(x.ToolCallID)
		x.ResponseSchema = bytes.Clone(x.ResponseSchema)
		x.ExpiresAt = cloneStr(x.ExpiresAt)
		x.Metadata = bytes.Clone(x.Metadata)
		x.Subagent = cloneStr(x.Subagent)
		out[i] = x
	}
	return out
}
