package transform

import (
	"fmt"
	"iter"
	"slices"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/chunk"
)

// ChunkError reports a chunk that docs/protocol.md §4 refuses to expand (the
// reference client fails the run there; package reducer refuses the event
// with rule G9). ExpandChunks yields it in the chunk's place and goes on.
type ChunkError struct {
	// Type is the chunk's wire type.
	Type event.Type
	// Reason says what is wrong, naming the ids involved.
	Reason string
}

// Error returns the chunk type and the reason.
func (e *ChunkError) Error() string {
	return "transform: " + string(e.Type) + ": " + e.Reason + " (docs/protocol.md §4)"
}

// ExpandChunks returns seq with every chunk event replaced by the explicit
// START, CONTENT/ARGS and END events it stands for (docs/protocol.md §4, as
// package reducer folds them); every other event and every error passes
// through, preceded by the END events of the chunk streams it closes. A
// chunk §4 refuses is yielded as a *ChunkError. The chunk streams still
// pending when seq ends are discarded, as the reference discards them.
// Stopping the returned sequence early stops seq.
func ExpandChunks(seq iter.Seq2[event.Event, error]) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		var x expander
		for e, err := range seq {
			if err != nil || e == nil {
				if !yield(e, err) {
					return
				}
				continue
			}
			out, cerr := x.expand(e)
			for _, o := range out {
				if !yield(o, nil) {
					return
				}
			}
			if cerr != nil && !yield(nil, cerr) {
				return
			}
		}
	}
}

type laneKind uint8

const (
	laneText laneKind = iota
	laneTool
	laneReasoning
)

func (k laneKind) String() string {
	switch k {
	case laneTool:
		return "tool call"
	case laneReasoning:
		return "reasoning message"
	}
	return "text message"
}

// owner is the parent agent (sub false) or a subagent invocation.
type owner struct {
	sub bool
	id  string
}

func ownerOf(e event.Event) owner {
	id, ok := e.SubagentRunID()
	return owner{sub: ok, id: id}
}

func (o owner) tag() event.Attribution {
	if !o.sub {
		return event.Attribution{}
	}
	return event.By(o.id)
}

func (o owner) String() string {
	if !o.sub {
		return "the parent agent"
	}
	return "subagent '" + o.id + "'"
}

// lane is one owner's pending chunk stream.
type lane struct {
	owner     owner
	kind      laneKind
	id        string
	role      *event.Role // text: the opener's role (nil: assistant)
	name      *string     // text: the opener's name
	toolName  string      // tool: the opener's toolCallName
	parentMsg *string     // tool: the opener's parentMessageId
}

// expander is the state of one ExpandChunks iteration: the pending lanes,
// in the order they opened, and the entities open on the stream (to tell a
// stale lane, whose entity an explicit END already ended: its END is then
// not synthesized, so that the output stays valid).
type expander struct {
	lanes []lane
	open  [3]map[string]bool
}

func (x *expander) lane(o owner) (int, bool) {
	for i := range x.lanes {
		if x.lanes[i].owner == o {
			return i, true
		}
	}
	return -1, false
}

func (x *expander) setOpen(k laneKind, id string, open bool) {
	if x.open[k] == nil {
		x.open[k] = map[string]bool{}
	}
	if open {
		x.open[k][id] = true
	} else {
		delete(x.open[k], id)
	}
}

// expand returns what e stands for, in order: the END events of the lanes e
// closes, then e itself, or for a chunk the events it expands to; or the
// error that refuses a chunk.
func (x *expander) expand(e event.Event) ([]event.Event, *ChunkError) {
	var out []event.Event
	switch e := e.(type) {
	case *event.TextMessageChunk:
		return x.textChunk(e)
	case *event.ToolCallChunk:
		return x.toolChunk(e)
	case *event.ReasoningMessageChunk:
		return x.reasoningChunk(e)
	case *event.RunStarted, *event.RunFinished, *event.MessagesSnapshot:
		out = x.closeAll(out)
	case *event.RunError:
		// RUN_ERROR abandons what the lanes were streaming (G11): no END.
		x.lanes = x.lanes[:0]
	case *event.SubagentFinished:
		out = x.close(out, owner{sub: true, id: e.ID})
	case *event.SubagentError:
		out = x.close(out, owner{sub: true, id: e.ID})
	case *event.Raw, *event.ActivitySnapshot, *event.ActivityDelta, *event.ReasoningEncryptedValue, *event.SubagentStarted:
		// Close nothing (§4).
	default:
		// Every other explicit event closes its own lane only.
		out = x.close(out, ownerOf(e))
	}
	x.track(e)
	return append(out, e), nil
}

