package event

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/agview/agview/internal/wire"
)

// Roles TEXT_MESSAGE_START and TEXT_MESSAGE_CHUNK accept (docs/protocol.md §3.2).
var textRoles = []string{string(RoleDeveloper), string(RoleSystem), string(RoleAssistant), string(RoleUser)}

// decodeBody decodes the members of an event of known type t.
func decodeBody(t Type, o *object) Event {
	switch t {
	case TypeRunStarted:
		e := &RunStarted{}
		o.base(&e.Base)
		o.dropTag()
		e.ThreadID = o.reqString("threadId")
		e.RunID = o.reqString("runId")
		e.ProtocolVersion = o.optString("protocolVersion")
		e.ParentRunID = o.optString("parentRunId")
		if raw := o.raw("input", false, kindObject, nullRefused); raw != nil {
			e.Input = decodeInput(o.child(o.at("input"), raw))
		}
		return e
	case TypeRunFinished:
		e := &RunFinished{}
		o.base(&e.Base)
		o.dropTag()
		e.ThreadID = o.reqString("threadId")
		e.RunID = o.reqString("runId")
		e.Result = o.raw("result", false, kindAny, nullLegacy)
		e.Outcome = decodeRunOutcome(o)
		e.Usage = decodeUsage(o)
		return e
	case TypeRunError:
		e := &RunError{}
		o.base(&e.Base)
		o.dropTag()
		e.Message = o.reqString("message")
		e.Code = o.optString("code")
		e.Usage = decodeUsage(o)
		return e
	case TypeStepStarted:
		e := &StepStarted{}
		o.attributed(&e.Base, &e.Attribution)
		e.StepName = o.reqString("stepName")
		return e
	case TypeStepFinished:
		e := &StepFinished{}
		o.attributed(&e.Base, &e.Attribution)
		e.StepName = o.reqString("stepName")
		return e

	case TypeTextMessageStart:
		e := &TextMessageStart{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.reqString("messageId")
		e.Role = o.optRole("role", textRoles...)
		e.Name = o.optString("name")
		return e
	case TypeTextMessageContent:
		e := &TextMessageContent{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.reqString("messageId")
		e.Delta = o.reqString("delta")
		return e
	case TypeTextMessageEnd:
		e := &TextMessageEnd{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.reqString("messageId")
		return e
	case TypeTextMessageChunk:
		e := &TextMessageChunk{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.optString("messageId")
		e.Role = o.optRole("role", textRoles...)
		e.Delta = o.optString("delta")
		e.Name = o.optString("name")
		return e

	case TypeToolCallStart:
		e := &ToolCallStart{}
		o.attributed(&e.Base, &e.Attribution)
		e.ToolCallID = o.reqString("toolCallId")
		e.ToolCallName = o.reqString("toolCallName")
		e.ParentMessageID = o.legacyString("parentMessageId")
		return e
	case TypeToolCallArgs:
		e := &ToolCallArgs{}
		o.attributed(&e.Base, &e.Attribution)
		e.ToolCallID = o.reqString("toolCallId")
		e.Delta = o.reqString("delta")
		return e
	case TypeToolCallEnd:
		e := &ToolCallEnd{}
		o.attributed(&e.Base, &e.Attribution)
		e.ToolCallID = o.reqString("toolCallId")
		return e
	case TypeToolCallChunk:
		e := &ToolCallChunk{}
		o.attributed(&e.Base, &e.Attribution)
		e.ToolCallID = o.optString("toolCallId")
		e.ToolCallName = o.optString("toolCallName")
		e.ParentMessageID = o.legacyString("parentMessageId")
		e.Delta = o.optString("delta")
		return e
	case TypeToolCallResult:
		e := &ToolCallResult{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.reqString("messageId")
		e.ToolCallID = o.reqString("toolCallId")
		e.Content = decodeContent(o, "content", true, true)
		e.Role = o.optRole("role", string(RoleTool))
		return e

	case TypeStateSnapshot:
		e := &StateSnapshot{}
		o.attributed(&e.Base, &e.Attribution)
		e.Snapshot = o.raw("snapshot", true, kindAny, nullValue)
		return e
	case TypeStateDelta:
		e := &StateDelta{}
		o.attributed(&e.Base, &e.Attribution)
		e.Delta = o.raw("delta", true, kindArray, nullRefused)
		o.patchOps("delta", e.Delta)
		return e
	case TypeMessagesSnapshot:
		e := &MessagesSnapshot{}
		o.base(&e.Base)
		o.dropTag()
		e.Messages = decodeMessages(o, "messages")
		return e
	case TypeActivitySnapshot:
		e := &ActivitySnapshot{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.reqString("messageId")
		e.ActivityType = o.reqString("activityType")
		e.Content = o.raw("content", true, kindObject, nullRefused)
		e.Replace = o.optBool("replace")
		return e
	case TypeActivityDelta:
		e := &ActivityDelta{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.reqString("messageId")
		e.ActivityType = o.reqString("activityType")
		e.Patch = o.raw("patch", true, kindArray, nullRefused)
		o.patchOps("patch", e.Patch)
		return e

	case TypeRaw:
		e := &Raw{}
		o.attributed(&e.Base, &e.Attribution)
		e.Event = o.raw("event", true, kindAny, nullValue)
		e.Source = o.optString("source")
		return e
	case TypeCustom:
		e := &Custom{}
		o.attributed(&e.Base, &e.Attribution)
		e.Name = o.reqString("name")
		e.Value = o.raw("value", true, kindAny, nullValue)
		return e

	case TypeReasoningStart:
		e := &ReasoningStart{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.reqString("messageId")
		return e
	case TypeReasoningMessageStart:
		e := &ReasoningMessageStart{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.reqString("messageId")
		r, _ := o.enum("role", true, string(RoleReasoning))
		e.Role = Role(r)
		return e
	case TypeReasoningMessageContent:
		e := &ReasoningMessageContent{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.reqString("messageId")
		e.Delta = o.reqString("delta")
		return e
	case TypeReasoningMessageEnd:
		e := &ReasoningMessageEnd{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.reqString("messageId")
		return e
	case TypeReasoningMessageChunk:
		e := &ReasoningMessageChunk{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.optString("messageId")
		e.Delta = o.optString("delta")
		return e
	case TypeReasoningEnd:
		e := &ReasoningEnd{}
		o.attributed(&e.Base, &e.Attribution)
		e.MessageID = o.reqString("messageId")
		return e
	case TypeReasoningEncryptedValue:
		e := &ReasoningEncryptedValue{}
		o.attributed(&e.Base, &e.Attribution)
		e.Subtype, _ = o.enum("subtype", true, EncryptedToolCall, EncryptedMessage)
		e.EntityID = o.reqString("entityId")
		e.EncryptedValue = o.reqString("encryptedValue")
		return e

	case TypeSubagentStarted:
		e := &SubagentStarted{}
		o.base(&e.Base)
		e.ID = o.lifecycleID()
		lc := o.with(RuleLifecycleRequired, RuleLifecycleNull)
		e.Name = lc.reqString("name")
		e.Description = lc.optString("description")
		e.ParentSubagentRunID = lc.optString("parentSubagentRunId")
		e.ParentToolCallID = lc.optString("parentToolCallId")
		e.ParentMessageID = lc.optString("parentMessageId")
		return e
	case TypeSubagentFinished:
		e := &SubagentFinished{}
		o.base(&e.Base)
		e.ID = o.lifecycleID()
		e.Result = o.raw("result", false, kindAny, nullLegacy)
		e.Outcome = decodeSubagentOutcome(o)
		return e
	case TypeSubagentError:
		e := &SubagentError{}
		o.base(&e.Base)
		e.ID = o.lifecycleID()
		lc := o.with(RuleLifecycleRequired, RuleLifecycleNull)
		e.Message = lc.reqString("message")
		e.Code = lc.optString("code")
		return e

	case TypeThinkingStart:
		e := &ThinkingStart{}
		o.deprecated(&e.Base, &e.Attribution)
		e.Title = o.optString("title")
		return e
	case TypeThinkingEnd:
		e := &ThinkingEnd{}
		o.deprecated(&e.Base, &e.Attribution)
		return e
	case TypeThinkingTextMessageStart:
		e := &ThinkingTextMessageStart{}
		o.deprecated(&e.Base, &e.Attribution)
		return e
	case TypeThinkingTextMessageContent:
		e := &ThinkingTextMessageContent{}
		o.deprecated(&e.Base, &e.Attribution)
		e.Delta = o.reqString("delta")
		return e
	case TypeThinkingTextMessageEnd:
		e := &ThinkingTextMessageEnd{}
		o.deprecated(&e.Base, &e.Attribution)
		return e
	}
	panic("event: no decoder for known type " + string(t))
}

// attributed reads the base fields and the attribution tag.
func (o *object) attributed(b *Base, a *Attribution) {
	o.base(b)
	a.Subagent = o.tag()
}

// deprecated reads the base fields and the tag of a THINKING_* event, which
// its REASONING_* translation carries (G22), and warns.
func (o *object) deprecated(b *Base, a *Attribution) {
	o.attributed(b, a)
	o.d.warn("", WarnDeprecated, fmt.Sprintf("%s is deprecated; it stands for the REASONING_* event the reducer translates it to", o.d.typ))
}

// patchOps checks the operations of the JSON Patch raw, member name (G8):
// each is an object; one whose op is one of the six of RFC 6902 has a
// "path" that is a string holding a JSON pointer, a "from" likewise for move
// and copy, and a "value" for add, replace and test. An operation with
// another op, or none, is left for the patch to remove with a warning (G2),
// and unknown members of an operation are kept, as RFC 6902 says.
func (o *object) patchOps(name string, raw json.RawMessage) {
	if raw == nil {
		return
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		o.d.fail(o.at(name), RuleSchema, "want an array of operations")
		return
	}
	for i, el := range elems {
		ptr := o.at(name) + "/" + strconv.Itoa(i)
		if k := kindOf(el); k != kindObject {
			o.d.fail(ptr, RuleSchema, "a JSON Patch operation is an object, got "+k.String())
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(el, &m); err != nil {
			o.d.fail(ptr, RuleSchema, "a JSON Patch operation is an object")
			return
		}
		// Not registered with the decoding: an operation keeps its unknown members.
		op := &object{d: o.d, ptr: ptr, m: m}
		op.seen = &op.own
		var kind string
		if t, ok := m["op"]; ok && kindOf(t) == kindString {
			kind = unquote(t)
		}
		switch kind {
		case "add", "remove", "replace", "move", "copy", "test":
		default:
			continue
		}
		if !op.pointer("path") {
			return
		}
		if (kind == "move" || kind == "copy") && !op.pointer("from") {
			return
		}
		if kind == "add" || kind == "replace" || kind == "test" {
			if _, ok := m["value"]; !ok {
				o.d.fail(op.at("value"), RuleSchema, "required field is missing; a "+kind+" operation needs a value")
				return
			}
		}
	}
}

// pointer checks that member name of a patch operation is a string holding
// a JSON pointer (RFC 6901: "" or "/…", each "~" followed by "0" or "1").
func (o *object) pointer(name string) bool {
	s, ok := o.str(name, true, nullRefused)
	if !ok {
		return false
	}
	if reason := wire.BadPointer(s); reason != "" {
		o.d.fail(o.at(name), RuleSchema, fmt.Sprintf("%q is not a JSON pointer: %s", s, reason))
		return false
	}
	return true
}

// decodeRunOutcome reads RUN_FINISHED.outcome. An outcome whose type is not
// one of "success", "interrupt", "cancelled" (missing and null included) is
// an unknown union member: removed with a warning, so the run reads as a
// success (E2; the reference does the same).
func decodeRunOutcome(o *object) *RunFinishedOutcome {
	raw := o.raw("outcome", false, kindObject, nullLegacy)
	if raw == nil {
		return nil
	}
	c := o.child(o.at("outcome"), raw)
	var typ string
	if t, ok := c.get("type"); ok && kindOf(t) == kindString {
		typ = unquote(t)
	}
	out := &RunFinishedOutcome{Type: typ}
	switch typ {
	case OutcomeSuccess:
		out.PendingToolCallIDs = c.strings("pendingToolCallIds", false, RuleSchema)
	case OutcomeInterrupt:
		out.Interrupts = []Interrupt{}
		if c.objects("interrupts", true, func(_ int, e *object) {
			out.Interrupts = append(out.Interrupts, decodeInterrupt(e))
		}) && len(out.Interrupts) == 0 {
			c.d.fail(c.at("interrupts"), RuleSchema, "an interrupt outcome needs at least one interrupt")
		}
	case OutcomeCancelled:
	default:
		what := "has no type"
		if t, ok := c.get("type"); ok {
			what = "has type " + string(t)
		}
		c.seen.removed = true
		o.d.warn(c.ptr, WarnUnknownMaterial, "outcome "+what+", which is not success, interrupt or cancelled; removed, so the run reads as a success")
		return nil
	}
	return out
}

// decodeSubagentOutcome reads SUBAGENT_FINISHED.outcome. Its type is kept as
// given ("" when missing or null): the reducer rejects what R14 forbids.
func decodeSubagentOutcome(o *object) *SubagentOutcome {
	lc := o.with(RuleSchema, RuleLifecycleNull)
	raw := lc.raw("outcome", false, kindObject, nullRefused)
	if raw == nil {
		return nil
	}
	c := o.child(o.at("outcome"), raw).with(RuleSchema, RuleLifecycleNull)
	out := &SubagentOutcome{}
	if t, ok := c.get("type"); ok && kindOf(t) != kindNull {
		if k := kindOf(t); k != kindString {
			c.wrongKind(c.at("type"), kindString, k, RuleSchema)
			return nil
		}
		out.Type = unquote(t)
	}
	out.InterruptIDs = c.strings("interruptIds", false, RuleLifecycleNull)
	return out
}

func decodeInterrupt(o *object) Interrupt {
	return Interrupt{
		ID:             o.reqString("id"),
		Reason:         o.reqString("reason"),
		Message:        o.optString("message"),
		ToolCallID:     o.optString("toolCallId"),
		ResponseSchema: o.raw("responseSchema", false, kindObject, nullRefused),
		ExpiresAt:      o.optString("expiresAt"),
		Metadata:       o.raw("metadata", false, kindObject, nullRefused),
		Subagent:       o.tag(),
	}
}

func decodeUsage(o *object) []TokenUsage {
	var out []TokenUsage
	if !o.objects("usage", false, func(_ int, e *object) {
		out = append(out, TokenUsage{
			Provider:              e.optString("provider"),
			Model:                 e.optString("model"),
			InputTokens:           e.integer("inputTokens", true),
			OutputTokens:          e.integer("outputTokens", true),
			TotalTokens:           e.integer("totalTokens", true),
			ReasoningTokens:       e.integer("reasoningTokens", true),
			CachedInputTokens:     e.integer("cachedInputTokens", true),
			CacheWriteInputTokens: e.integer("cacheWriteInputTokens", true),
		})
	}) {
		return nil
	}
	if out == nil {
		out = []TokenUsage{}
	}
	return out
}

// decodeInput reads RUN_STARTED.input (RunAgentInput, §3.9). A null state,
// forwardedProps, Tool.parameters or ResumeEntry.payload is a legacy null read
// as absent (E4). An empty tools or context list decodes as nil, the same as
// an absent one (both encode as []).
func decodeInput(o *object) *RunAgentInput {
	in := &RunAgentInput{
		ThreadID:        o.reqString("threadId"),
		RunID:           o.reqString("runId"),
		ParentRunID:     o.optString("parentRunId"),
		ProtocolVersion: o.optString("protocolVersion"),
		State:           o.raw("state", false, kindAny, nullLegacy),
		Messages:        decodeMessages(o, "messages"),
		ForwardedProps:  o.raw("forwardedProps", false, kindAny, nullLegacy),
	}
	o.objects("tools", false, func(_ int, e *object) {
		in.Tools = append(in.Tools, Tool{
			Name:        e.reqString("name"),
			Description: e.reqString("description"),
			Parameters:  e.raw("parameters", false, kindAny, nullLegacy),
			Metadata:    e.raw("metadata", false, kindObject, nullRefused),
		})
	})
	o.objects("context", false, func(_ int, e *object) {
		in.Context = append(in.Context, Context{
			Description: e.reqString("description"),
			Value:       e.reqString("value"),
		})
	})
	if o.objects("resume", false, func(_ int, e *object) {
		status, _ := e.enum("status", true, ResumeResolved, ResumeCancelled)
		in.Resume = append(in.Resume, ResumeEntry{
			InterruptID: e.reqString("interruptId"),
			Status:      status,
			Payload:     e.raw("payload", false, kindAny, nullLegacy),
			Metadata:    e.raw("metadata", false, kindObject, nullRefused),
		})
	}) && in.Resume == nil {
		in.Resume = []ResumeEntry{}
	}
	return in
}

// decodeMessages reads a required array of messages. A message of unknown
// role is removed with a warning (E2); the pointers of the others keep their
// index in the input.
func decodeMessages(o *object, name string) []Message {
	out := []Message{}
	o.objects(name, true, func(_ int, e *object) {
		if m, ok := decodeMessage(e); ok {
			out = append(out, m)
		}
	})
	return out
}

func knownRole(r string) bool {
	switch Role(r) {
	case RoleDeveloper, RoleSystem, RoleAssistant, RoleUser, RoleTool, RoleActivity, RoleReasoning:
		return true
	}
	return false
}

// decodeMessage reads one message; ok is false when its role is unknown and
// it was removed.
func decodeMessage(o *object) (Message, bool) {
	var role string
	raw, present := o.get("role")
	if present && kindOf(raw) == kindString {
		role = unquote(raw)
	}
	if !knownRole(role) {
		what := "has no role"
		if present {
			what = "has role " + string(raw)
		}
		o.seen.removed = true
		o.d.warn(o.ptr, WarnUnknownMaterial, "message "+what+", which is not a known role; removed")
		return Message{}, false
	}
	m := Message{ID: o.reqString("id"), Role: Role(role)}
	switch m.Role {
	case RoleDeveloper, RoleSystem:
		m.Content = o.raw("content", true, kindString, nullRefused)
		m.Name = o.optString("name")
		m.EncryptedValue = o.optString("encryptedValue")
	case RoleAssistant:
		m.Content = o.raw("content", false, kindString, nullRefused)
		m.Name = o.optString("name")
		o.objects("toolCalls", false, func(_ int, e *object) {
			m.ToolCalls = append(m.ToolCalls, decodeToolCall(e))
		})
		if _, ok := o.get("toolCalls"); ok && m.ToolCalls == nil && o.d.err == nil {
			m.ToolCalls = []ToolCall{}
		}
		m.EncryptedValue = o.optString("encryptedValue")
	case RoleUser:
		m.Content = decodeContent(o, "content", true, false)
		m.Name = o.optString("name")
		m.EncryptedValue = o.optString("encryptedValue")
	case RoleTool:
		m.Content = decodeContent(o, "content", true, false)
		id := o.reqString("toolCallId")
		m.ToolCallID = &id
		m.Error = o.optString("error")
		m.EncryptedValue = o.optString("encryptedValue")
	case RoleActivity:
		at := o.reqString("activityType")
		m.ActivityType = &at
		m.Content = o.raw("content", true, kindObject, nullRefused)
	case RoleReasoning:
		m.Content = o.raw("content", true, kindString, nullRefused)
		m.EncryptedValue = o.optString("encryptedValue")
	}
	m.Subagent = o.tag()
	m.Metadata = o.raw("metadata", false, kindObject, nullRefused)
	return m, true
}

func decodeToolCall(o *object) ToolCall {
	tc := ToolCall{ID: o.reqString("id")}
	tc.Type, _ = o.enum("type", true, "function")
	if raw := o.raw("function", true, kindObject, nullRefused); raw != nil {
		f := o.child(o.at("function"), raw)
		tc.Function = FunctionCall{Name: f.reqString("name"), Arguments: f.reqString("arguments")}
	}
	tc.EncryptedValue = o.optString("encryptedValue")
	tc.Metadata = o.raw("metadata", false, kindObject, nullRefused)
	return tc
}

// decodeContent reads a content that is a string or an array of content
// parts. A string is kept verbatim; an array is rebuilt from its decoded
// parts (unknown members removed; a part of unknown type removed with a
// warning, E2). With toolResult, a media part whose source has a type that
// is unknown, missing or not a string is removed with a warning too, as the
// reference removes it from a tool result (G22).
func decodeContent(o *object, name string, required, toolResult bool) json.RawMessage {
	raw := o.raw(name, required, kindString|kindArray, nullRefused)
	if raw == nil || kindOf(raw) == kindString {
		return raw
	}
	parts := []ContentPart{}
	o.objects(name, true, func(_ int, e *object) {
		if p, ok := decodePart(e, toolResult); ok {
			parts = append(parts, p)
		}
	})
	if o.d.err != nil {
		return nil
	}
	w := &encoder{}
	w.b = append(w.b, '[')
	for i := range parts {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.contentPart(&parts[i])
	}
	w.b = append(w.b, ']')
	return w.b
}

// isMedia reports whether a content part type is a media part (§3.9).
func isMedia(typ string) bool {
	return typ == "image" || typ == "audio" || typ == "video" || typ == "document"
}

func decodePart(o *object, toolResult bool) (ContentPart, bool) {
	var typ string
	raw, present := o.get("type")
	if present && kindOf(raw) == kindString {
		typ = unquote(raw)
	}
	switch {
	case typ == "text":
		return ContentPart{
			Type:     typ,
			Text:     Ptr(o.reqString("text")),
			ID:       o.optString("id"),
			Metadata: o.raw("metadata", false, kindObject, nullRefused),
		}, true
	case isMedia(typ):
		p := ContentPart{Type: typ, ID: o.optString("id")}
		if src := o.raw("source", true, kindObject, nullRefused); src != nil {
			c := o.child(o.at("source"), src)
			if t, ok := c.get("type"); toolResult && !knownSource(t, ok) {
				what := "has no type"
				if ok {
					what = "has type " + string(t)
				}
				o.seen.removed = true
				c.seen.removed = true
				o.d.warn(o.ptr, WarnUnknownMaterial, "media content part's source "+what+", which is not data, url or file; removed (G22)")
				return ContentPart{}, false
			}
			p.Source = decodeSource(c)
		}
		p.Metadata = o.raw("metadata", false, kindObject, nullLegacy)
		return p, true
	}
	what := "has no type"
	if present {
		what = "has type " + string(raw)
	}
	if typ == "binary" {
		what += " (the legacy binary part, which agview does not upgrade)"
	}
	o.seen.removed = true
	o.d.warn(o.ptr, WarnUnknownMaterial, "content part "+what+", which is not text, image, audio, video or document; removed")
	return ContentPart{}, false
}

// knownSource reports whether t, the type of a media part's source, is
// present, a string and one of data, url, file.
func knownSource(t json.RawMessage, present bool) bool {
	if !present || kindOf(t) != kindString {
		return false
	}
	switch unquote(t) {
	case "data", "url", "file":
		return true
	}
	return false
}

// decodeSource checks a media part's source and rebuilds it without unknown
// members: {type:"data", value, mimeType} | {type:"url", value, mimeType?} |
// {type:"file", value, provider?, mimeType?}.
func decodeSource(o *object) json.RawMessage {
	typ, ok := o.enum("type", true, "data", "url", "file")
	if !ok {
		return nil
	}
	w := &encoder{}
	w.open()
	w.str("type", typ)
	w.str("value", o.reqString("value"))
	switch typ {
	case "data":
		w.str("mimeType", o.reqString("mimeType"))
	case "url":
		w.optStr("mimeType", o.optString("mimeType"))
	case "file":
		w.optStr("provider", o.optString("provider"))
		w.optStr("mimeType", o.optString("mimeType"))
	}
	w.close()
	return w.b
}

// DecodeInput decodes a RunAgentInput, the body a client POSTs to start a
// run, with the checks Decode applies to RUN_STARTED.input, and returns what
// decoding tolerated as warnings (their Type is ""). Errors are *DecodeError
// with pointers relative to the input object.
func DecodeInput(data []byte) (*RunAgentInput, []Warning, error) {
	d := &decoding{data: data}
	m, err := d.split(`a RunAgentInput is {"threadId":…,"runId":…,"messages":[…]}`)
	if err != nil {
		return nil, nil, err
	}
	in := decodeInput(d.object("", m))
	if d.err != nil {
		return nil, nil, d.error()
	}
	d.unknownMembers()
	return in, d.warnings, nil
}
