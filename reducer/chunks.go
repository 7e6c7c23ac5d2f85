package reducer

import (
	"fmt"
	"strings"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/chunk"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/internal/persist"
)

// Chunk expansion (docs/protocol.md §4, G9). Each owner has one lane holding at
// most one pending chunk stream; chunks expand into START/CONTENT/END events
// that are verified and folded like explicit ones.
//
// A pending stream can go stale: an untagged explicit TEXT_MESSAGE_END (or
// TOOL_CALL_END, REASONING_MESSAGE_END) closes only the parent's lane (§4),
// yet it may end a message a subagent's lane is streaming, since an untagged
// continuation agrees with any owner (R15). The reference then fails at the
// next event that closes or continues that lane: the END it synthesizes finds
// no open message. agview refuses that event too, and only that one: the
// violation drops the stale stream from the view Fold records (see
// discardStale), so a stale lane can never wedge the stream. RUN_ERROR,
// accepted at any time (V15), discards stale streams with a warning.

var lanesEmpty persist.Map[model.Lane]

// ruleChunk is the rule id of chunk violations: G9 binds agview to §4.
const ruleChunk = "G9"

func laneKindName(k model.LaneKind) string {
	switch k {
	case model.LaneTool:
		return "tool call"
	case model.LaneReasoning:
		return "reasoning message"
	}
	return "text message"
}

// laneEnd returns the END event type a chunk stream of kind k owes, and the
// rule an END without an open entity breaks.
func laneEnd(k model.LaneKind) (event.Type, string) {
	switch k {
	case model.LaneTool:
		return event.TypeToolCallEnd, "V9"
	case model.LaneReasoning:
		return event.TypeReasoningMessageEnd, "V13"
	}
	return event.TypeTextMessageEnd, "V7"
}

// laneLive reports whether the entity lane l is streaming is still open. A
// stream whose entity was ended some other way is stale.
func (f *folder) laneLive(l model.Lane) bool {
	op := &f.st.Cold.Open
	switch l.Kind {
	case model.LaneTool:
		return op.Tool.Has(l.ID)
	case model.LaneReasoning:
		return op.Rsn.Has(l.ID)
	}
	return op.Text.Has(l.ID)
}

// describeLane names the stream of lane l for messages: "the pending chunk
// stream in the lane of subagent 'sa1', which was streaming text message 'm1'".
func describeLane(l model.Lane) string {
	return fmt.Sprintf("the pending chunk stream in the lane of %s, which was streaming %s '%s'",
		l.Owner.Describe(), laneKindName(l.Kind), l.ID)
}

// staleLanes refuses the wire event for meeting the stale chunk streams ls
// (see the comment at the top of this file); what names how the event met
// them ("closes", "continues"). The violation drops them when recorded.
func (f *folder) staleLanes(what string, ls []model.Lane) *Violation {
	end, rule := laneEnd(ls[0].Kind)
	descs := make([]string, len(ls))
	keys := make([]string, len(ls))
	for i, l := range ls {
		descs[i] = describeLane(l)
		keys[i] = l.Owner.Key()
	}
	viol := &Violation{Rule: rule, Index: f.index, Type: f.wire, Message: fmt.Sprintf(
		"%s %s %s, but an explicit %s already ended that %s, so the %s the chunk stream owes has no open %s to end (docs/protocol.md §4; the reference client fails here); the stale chunk stream is discarded",
		f.wire, what, descs[0], end, laneKindName(ls[0].Kind), end, laneKindName(ls[0].Kind))}
	if len(ls) > 1 {
		viol.Message = fmt.Sprintf("%s %s %s: an explicit end already ended each of those, so the ENDs the chunk streams owe have no open entity to end (docs/protocol.md §4; the reference client fails here); the stale chunk streams are discarded",
			f.wire, what, strings.Join(descs, "; and "))
	}
	viol.stale = keys
	return viol
}

// discardStale returns lanes without the stale chunk streams viol met, so
// that the view Fold records for a refused event does not meet them again.
func discardStale(lanes persist.Map[model.Lane], viol *Violation) persist.Map[model.Lane] {
	for _, k := range viol.stale {
		lanes = lanes.Delete(k)
	}
	return lanes
}