// track follows the entities e opens and ends.
func (x *expander) track(e event.Event) {
	switch e := e.(type) {
	case *event.TextMessageStart:
		x.setOpen(laneText, e.MessageID, true)
	case *event.TextMessageEnd:
		x.setOpen(laneText, e.MessageID, false)
	case *event.ToolCallStart:
		x.setOpen(laneTool, e.ToolCallID, true)
	case *event.ToolCallEnd:
		x.setOpen(laneTool, e.ToolCallID, false)
	case *event.ReasoningMessageStart:
		x.setOpen(laneReasoning, e.MessageID, true)
	case *event.ReasoningMessageEnd:
		x.setOpen(laneReasoning, e.MessageID, false)
	case *event.RunError:
		x.open = [3]map[string]bool{}
	}
}

// close appends the END owner o's pending stream owes, if any, and drops
// the lane. A stale stream (its entity already ended) owes nothing.
func (x *expander) close(out []event.Event, o owner) []event.Event {
	i, ok := x.lane(o)
	if !ok {
		return out
	}
	l := x.lanes[i]
	x.lanes = slices.Delete(x.lanes, i, i+1)
	return x.end(out, l)
}

// closeAll closes every lane, in the order of their owners' keys (as
// package reducer does).
func (x *expander) closeAll(out []event.Event) []event.Event {
	ls := slices.Clone(x.lanes)
	slices.SortFunc(ls, func(a, b lane) int {
		switch {
		case a.owner == b.owner:
			return 0
		case !a.owner.sub:
			return -1
		case !b.owner.sub:
			return 1
		case a.owner.id < b.owner.id:
			return -1
		}
		return 1
	})
	x.lanes = x.lanes[:0]
	for _, l := range ls {
		out = x.end(out, l)
	}
	return out
}

func (x *expander) end(out []event.Event, l lane) []event.Event {
	if !x.open[l.kind][l.id] {
		return out // stale
	}
	x.setOpen(l.kind, l.id, false)
	a := l.owner.tag()
	switch l.kind {
	case laneTool:
		return append(out, &event.ToolCallEnd{Attribution: a, ToolCallID: l.id})
	case laneReasoning:
		return append(out, &event.ReasoningMessageEnd{Attribution: a, MessageID: l.id})
	}
	return append(out, &event.TextMessageEnd{Attribution: a, MessageID: l.id})
}

// resolve finds the lane a chunk of kind k belongs to (§4 resolveLane).
func (x *expander) resolve(t event.Type, k laneKind, id *string, tag owner, idField string) (owner, *ChunkError) {
	if id != nil {
		for _, l := range x.lanes {
			if l.kind == k && l.id == *id {
				if tag.sub && tag != l.owner {
					return owner{}, &ChunkError{Type: t, Reason: fmt.Sprintf(
						"cannot continue %s '%s': chunk subagentRunId '%s' does not match the open stream's %s", k, *id, tag.id, l.owner)}
				}
				return l.owner, nil
			}
		}
		return tag, nil
	}
	if tag.sub {
		return tag, nil
	}
	if i, ok := x.lane(owner{}); ok && x.lanes[i].kind == k {
		return owner{}, nil
	}
	var found owner
	n := 0
	for _, l := range x.lanes {
		if l.kind == k {
			found = l.owner
			n++
		}
	}
	if n > 1 {
		return owner{}, &ChunkError{Type: t, Reason: fmt.Sprintf(
			"ambiguous %s: it carries neither a %s nor a subagentRunId, but %d lanes have an open %s", t, idField, n, k)}
	}
	return found, nil // the sole lane, or the parent's when there is none
}

// current returns the lane of o when it streams an entity of kind k that
// the chunk (whose id is id) continues.
func (x *expander) current(o owner, k laneKind, id *string) (lane, bool) {
	i, ok := x.lane(o)
	if !ok {
		return lane{}, false
	}
	l := x.lanes[i]
	return l, l.kind == k && (id == nil || *id == l.id)
}

// begin closes o's pending stream and opens l in its place, returning the
// END and the opener.
func (x *expander) begin(l lane, opener event.Event) []event.Event {
	out := x.close(nil, l.owner)
	x.lanes = append(x.lanes, l)
	x.setOpen(l.kind, l.id, true)
	return append(out, opener)
}

func roleOr(r *event.Role) event.Role {
	if r == nil {
		return event.RoleAssistant
	}
	return *r
}

// startBase is what a synthesized opener carries of its chunk: the
// timestamp and the metadata.
func startBase(b *event.Base) event.Base {
	return event.Base{Timestamp: b.Timestamp, Metadata: b.Metadata}
}

// deltaBase is what a synthesized CONTENT/ARGS carries of its chunk: the
// timestamp, the metadata and the rawEvent.
func deltaBase(b *event.Base) event.Base {
	return event.Base{Timestamp: b.Timestamp, Metadata: b.Metadata, RawEvent: b.RawEvent}
}

