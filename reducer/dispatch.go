package reducer

import (
	"fmt"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
)

// event verifies and folds one wire event.
func (f *folder) event(e event.Event) *Violation {
	t := e.EventType()
	if err := f.phase(t); err != nil {
		return err
	}
	tag := tagOf(e)
	if (t.Attributable() || t.Deprecated()) && tag.Sub {
		// R7 bookkeeping, and the unannounced node attribution alone makes (R11).
		if _, seen := f.st.Cold.RunScope.Attributed.Get(tag.ID); !seen {
			sc := f.writeScope()
			sc.Attributed = sc.Attributed.Set(tag.ID, struct{}{})
			k := f.invFor(tag)
			switch d := f.peek(k); {
			case !d.Info.Announced:
				// Attribution alone is valid (R11), but a producer that can
				// report the lifecycle should (R12): a warning for
				// producer authors, once per invocation and run.
				f.warn("R12", "subagent '%s' has not been announced: events are attributed to it without a SUBAGENT_STARTED; a producer that can report the lifecycle should announce it (and close it with SUBAGENT_FINISHED or SUBAGENT_ERROR)", tag.ID)
				if d.Status == model.InvAbandoned {
					// Seen only through attribution, abandoned by an earlier
					// run's error, and attributed again: no longer abandoned.
					f.node(k).Status = model.InvUnannounced
				}
			case d.Status == model.InvSuspended && d.Info.Run < f.runIndex():
				// Suspended in an earlier run and continued by attributed
				// events alone, without a new SUBAGENT_STARTED (G10):
				// running again, until the run ends (settleContinued).
				f.node(k).Status = model.InvRunning
				info := f.info(k)
				info.Outcome, info.Result, info.Err = nil, nil, nil
			}
		}
	}
	meta := e.Common().Metadata
	switch e := e.(type) {
	case *event.RunStarted:
		return f.runStarted(e)
	case *event.RunFinished:
		return f.runFinished(e)
	case *event.RunError:
		return f.runError(e)

	case *event.StepStarted:
		if err := f.closeLane(tag); err != nil {
			return err
		}
		return f.stepStarted(e.StepName, tag)
	case *event.StepFinished:
		if err := f.closeLane(tag); err != nil {
			return err
		}
		return f.stepFinished(e.StepName, tag)

	case *event.TextMessageStart:
		if err := f.closeLane(tag); err != nil {
			return err
		}
		return f.msgStart(textMsgs, e.MessageID, e.Role, e.Name, tag, meta)
	case *event.TextMessageContent:
		if err := f.closeOwnLane(tag, model.LaneText, e.MessageID); err != nil {
			return err
		}
		return f.msgContent(textMsgs, e.MessageID, e.Delta, tag, meta)
	case *event.TextMessageEnd:
		if err := f.closeOwnLane(tag, model.LaneText, e.MessageID); err != nil {
			return err
		}
		return f.msgEnd(textMsgs, e.MessageID, tag, meta)
	case *event.TextMessageChunk:
		return f.textChunk(e, tag)

	case *event.ToolCallStart:
		if err := f.closeLane(tag); err != nil {
			return err
		}
		return f.toolStart(e.ToolCallID, e.ToolCallName, e.ParentMessageID, tag, meta)
	case *event.ToolCallArgs:
		if err := f.closeOwnLane(tag, model.LaneTool, e.ToolCallID); err != nil {
			return err
		}
		return f.toolArgs(e.ToolCallID, e.Delta, tag, meta)
	case *event.ToolCallEnd:
		if err := f.closeOwnLane(tag, model.LaneTool, e.ToolCallID); err != nil {
			return err
		}
		return f.toolEnd(e.ToolCallID, tag, meta)
	case *event.ToolCallChunk:
		return f.toolChunk(e, tag)
	case *event.ToolCallResult:
		if err := f.closeLane(tag); err != nil {
			return err
		}
		return f.toolResult(e, tag)

	case *event.StateSnapshot:
		if err := f.closeLane(tag); err != nil {
			return err
		}
		return f.stateSnapshot(e, tag)
	case *event.StateDelta:
		if err := f.closeLane(tag); err != nil {
			return err
		}
		return f.stateDelta(e, tag)
	case *event.MessagesSnapshot:
		if err := f.closeAllLanes(); err != nil {
			return err
		}
		return f.messagesSnapshot(e)
	case *event.ActivitySnapshot:
		return f.activitySnapshot(e, tag)
	case *event.ActivityDelta:
		return f.activityDelta(e, tag)

	case *event.Raw:
		return nil
	case *event.Custom:
		return f.closeLane(tag)

	case *event.ReasoningStart:
		if err := f.closeLane(tag); err != nil {
			return err
		}
		return f.reasoningStart(e.MessageID, tag)
	case *event.ReasoningMessageStart:
		if err := f.closeLane(tag); err != nil {
			return err
		}
		return f.msgStart(reasoningMsgs, e.MessageID, nil, nil, tag, meta)
	case *event.ReasoningMessageContent:
		if err := f.closeOwnLane(tag, model.LaneReasoning, e.MessageID); err != nil {
			return err
		}
		return f.msgContent(reasoningMsgs, e.MessageID, e.Delta, tag, meta)
	case *event.ReasoningMessageEnd:
		if err := f.closeOwnLane(tag, model.LaneReasoning, e.MessageID); err != nil {
			return err
		}
		return f.msgEnd(reasoningMsgs, e.MessageID, tag, meta)
	case *event.ReasoningMessageChunk:
		return f.reasoningChunk(e, tag)
	case *event.ReasoningEnd:
		if err := f.closeLane(tag); err != nil {
			return err
		}
		return f.reasoningEnd(e.MessageID, tag)
	case *event.ReasoningEncryptedValue:
		return f.encryptedValue(e, tag)

	case *event.SubagentStarted:
		return f.subagentStarted(e)
	case *event.SubagentFinished:
		if err := f.closeLane(model.Owner{Sub: true, ID: e.ID}); err != nil {
			return err
		}
		return f.subagentFinished(e)
	case *event.SubagentError:
		if err := f.closeLane(model.Owner{Sub: true, ID: e.ID}); err != nil {
			return err
		}
		return f.subagentError(e)

	case *event.ThinkingStart, *event.ThinkingEnd, *event.ThinkingTextMessageStart,
		*event.ThinkingTextMessageContent, *event.ThinkingTextMessageEnd:
		if err := f.closeLane(tag); err != nil {
			return err
		}
		return f.thinking(e, tag)
	}
	return f.violation(event.RuleSchema, "event type %s cannot be folded", t)
}