// closeLane ends the pending chunk stream of owner o, if any, by folding the
// END the reference synthesises (tagged like the stream's opener). A stale
// stream refuses the event (see the top of this file).
func (f *folder) closeLane(o model.Owner) *Violation {
	if f.st.Cold.RunScope.Lanes.Len() == 0 {
		return nil
	}
	l, ok := f.st.Cold.RunScope.Lanes.Get(o.Key())
	if !ok {
		return nil
	}
	if !f.laneLive(l) {
		return f.staleLanes("closes", []model.Lane{l})
	}
	f.writeScope().Lanes = f.st.Cold.RunScope.Lanes.Delete(o.Key())
	return f.endLane(l)
}

// endLane folds the END a live chunk stream owes. It cannot fail: the
// stream's entity is open and the END carries its opener's owner.
func (f *folder) endLane(l model.Lane) *Violation {
	end, _ := laneEnd(l.Kind)
	return f.as(end, func() *Violation {
		switch l.Kind {
		case model.LaneTool:
			return f.toolEnd(l.ID, l.Owner, nil)
		case model.LaneReasoning:
			return f.msgEnd(reasoningMsgs, l.ID, l.Owner, nil)
		}
		return f.msgEnd(textMsgs, l.ID, l.Owner, nil)
	})
}

// sortedLanes returns the pending chunk streams in a deterministic order.
func (f *folder) sortedLanes() []model.Lane {
	lanes := f.st.Cold.RunScope.Lanes
	keys := sortedKeys(lanes)
	out := make([]model.Lane, len(keys))
	for i, k := range keys {
		out[i], _ = lanes.Get(k)
	}
	return out
}

// closeAllLanes ends every pending chunk stream (before RUN_FINISHED,
// RUN_STARTED and MESSAGES_SNAPSHOT), in a deterministic order. Stale
// streams refuse the event, all of them named (and discarded) at once.
func (f *folder) closeAllLanes() *Violation {
	if f.st.Cold.RunScope.Lanes.Len() == 0 {
		return nil
	}
	ls := f.sortedLanes()
	var stale []model.Lane
	for _, l := range ls {
		if !f.laneLive(l) {
			stale = append(stale, l)
		}
	}
	if len(stale) > 0 {
		return f.staleLanes("closes", stale)
	}
	f.writeScope().Lanes = lanesEmpty
	for _, l := range ls {
		if err := f.endLane(l); err != nil {
			return err
		}
	}
	return nil
}

// discardLanes drops every pending chunk stream for RUN_ERROR (V15: it is
// accepted at any time). The entities live streams were streaming stay open
// for abandonAll, so that they end abandoned, not closed (G11), exactly as
// when the transport breaks; the END the reference synthesizes here would
// only have been refused for a stale stream, which is reported as a warning.
func (f *folder) discardLanes() {
	if f.st.Cold.RunScope.Lanes.Len() == 0 {
		return
	}
	for _, l := range f.sortedLanes() {
		if !f.laneLive(l) {
			end, _ := laneEnd(l.Kind)
			f.warn(ruleChunk, "%s discards %s; an explicit %s had already ended that %s, so the reference client would refuse the %s it synthesizes here (docs/protocol.md §4), but RUN_ERROR is accepted at any time (V15)",
				f.wire, describeLane(l), end, laneKindName(l.Kind), end)
		}
	}
	f.writeScope().Lanes = lanesEmpty
}

// closeOwnLane closes the lane of an explicit event's tag (§4: an explicit
// event closes its own lane only) before the event continues or ends entity
// id of kind k. When that lane was streaming id, closing it has just ended
// the entity, and the event is refused with a message saying so (the
// reference fails the same way).
func (f *folder) closeOwnLane(tag model.Owner, k model.LaneKind, id string) *Violation {
	if f.st.Cold.RunScope.Lanes.Len() == 0 {
		return nil // the common case: no chunk stream pending anywhere
	}
	l, pending := f.st.Cold.RunScope.Lanes.Get(tag.Key())
	if err := f.closeLane(tag); err != nil {
		return err
	}
	if !pending || l.Kind != k || l.ID != id {
		return nil
	}
	end, rule := laneEnd(k)
	kind := laneKindName(k)
	verb := "continue"
	if f.wire == end {
		verb = "end"
	}
	return &Violation{Rule: rule, Index: f.index, Type: f.wire, Message: fmt.Sprintf(
		"%s first closes %s (docs/protocol.md §4: an explicit event closes the chunk stream of its own lane); the %s that stream owes ends %s '%s', so this %s has no open %s to %s; start it again explicitly, or go on streaming it with chunks",
		f.wire, describeLane(l), end, kind, id, f.wire, kind, verb)}
}