func (x *expander) textChunk(e *event.TextMessageChunk) ([]event.Event, *ChunkError) {
	t := e.EventType()
	o, err := x.resolve(t, laneText, e.MessageID, ownerOf(e), "messageId")
	if err != nil {
		return nil, err
	}
	l, cont := x.current(o, laneText, e.MessageID)
	var out []event.Event
	if cont {
		if e.Role != nil && *e.Role != roleOr(l.role) {
			return nil, &ChunkError{Type: t, Reason: fmt.Sprintf("cannot continue text message '%s': chunk role '%s' does not match the open stream's role '%s'", l.id, *e.Role, roleOr(l.role))}
		}
		if e.Name != nil && l.name != nil && *e.Name != *l.name {
			return nil, &ChunkError{Type: t, Reason: fmt.Sprintf("cannot continue text message '%s': chunk name '%s' does not match the open stream's name '%s'", l.id, *e.Name, *l.name)}
		}
	} else {
		if e.MessageID == nil {
			return nil, &ChunkError{Type: t, Reason: "the first TEXT_MESSAGE_CHUNK of a stream must have a messageId"}
		}
		role := roleOr(e.Role)
		l = lane{owner: o, kind: laneText, id: *e.MessageID, role: e.Role, name: e.Name}
		out = x.begin(l, &event.TextMessageStart{Base: startBase(&e.Base), Attribution: o.tag(),
			MessageID: l.id, Role: &role, Name: e.Name})
	}
	if d, ok := chunk.Delta(e.Delta, &e.Base, !cont); ok {
		out = append(out, &event.TextMessageContent{Base: deltaBase(&e.Base), Attribution: o.tag(), MessageID: l.id, Delta: d})
	}
	return out, nil
}

func (x *expander) toolChunk(e *event.ToolCallChunk) ([]event.Event, *ChunkError) {
	t := e.EventType()
	o, err := x.resolve(t, laneTool, e.ToolCallID, ownerOf(e), "toolCallId")
	if err != nil {
		return nil, err
	}
	l, cont := x.current(o, laneTool, e.ToolCallID)
	var out []event.Event
	if cont {
		if e.ToolCallName != nil && *e.ToolCallName != l.toolName {
			return nil, &ChunkError{Type: t, Reason: fmt.Sprintf("cannot continue tool call '%s': chunk toolCallName '%s' does not match the open stream's toolCallName '%s'", l.id, *e.ToolCallName, l.toolName)}
		}
		if e.ParentMessageID != nil && l.parentMsg != nil && *e.ParentMessageID != *l.parentMsg {
			return nil, &ChunkError{Type: t, Reason: fmt.Sprintf("cannot continue tool call '%s': chunk parentMessageId '%s' does not match the open stream's parentMessageId '%s'", l.id, *e.ParentMessageID, *l.parentMsg)}
		}
	} else {
		if e.ToolCallID == nil {
			return nil, &ChunkError{Type: t, Reason: "the first TOOL_CALL_CHUNK of a stream must have a toolCallId"}
		}
		if e.ToolCallName == nil {
			return nil, &ChunkError{Type: t, Reason: "the first TOOL_CALL_CHUNK of a stream must have a toolCallName"}
		}
		l = lane{owner: o, kind: laneTool, id: *e.ToolCallID, toolName: *e.ToolCallName, parentMsg: e.ParentMessageID}
		out = x.begin(l, &event.ToolCallStart{Base: startBase(&e.Base), Attribution: o.tag(),
			ToolCallID: l.id, ToolCallName: l.toolName, ParentMessageID: l.parentMsg})
	}
	if d, ok := chunk.Delta(e.Delta, &e.Base, !cont); ok {
		out = append(out, &event.ToolCallArgs{Base: deltaBase(&e.Base), Attribution: o.tag(), ToolCallID: l.id, Delta: d})
	}
	return out, nil
}

func (x *expander) reasoningChunk(e *event.ReasoningMessageChunk) ([]event.Event, *ChunkError) {
	t := e.EventType()
	o, err := x.resolve(t, laneReasoning, e.MessageID, ownerOf(e), "messageId")
	if err != nil {
		return nil, err
	}
	l, cont := x.current(o, laneReasoning, e.MessageID)
	var out []event.Event
	if !cont {
		if e.MessageID == nil {
			return nil, &ChunkError{Type: t, Reason: "the first REASONING_MESSAGE_CHUNK of a stream must have a messageId"}
		}
		l = lane{owner: o, kind: laneReasoning, id: *e.MessageID}
		out = x.begin(l, &event.ReasoningMessageStart{Base: startBase(&e.Base), Attribution: o.tag(),
			MessageID: l.id, Role: event.RoleReasoning})
	}
	if d, ok := chunk.Delta(e.Delta, &e.Base, !cont); ok {
		out = append(out, &event.ReasoningMessageContent{Base: deltaBase(&e.Base), Attribution: o.tag(), MessageID: l.id, Delta: d})
	}
	return out, nil
}