// phase checks an event type against the run lifecycle (V1–V4).
func (f *folder) phase(t event.Type) *Violation {
	switch f.st.Cold.Rest.Phase {
	case model.PhaseNone:
		if t != event.TypeRunStarted && t != event.TypeRunError {
			return f.violation("V1", "the first event must be RUN_STARTED (or RUN_ERROR), not %s", t)
		}
	case model.PhaseActive:
		if t == event.TypeRunStarted {
			return f.violation("V4", "RUN_STARTED while run %s is still running; finish it with RUN_FINISHED (or RUN_ERROR) first", f.runName())
		}
	case model.PhaseFinished:
		if t != event.TypeRunStarted && t != event.TypeRunError {
			return f.violation("V2", "%s after run %s finished with RUN_FINISHED; start a new run with RUN_STARTED", t, f.runName())
		}
	case model.PhaseErrored:
		if t != event.TypeRunStarted {
			return f.violation("V3", "%s after run %s ended with an error; only RUN_STARTED may follow", t, f.runName())
		}
	}
	return nil
}

// thinking translates a deprecated THINKING_* event into REASONING_* as the
// reference's compatibility boundary does (docs/protocol.md §3.8), minting ids
// from the event index so that folding stays deterministic. The event's tag
// goes to its translation and is verified like any tag (G22).
func (f *folder) thinking(e event.Event, tag model.Owner) *Violation {
	th := &f.writeRest().Thinking
	mint := fmt.Sprintf("agview-thinking-%d", f.index)
	switch e := e.(type) {
	case *event.ThinkingStart:
		th.Span, th.SpanSet = mint, true
		f.warn("G2", "deprecated THINKING_START translated to REASONING_START (messageId %q)", mint)
		return f.as(event.TypeReasoningStart, func() *Violation { return f.reasoningStart(mint, tag) })
	case *event.ThinkingEnd:
		if !th.SpanSet {
			return f.violation("V12", "THINKING_END without a thinking step in progress; send THINKING_START first")
		}
		id := th.Span
		th.Span, th.SpanSet = "", false
		f.warn("G2", "deprecated THINKING_END translated to REASONING_END (messageId %q)", id)
		return f.as(event.TypeReasoningEnd, func() *Violation { return f.reasoningEnd(id, tag) })
	case *event.ThinkingTextMessageStart:
		th.Msg, th.MsgSet = mint, true
		f.warn("G2", "deprecated THINKING_TEXT_MESSAGE_START translated to REASONING_MESSAGE_START (messageId %q)", mint)
		return f.as(event.TypeReasoningMessageStart, func() *Violation { return f.msgStart(reasoningMsgs, mint, nil, nil, tag, e.Metadata) })
	case *event.ThinkingTextMessageContent:
		if !th.MsgSet {
			return f.violation("V13", "THINKING_TEXT_MESSAGE_CONTENT without a thinking message in progress; send THINKING_TEXT_MESSAGE_START first")
		}
		id := th.Msg
		f.warn("G2", "deprecated THINKING_TEXT_MESSAGE_CONTENT translated to REASONING_MESSAGE_CONTENT (messageId %q)", id)
		return f.as(event.TypeReasoningMessageContent, func() *Violation { return f.msgContent(reasoningMsgs, id, e.Delta, tag, e.Metadata) })
	case *event.ThinkingTextMessageEnd:
		if !th.MsgSet {
			return f.violation("V13", "THINKING_TEXT_MESSAGE_END without a thinking message in progress; send THINKING_TEXT_MESSAGE_START first")
		}
		id := th.Msg
		th.Msg, th.MsgSet = "", false
		f.warn("G2", "deprecated THINKING_TEXT_MESSAGE_END translated to REASONING_MESSAGE_END (messageId %q)", id)
		return f.as(event.TypeReasoningMessageEnd, func() *Violation { return f.msgEnd(reasoningMsgs, id, tag, e.Metadata) })
	}
	return nil
}