// resolveLane finds the lane a chunk of kind k belongs to (§4 resolveLane).
func (f *folder) resolveLane(k model.LaneKind, id *string, tag model.Owner, idField string) (model.Owner, *Violation) {
	lanes := f.st.Cold.RunScope.Lanes
	if id != nil {
		for _, l := range lanes.All() {
			if l.Kind == k && l.ID == *id {
				if tag.Sub && tag != l.Owner {
					return model.Owner{}, f.violation(ruleChunk,
						"cannot continue %s '%s': chunk subagentRunId '%s' does not match the open stream's subagent %s",
						laneKindName(k), *id, tag.ID, l.Owner.Quoted())
				}
				return l.Owner, nil
			}
		}
		return tag, nil
	}
	if tag.Sub {
		return tag, nil
	}
	if l, ok := lanes.Get(model.Parent.Key()); ok && l.Kind == k {
		return model.Parent, nil
	}
	var found model.Owner
	n := 0
	for _, l := range lanes.All() {
		if l.Kind == k {
			found = l.Owner
			n++
		}
	}
	switch {
	case n == 1:
		if found.Sub {
			f.warn(ruleChunk, "%s carries neither a %s nor a subagentRunId; it goes to the sole open %s lane, subagent %s (the §4 fallback); attribute the chunk to the subagent it belongs to",
				f.wire, idField, laneKindName(k), found.Quoted())
		}
		return found, nil
	case n > 1:
		return model.Owner{}, f.violation(ruleChunk,
			"ambiguous %s: it carries neither a %s nor a subagentRunId, but %d lanes have an open %s; attribute the chunk to the subagent it belongs to",
			f.wire, idField, n, laneKindName(k))
	}
	return model.Parent, nil
}

func (f *folder) textChunk(e *event.TextMessageChunk, tag model.Owner) *Violation {
	lane, err := f.resolveLane(model.LaneText, e.MessageID, tag, "messageId")
	if err != nil {
		return err
	}
	l, pending := f.st.Cold.RunScope.Lanes.Get(lane.Key())
	opened := false
	if pending && l.Kind == model.LaneText && (e.MessageID == nil || *e.MessageID == l.ID) {
		if !f.laneLive(l) {
			return f.staleLanes("continues", []model.Lane{l})
		}
		if e.Role != nil && *e.Role != roleOr(l.Role, event.RoleAssistant) {
			return f.violation(ruleChunk, "cannot continue text message '%s': chunk role '%s' does not match the open stream's role '%s'",
				l.ID, *e.Role, roleOr(l.Role, event.RoleAssistant))
		}
		if e.Name != nil && l.Name != nil && *e.Name != *l.Name {
			return f.violation(ruleChunk, "cannot continue text message '%s': chunk name '%s' does not match the open stream's name '%s'",
				l.ID, *e.Name, *l.Name)
		}
	} else {
		if e.MessageID == nil {
			return f.violation(ruleChunk, "the first TEXT_MESSAGE_CHUNK of a stream must have a messageId")
		}
		if pending {
			if err := f.closeLane(lane); err != nil {
				return err
			}
		}
		l = model.Lane{Owner: lane, Kind: model.LaneText, ID: *e.MessageID, Role: cloneRole(e.Role), Name: cloneStr(e.Name)}
		role := e.Role
		if role == nil {
			r := event.RoleAssistant
			role = &r
		}
		if err := f.as(event.TypeTextMessageStart, func() *Violation {
			return f.msgStart(textMsgs, l.ID, role, e.Name, lane, e.Metadata)
		}); err != nil {
			return err
		}
		f.writeScope().Lanes = f.st.Cold.RunScope.Lanes.Set(lane.Key(), l)
		opened = true
	}
	if delta, ok := chunk.Delta(e.Delta, &e.Base, opened); ok {
		return f.as(event.TypeTextMessageContent, func() *Violation {
			return f.msgContent(textMsgs, l.ID, delta, lane, e.Metadata)
		})
	}
	return nil
}

