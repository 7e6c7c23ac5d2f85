package reducer

import (
	"slices"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/internal/persist"
)

// Chunk expansion (PROTOCOL.md §4, G9). Each owner has one lane holding at
// most one pending chunk stream; chunks expand into START/CONTENT/END events
// that are verified and folded like explicit ones.

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

// closeLane ends the pending chunk stream of owner o, if any, by folding the
// END the reference synthesises (tagged like the stream's opener).
func (f *folder) closeLane(o model.Owner) *Violation {
	if f.st.C.Scope.Lanes.Len() == 0 {
		return nil
	}
	l, ok := f.st.C.Scope.Lanes.Get(o.Key())
	if !ok {
		return nil
	}
	f.c().Scope.Lanes = f.st.C.Scope.Lanes.Delete(o.Key())
	switch l.Kind {
	case model.LaneTool:
		return f.as(event.TypeToolCallEnd, func() *Violation { return f.toolEnd(l.ID, l.Owner, nil) })
	case model.LaneReasoning:
		return f.as(event.TypeReasoningMessageEnd, func() *Violation { return f.reasoningMsgEnd(l.ID, l.Owner, nil) })
	default:
		return f.as(event.TypeTextMessageEnd, func() *Violation { return f.textEnd(l.ID, l.Owner, nil) })
	}
}

// closeAllLanes ends every pending chunk stream (before RUN_FINISHED,
// RUN_ERROR, RUN_STARTED and MESSAGES_SNAPSHOT), in a deterministic order.
func (f *folder) closeAllLanes() *Violation {
	lanes := f.st.C.Scope.Lanes
	if lanes.Len() == 0 {
		return nil
	}
	keys := make([]string, 0, lanes.Len())
	for k := range lanes.Keys() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		l, _ := lanes.Get(k)
		if err := f.closeLane(l.Owner); err != nil {
			return err
		}
	}
	return nil
}

// resolveLane finds the lane a chunk of kind k belongs to (§4 resolveLane).
func (f *folder) resolveLane(k model.LaneKind, id *string, tag model.Owner, idField string) (model.Owner, *Violation) {
	lanes := f.st.C.Scope.Lanes
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
		return found, nil
	case n > 1:
		return model.Owner{}, f.violation(ruleChunk,
			"ambiguous %s: it carries neither a %s nor a subagentRunId, but %d lanes have an open %s; attribute the chunk to the subagent it belongs to",
			f.wire, idField, n, laneKindName(k))
	}
	return model.Parent, nil
}

// pendingDelta reports whether a chunk emits CONTENT/ARGS: it carries a delta
// or a rawEvent, or it opened nothing and carries metadata that must land.
func pendingDelta(delta *string, b *event.Base, opened bool) (string, bool) {
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

func (f *folder) textChunk(e *event.TextMessageChunk, tag model.Owner) *Violation {
	lane, err := f.resolveLane(model.LaneText, e.MessageID, tag, "messageId")
	if err != nil {
		return err
	}
	l, pending := f.st.C.Scope.Lanes.Get(lane.Key())
	opened := false
	if pending && l.Kind == model.LaneText && (e.MessageID == nil || *e.MessageID == l.ID) {
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
			return f.textStart(l.ID, role, e.Name, lane, e.Metadata)
		}); err != nil {
			return err
		}
		f.c().Scope.Lanes = f.st.C.Scope.Lanes.Set(lane.Key(), l)
		opened = true
	}
	if delta, ok := pendingDelta(e.Delta, &e.Base, opened); ok {
		return f.as(event.TypeTextMessageContent, func() *Violation {
			return f.textContent(l.ID, delta, lane, e.Metadata)
		})
	}
	return nil
}

func (f *folder) toolChunk(e *event.ToolCallChunk, tag model.Owner) *Violation {
	lane, err := f.resolveLane(model.LaneTool, e.ToolCallID, tag, "toolCallId")
	if err != nil {
		return err
	}
	l, pending := f.st.C.Scope.Lanes.Get(lane.Key())
	opened := false
	if pending && l.Kind == model.LaneTool && (e.ToolCallID == nil || *e.ToolCallID == l.ID) {
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
		f.c().Scope.Lanes = f.st.C.Scope.Lanes.Set(lane.Key(), l)
		opened = true
	}
	if delta, ok := pendingDelta(e.Delta, &e.Base, opened); ok {
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
	l, pending := f.st.C.Scope.Lanes.Get(lane.Key())
	opened := false
	if !(pending && l.Kind == model.LaneReasoning && (e.MessageID == nil || *e.MessageID == l.ID)) {
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
			return f.reasoningMsgStart(l.ID, lane, e.Metadata)
		}); err != nil {
			return err
		}
		f.c().Scope.Lanes = f.st.C.Scope.Lanes.Set(lane.Key(), l)
		opened = true
	}
	if delta, ok := pendingDelta(e.Delta, &e.Base, opened); ok {
		return f.as(event.TypeReasoningMessageContent, func() *Violation {
			return f.reasoningMsgContent(l.ID, delta, lane, e.Metadata)
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