func (f *folder) toolChunk(e *event.ToolCallChunk, tag model.Owner) *Violation {
	lane, err := f.resolveLane(model.LaneTool, e.ToolCallID, tag, "toolCallId")
	if err != nil {
		return err
	}
	l, pending := f.st.Cold.RunScope.Lanes.Get(lane.Key())
	opened := false
	if pending && l.Kind == model.LaneTool && (e.ToolCallID == nil || *e.ToolCallID == l.ID) {
		if !f.laneLive(l) {
			return f.staleLanes("continues", []model.Lane{l})
		}
		if e.ToolCallName != nil && *e.ToolCallName != l.ToolName {
			return f.violation(ruleChunk, "cannot continue tool call '%s': chunk toolCallName '%s' does not match the open stream's toolCallName '%s'",
				l.ID, *e.ToolCallName, l.ToolName)
		}
		if e.ParentMessageID != nil && l.ParentMsg != nil && *e.ParentMessageID != *l.ParentMsg {
			return f.violation(ruleChunk, "cannot continue tool call '%s': chunk parentMessageId '%s' does not match the open stream's parentMessageId '%s'",
				l.ID, *e.ParentMessageID, *l.ParentMsg)
		}
	} else {
		if e.ToolCallID == nil {
			return f.violation(ruleChunk, "the first TOOL_CALL_CHUNK of a stream must have a toolCallId")
		}
		if e.ToolCallName == nil {
			return f.violation(ruleChunk, "the first TOOL_CALL_CHUNK of a stream must have a toolCallName")
		}
		if pending {
			if err := f.closeLane(lane); err != nil {
				return err
			}
		}
		l = model.Lane{Owner: lane, Kind: model.LaneTool, ID: *e.ToolCallID, ToolName: *e.ToolCallName, ParentMsg: cloneStr(e.ParentMessageID)}
		if err := f.as(event.TypeToolCallStart, func() *Violation {
			return f.toolStart(l.ID, l.ToolName, l.ParentMsg, lane, e.Metadata)
		}); err != nil {
			return err
		}
		f.writeScope().Lanes = f.st.Cold.RunScope.Lanes.Set(lane.Key(), l)
		opened = true
	}
	if delta, ok := chunk.Delta(e.Delta, &e.Base, opened); ok {
		return f.as(event.TypeToolCallArgs, func() *Violation {
			return f.toolArgs(l.ID, delta, lane, e.Metadata)
		})
	}
	return nil
}

func (f *folder) reasoningChunk(e *event.ReasoningMessageChunk, tag model.Owner) *Violation {
	lane, err := f.resolveLane(model.LaneReasoning, e.MessageID, tag, "messageId")
	if err != nil {
		return err
	}
	l, pending := f.st.Cold.RunScope.Lanes.Get(lane.Key())
	opened := false
	if pending && l.Kind == model.LaneReasoning && (e.MessageID == nil || *e.MessageID == l.ID) {
		if !f.laneLive(l) {
			return f.staleLanes("continues", []model.Lane{l})
		}
	} else {
		if e.MessageID == nil {
			return f.violation(ruleChunk, "the first REASONING_MESSAGE_CHUNK of a stream must have a messageId")
		}
		if pending {
			if err := f.closeLane(lane); err != nil {
				return err
			}
		}
		l = model.Lane{Owner: lane, Kind: model.LaneReasoning, ID: *e.MessageID}
		if err := f.as(event.TypeReasoningMessageStart, func() *Violation {
			return f.msgStart(reasoningMsgs, l.ID, nil, nil, lane, e.Metadata)
		}); err != nil {
			return err
		}
		f.writeScope().Lanes = f.st.Cold.RunScope.Lanes.Set(lane.Key(), l)
		opened = true
	}
	if delta, ok := chunk.Delta(e.Delta, &e.Base, opened); ok {
		return f.as(event.TypeReasoningMessageContent, func() *Violation {
			return f.msgContent(reasoningMsgs, l.ID, delta, lane, e.Metadata)
		})
	}
	return nil
}

func roleOr(r *event.Role, def event.Role) event.Role {
	if r == nil {
		return def
	}
	return *r
}

func cloneRole(r *event.Role) *event.Role {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}
