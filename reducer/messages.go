package reducer

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/jsonstr"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/internal/persist"
	"github.com/agview/agview/internal/wire"
	"github.com/agview/agview/patch"
)

// Messages, tool calls, reasoning, activity and state: verification
// (docs/protocol.md V6–V13, R15–R18, R25–R27, G6–G8) and the reference client's
// apply semantics (§7).

const ruleApply = "G14" // warnings about the message projection

// ---------------------------------------------------------------------------
// Message placement

// msg returns the message with the given id in the list, and where it lives.
func (f *folder) msg(id string) (*model.Msg, model.Loc, bool) {
	r, _ := f.st.Cold.Msgs.Get(id)
	return f.msgAt(id, r)
}

// msgAt is msg given the id's record.
func (f *folder) msgAt(id string, r model.MsgRec) (*model.Msg, model.Loc, bool) {
	loc, ok := f.st.Cold.RecLoc(id, r)
	if !ok {
		return nil, loc, false
	}
	return f.peek(loc.Inv).MsgAt(loc.Pos), loc, true
}

// putMsg replaces the message at loc.
func (f *folder) putMsg(loc model.Loc, m *model.Msg) {
	f.inv(loc.Inv).SetMsg(loc.Pos, m)
}

// place stores m in the invocation its tag names and records where, and
// its owner when owner is not nil; when list is set, it puts it into the
// list after message *after, or at the end when after is nil (all in one
// record, see model.MsgRec). prev is m's id's record as the caller read it
// in this fold, nil when it did not.
func (f *folder) place(m *model.Msg, owner *model.OwnerRec, list bool, after *string, prev *model.MsgRec) model.Loc {
	key := f.invFor(tagOwner(m.Info().Tag))
	n := f.node(key)
	loc := model.Loc{Inv: key, Pos: n.AppendMsg(m)}
	if prev == nil {
		r, _ := f.st.Cold.Msgs.Get(m.ID)
		prev = &r
	}
	f.writeCold().PutMsg(m.ID, *prev, owner, loc, list, after, f.writeRest)
	return loc
}

// msgInfo returns the info of a new message with the given tag, name and
// metadata: a shared one when it has none or only a tag (see
// model.InvInfo.PlainMsg).
func (f *folder) msgInfo(tag model.Owner, name *string, meta json.RawMessage) *model.MsgInfo {
	if !tag.Sub || name != nil || meta != nil {
		return model.InfoOf(tag.Tag(), name, meta)
	}
	key := f.invFor(tag) // the node the message goes to (see place)
	if i := f.peek(key).Info.PlainMsg; i != nil {
		return i
	}
	inf := f.info(key)
	id := inf.ID
	inf.PlainMsg = &model.MsgInfo{Tag: &id}
	return inf.PlainMsg
}

// tagOf returns the subagentRunId a message owned by tag carries: nil for
// the parent agent, else the one the node's plain messages share (see
// msgInfo), so that a tagged message with an info of its own (a tool
// result's) costs no copy of it.
func (f *folder) tagOf(tag model.Owner) *string {
	if !tag.Sub {
		return nil
	}
	return f.msgInfo(tag, nil, nil).Tag
}

// appendMsg places m (with its owner, when owner is not nil) at the end
// of the list.
func (f *folder) appendMsg(m *model.Msg, owner *model.OwnerRec) model.Loc {
	return f.place(m, owner, true, nil, nil)
}

// at returns (a copy of) the message an open entry points at, and false when
// it left the list.
func (f *folder) at(id string, loc model.Loc, in bool) (model.Msg, bool) {
	if !in {
		return model.Msg{}, false
	}
	if m, ok := f.peek(loc.Inv).Msg(loc.Pos); ok && m.ID == id {
		return m, true
	}
	return model.Msg{}, false
}

// update stores the changed message c of the message at loc, moving it to
// another invocation when its tag changed, and returns where it lives.
func (f *folder) update(old *model.Msg, loc model.Loc, c *model.Msg) model.Loc {
	if tagOwner(old.Info().Tag) != tagOwner(c.Info().Tag) {
		f.unplace(loc)
		return f.place(c, nil, false, nil, nil)
	}
	f.putMsg(loc, c)
	return loc
}

// unplace leaves a hole where a message was in its invocation.
func (f *folder) unplace(loc model.Loc) {
	f.inv(loc.Inv).SetMsg(loc.Pos, nil)
}

func tagOwner(tag *string) model.Owner {
	if tag == nil {
		return model.Parent
	}
	return model.Owner{Sub: true, ID: *tag}
}

// content reads a message content: a JSON string becomes Text, anything
// else (an array of parts) is kept raw.
func content(raw json.RawMessage) (text persist.Text, isText bool, other json.RawMessage) {
	if len(raw) == 0 {
		return text, false, nil
	}
	if raw[0] == '"' {
		if s, ok := jsonString(raw); ok {
			return persist.TextOf(s), true, nil
		}
		if len(raw) >= 2 && json.Valid(raw) {
			// Exactly (G19): lone surrogates and bytes that are not UTF-8
			// are kept, where encoding/json would make them U+FFFD.
			return persist.TextOf(string(jsonstr.AppendUnquoted(nil, raw[1:len(raw)-1]))), true, nil
		}
	}
	return text, false, bytes.Clone(raw)
}

// jsonString returns the value of a JSON string literal, and false for
// anything else or a literal it leaves to content's slow path (invalid
// UTF-8 and \u escapes of surrogates).
func jsonString(raw []byte) (string, bool) {
	escaped, ok := scanString(raw)
	if !ok {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if !escaped {
		return string(body), true
	}
	b, ok := wire.AppendUnescaped(make([]byte, 0, len(body)), body)
	if !ok {
		return "", false
	}
	return string(b), true
}

// scanString checks that raw is a JSON string literal of valid UTF-8 and
// reports whether it has escapes: without any, the literal's body is its
// value.
func scanString(raw []byte) (escaped, ok bool) {
	n := len(raw)
	if n < 2 || raw[0] != '"' || raw[n-1] != '"' {
		return false, false
	}
	body := raw[1 : n-1]
	ascii := true
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c < 0x20 || c == '"':
			return false, false
		case c == '\\':
			if i+1 >= len(body) {
				return false, false
			}
			switch body[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+5 >= len(body) || !isHex4(body[i+2:i+6]) {
					return false, false
				}
				i += 5
			default:
				return false, false
			}
			escaped = true
		case c >= 0x80:
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(body) {
		return false, false
	}
	return escaped, true
}

// resultContent reads a tool result's content into what its tool message
// holds (see content) and what its call keeps: the content as sent, in its
// own bytes, which the message's text shares when the content is a JSON
// string without escapes (the text is then the literal's body).
func resultContent(raw json.RawMessage) (sent string, text persist.Text, isText bool, other json.RawMessage) {
	if escaped, ok := scanString(raw); ok && !escaped {
		sent = string(raw)
		return sent, persist.TextOf(sent[1 : len(sent)-1]), true, nil
	}
	text, isText, other = content(raw)
	return string(raw), text, isText, other
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Text and reasoning messages

// A msgKind is what tells the text message events from the reasoning
// message events (docs/protocol.md V6, V7, V13): one implementation of
// START, CONTENT and END serves both.
type msgKind struct {
	kind             model.Kind
	noun             string     // "text message"
	start, end       event.Type // the kind's START and END events
	ruleOpen         string     // the rule a START of an open message breaks
	ruleNone         string     // the rule a CONTENT or END of no open message breaks
	defaultRole      event.Role
	needsOwnerRecord func(rec model.OwnerRec, known bool) bool
}

var (
	textMsgs = &msgKind{
		kind: model.KindText, noun: "text message",
		start: event.TypeTextMessageStart, end: event.TypeTextMessageEnd,
		ruleOpen: "V6", ruleNone: "V7", defaultRole: event.RoleAssistant,
		needsOwnerRecord: func(_ model.OwnerRec, known bool) bool { return !known },
	}
	reasoningMsgs = &msgKind{
		kind: model.KindReasoning, noun: "reasoning message",
		start: event.TypeReasoningMessageStart, end: event.TypeReasoningMessageEnd,
		ruleOpen: "V13", ruleNone: "V13", defaultRole: event.RoleReasoning,
		needsOwnerRecord: func(rec model.OwnerRec, known bool) bool {
			return !known || rec.Kind != model.KindReasoning
		},
	}
)

// open returns the kind's open messages in the current run.
func (k *msgKind) open(c *model.Cold) persist.Map[model.Open] {
	if k == reasoningMsgs {
		return c.Open.Rsn
	}
	return c.Open.Text
}

// setOpen replaces the kind's open messages; c must be a private copy.
func (k *msgKind) setOpen(c *model.Cold, m persist.Map[model.Open]) {
	if k == reasoningMsgs {
		c.Open.Rsn = m
	} else {
		c.Open.Text = m
	}
}

// msgStart folds a TEXT_MESSAGE_START or REASONING_MESSAGE_START. name and
// role are the text message's (nil for reasoning).
func (f *folder) msgStart(k *msgKind, id string, role *event.Role, name *string, tag model.Owner, meta json.RawMessage) *Violation {
	if _, open := k.open(f.st.Cold).Get(id); open {
		return f.violation(k.ruleOpen, "%s '%s' is already in progress; end it with %s first", k.noun, id, k.end)
	}
	// One lookup of the id's record answers where the message is, who owns
	// it and what to record.
	idx, _ := f.st.Cold.Msgs.Get(id)
	m, loc, exists := f.msgAt(id, idx)
	if exists && m.Kind() != k.kind {
		return f.violation("A1", "%s for '%s', which names a %s; one id names one message of one kind", k.start, id, m.Kind())
	}
	rec, known := f.st.Cold.RecOwner(idx)
	owner := tag
	if o, ok := f.msgOwnerOf(k, id, rec, known); ok {
		if tag.Sub && tag != o {
			return f.violation("R16", "subagentRunId '%s' does not match the %s '%s' opener's subagent %s", tag.ID, k.noun, id, o.Quoted())
		}
		owner = o
	}
	var record *model.OwnerRec // the owner to record, when it must be
	if k.needsOwnerRecord(rec, known) {
		record = &model.OwnerRec{Owner: owner, Kind: k.kind}
	}
	if exists {
		if record != nil {
			f.writeCold().SetMsgOwner(id, *record, f.writeRest)
		}
		f.reopen(m, loc, meta)
	} else {
		r := k.defaultRole
		if role != nil {
			r = *role
		}
		// The id is a copy of its own: the decoder's string shares one
		// allocation with the event's other strings (role, tag, name),
		// which the view would otherwise keep for as long as the message.
		id = strings.Clone(id)
		m := model.NewMsg(id, r, f.msgInfo(tag, cloneStr(name), meta))
		m.HasText, m.Status = true, model.EntOpen
		loc = f.place(m, record, true, nil, &idx)
	}
	c := f.writeCold()
	k.setOpen(c, k.open(c).Set(id, model.Open{Owner: owner, Loc: loc, In: true}))
	return nil
}

// reopen marks an existing text or reasoning message open again, as it is
// (G16): a message without content (an assistant message a tool call
// created) gets none until a delta comes.
func (f *folder) reopen(m *model.Msg, loc model.Loc, meta json.RawMessage) {
	c := *m
	if meta != nil {
		c = *m.WithInfo()
		c.Info().SetMeta(c.Info().Meta().Merge(meta))
	}
	c.Status = model.EntOpen
	f.putMsg(loc, &c)
}

// appendText appends a streamed delta to the open text or reasoning message
// o, and reports false, having changed nothing, when o no longer points at
// a message of that id.
func (f *folder) appendText(id string, o model.Open, delta string, meta json.RawMessage) bool {
	loc := o.Loc
	var m *model.Msg
	var streaming bool
	if o.In {
		m, streaming = f.peek(loc.Inv).Stored(loc.Pos)
	}
	if m == nil || m.ID != id {
		return false
	}
	hasText := streaming || m.HasText
	if !hasText && m.HasDoc {
		f.warn(ruleApply, "message '%s' has a document for content; delta dropped", id)
		return true
	}
	if !hasText && m.Info().Raw() != nil {
		// G16: a delta into content parts replaces them with its text, as the
		// reference does.
		c := *m.WithInfo()
		x := c.Info().Extra()
		x.Raw, x.Meta = nil, x.Meta.Merge(meta)
		c.Info().SetExtra(x)
		c.Text, c.HasText = persist.TextOf(delta), true
		f.putMsg(loc, &c)
		return true
	}
	if delta == "" && meta == nil && hasText {
		return true
	}
	if meta == nil {
		f.inv(loc.Inv).AppendText(loc.Pos, delta)
		return true
	}
	c, _ := f.peek(loc.Inv).Msg(loc.Pos)
	info := *c.Info()
	info.SetMeta(info.Meta().Merge(meta))
	c.SetInfo(&info)
	c.HasText = true
	c.Text = c.Text.Append(delta)
	f.putMsg(loc, &c)
	return true
}

// msgContent folds a TEXT_MESSAGE_CONTENT or REASONING_MESSAGE_CONTENT.
func (f *folder) msgContent(k *msgKind, id, delta string, tag model.Owner, meta json.RawMessage) *Violation {
	o, open := f.openMsg(k, id)
	if !open {
		return f.violation(k.ruleNone, "no %s '%s' is in progress; send %s first", k.noun, id, k.start)
	}
	if v := f.ownerMismatch(k.noun, id, tag, o.Owner); v != nil {
		return v
	}
	if f.appendText(id, o, delta, meta) {
		return nil
	}
	if moved, ok := f.lookAgain(k, id, o); ok {
		c := f.writeCold()
		k.setOpen(c, k.open(c).Set(moved.id, moved.o))
		f.appendText(id, moved.o, delta, meta)
		return nil
	}
	f.warn(ruleApply, "message '%s' is no longer in the message list (a MESSAGES_SNAPSHOT removed it); delta dropped", id)
	return nil
}

// movedOpen is an open entry that lookAgain pointed at the message now
// holding its id, and that id as the view stores it.
type movedOpen struct {
	id string
	o  model.Open
}

// lookAgain looks the id of the open text or reasoning message o up again
// (G16): when o no longer points at a message of that id (a MESSAGES_SNAPSHOT
// dropped it) and a message of that id and kind is in the list again (a
// later TOOL_CALL_START created it as its parentMessageId), it returns o
// pointing there, as the reference, which finds a delta's message by its id,
// appends to it. It reports false when o still points at its message, or
// no message of that id and kind is in the list.
func (f *folder) lookAgain(k *msgKind, id string, o model.Open) (movedOpen, bool) {
	if o.In {
		if m, _ := f.peek(o.Loc.Inv).Stored(o.Loc.Pos); m != nil && m.ID == id {
			return movedOpen{}, false
		}
	}
	m, loc, ok := f.msg(id)
	if !ok || m.Kind() != k.kind {
		return movedOpen{}, false
	}
	o.Loc, o.In = loc, true
	return movedOpen{id: m.ID, o: o}, true
}

// msgEnd folds a TEXT_MESSAGE_END or REASONING_MESSAGE_END.
func (f *folder) msgEnd(k *msgKind, id string, tag model.Owner, meta json.RawMessage) *Violation {
	o, open := k.open(f.st.Cold).Get(id)
	if !open {
		return f.violation(k.ruleNone, "no %s '%s' is in progress; %s must come first", k.noun, id, k.start)
	}
	if v := f.ownerMismatch(k.noun, id, tag, o.Owner); v != nil {
		return v
	}
	if moved, ok := f.lookAgain(k, id, o); ok {
		o = moved.o
	}
	c := f.writeCold()
	k.setOpen(c, k.open(c).Delete(id))
	f.closeMsg(id, o, meta)
	return nil
}

// closeMsg marks the open text or reasoning message o closed and merges meta
// into it.
func (f *folder) closeMsg(id string, o model.Open, meta json.RawMessage) {
	c, ok := f.at(id, o.Loc, o.In)
	if !ok {
		return
	}
	if meta != nil {
		info := *c.Info()
		info.SetMeta(info.Meta().Merge(meta))
		c.SetInfo(&info)
	}
	c.Status = model.EntClosed
	// The text is complete: give back the room its buffer kept to grow.
	c.Text = c.Text.Compact()
	f.putMsg(o.Loc, &c)
}

// ---------------------------------------------------------------------------
// Tool calls

// call finds tool call id in the message holding it.
func (f *folder) call(id string) (holder *model.Msg, loc model.Loc, idx int, ok bool) {
	at, hint, found := f.st.Cold.CallHolder(id)
	if !found {
		return nil, loc, -1, false
	}
	holder, loc, found = f.msg(at)
	if !found {
		return nil, loc, -1, false
	}
	if i := holder.Calls().Find(id, hint); i >= 0 {
		return holder, loc, i, true
	}
	return nil, loc, -1, false
}

// changeCall replaces tool call idx of holder (at loc) with the result of fn
// on a copy. fn may change the call's own fields (arguments, status,
// result), not its info, which other calls may share: use changeCallInfo
// for that.
func (f *folder) changeCall(holder *model.Msg, loc model.Loc, idx int, fn func(*model.Call)) {
	c := *holder.Calls().At(idx)
	fn(&c)
	f.putCall(holder, loc, idx, &c)
}

// changeCallInfo is changeCall for the call's info.
func (f *folder) changeCallInfo(holder *model.Msg, loc model.Loc, idx int, fn func(*model.CallInfo)) {
	c := holder.Calls().At(idx).WithInfo()
	fn(c.Info)
	f.putCall(holder, loc, idx, c)
}

func (f *folder) putCall(holder *model.Msg, loc model.Loc, idx int, c *model.Call) {
	h := *holder
	h.SetCall(idx, c)
	f.putMsg(loc, &h)
}

func (f *folder) toolStart(id, name string, parentMsg *string, tag model.Owner, meta json.RawMessage) *Violation {
	if parentMsg != nil && *parentMsg == "" {
		// §7: an empty parentMessageId reads as absent, as the reference
		// reads it: the call's message is the one of the call's id.
		parentMsg = nil
	}
	if _, open := f.st.Cold.Open.Tool.Get(id); open {
		return f.violation("V8", "tool call '%s' is already in progress; end it with TOOL_CALL_END first", id)
	}
	rec, known := f.st.Cold.CallOwner(id)
	var pm model.OwnerRec
	pmKnown := false
	if parentMsg != nil {
		pm, pmKnown = f.st.Cold.MsgOwner(*parentMsg)
		// G16: R18 counts the owners the reference records (text openers, tool
		// results, history); an activity or reasoning message a stream event
		// opened has none, and the call goes to a new assistant message.
		if pmKnown && !pm.Replayed && (pm.Kind == model.KindActivity || pm.Kind == model.KindReasoning) {
			pmKnown = false
		}
	}
	var owner model.Owner
	switch {
	case tag.Sub:
		if known && rec != tag {
			return f.violation("R16", "subagentRunId '%s' does not match the tool call '%s' opener's subagent %s", tag.ID, id, rec.Quoted())
		}
		if pmKnown && pm.Owner != tag {
			return f.violation("R18", "subagentRunId '%s' does not match its parent message '%s' owner %s; a tool call belongs to the message that carries it",
				tag.ID, *parentMsg, pm.Owner.Quoted())
		}
		owner = tag
	case known:
		if pmKnown && pm.Owner != rec {
			return f.violation("R18", "tool call '%s' is owned by %s but its parent message '%s' is owned by %s; a tool call belongs to the message that carries it",
				id, rec.Quoted(), *parentMsg, pm.Owner.Quoted())
		}
		owner = rec
	case pmKnown:
		owner = pm.Owner
	default:
		owner = model.Parent
	}
	// The strings the view keeps are copies of their own (see msgStart).
	id = strings.Clone(id)
	var newOwner *model.Owner // the owner to record, when none is
	if !known {
		newOwner = &owner
	}
	open := func(loc model.Loc, idx int) {
		c := f.writeCold()
		c.Open.Tool = c.Open.Tool.Set(id, model.OpenCall{Owner: owner, Loc: loc, Idx: idx, Held: true})
	}
	if holder, loc, idx, ok := f.call(id); ok {
		// Reopening a call a message already holds: no duplicate (§7).
		c := holder.Calls().At(idx).WithInfo()
		if c.Name != name {
			f.warn(ruleApply, "tool call '%s' reopened under the name '%s' (was '%s'); renamed", id, name, c.Name)
			c.Name = strings.Clone(name)
		}
		c.Status = model.EntOpen
		c.Info.Meta = c.Info.Meta.Merge(meta)
		f.putCall(holder, loc, idx, c)
		if newOwner != nil {
			f.writeCold().SetCallOwner(id, owner, f.writeCalls, f.writeRest)
		}
		open(loc, idx)
		return nil
	}
	target := id
	if parentMsg != nil {
		target = *parentMsg
	}
	tm, tloc, exists := f.msg(target)
	if exists && tm.Role() != event.RoleAssistant {
		f.warn(ruleApply, "tool call '%s' names parent message '%s', which is a %s message, not an assistant message; the call goes to an assistant message '%s'",
			id, target, tm.Role(), id)
		target = id
		tm, tloc, exists = f.msg(target)
		if exists && tm.Role() != event.RoleAssistant {
			return f.violation("A1", "tool call '%s' needs an assistant message '%s', but that id names a %s; one id names one message of one kind", id, id, tm.Kind())
		}
	}
	switch {
	case exists:
		target = tm.ID // the holder's own copy
	case target == id:
		target = id // the call's copy
	default:
		target = strings.Clone(target)
	}
	c := &model.Call{ID: id, Name: strings.Clone(name), Status: model.EntOpen, Info: model.CallInfoOf(nil, meta)}
	idx := 0
	if exists {
		h := *tm
		idx = tm.Calls().Len()
		h.AppendCall(c)
		f.putMsg(tloc, &h)
	} else {
		// G6: a message a tool call creates belongs to the call's owner.
		m := model.NewMsg(target, event.RoleAssistant, f.msgInfo(tag, nil, nil))
		m.AppendCall(c)
		tloc = f.appendMsg(m, &model.OwnerRec{Owner: owner, Kind: model.KindText})
	}
	f.writeCold().HoldCall(id, target, idx, newOwner, f.writeCalls, f.writeRest)
	open(tloc, idx)
	return nil
}

// heldCall returns (a copy of) the message holding the open tool call o, and
// false when no message holds it any more.
func (f *folder) heldCall(id string, o model.OpenCall) (model.Msg, bool) {
	if !o.Held {
		return model.Msg{}, false
	}
	if h, ok := f.peek(o.Loc.Inv).Msg(o.Loc.Pos); ok && o.Idx < h.Calls().Len() && h.Calls().At(o.Idx).ID == id {
		return h, true
	}
	return model.Msg{}, false
}

func (f *folder) toolArgs(id, delta string, tag model.Owner, meta json.RawMessage) *Violation {
	o, open := f.openTool(id)
	if !open {
		return f.violation("V9", "no tool call '%s' is in progress; send TOOL_CALL_START first", id)
	}
	if v := f.ownerMismatch("tool call", id, tag, o.Owner); v != nil {
		return v
	}
	holder, held := f.heldCall(id, o)
	loc, idx := o.Loc, o.Idx
	if !held {
		f.warn(ruleApply, "tool call '%s' is no longer held by any message (a MESSAGES_SNAPSHOT removed it); arguments dropped", id)
		return nil
	}
	if delta == "" && meta == nil {
		return nil
	}
	c := *holder.Calls().At(idx)
	if meta != nil {
		c = *holder.Calls().At(idx).WithInfo()
		c.Info.Meta = c.Info.Meta.Merge(meta)
	}
	c.Args = c.Args.Append(delta)
	f.putCall(&holder, loc, idx, &c)
	return nil
}

func (f *folder) toolEnd(id string, tag model.Owner, meta json.RawMessage) *Violation {
	o, open := f.st.Cold.Open.Tool.Get(id)
	if !open {
		return f.violation("V9", "no tool call '%s' is in progress; TOOL_CALL_START must come first", id)
	}
	if v := f.ownerMismatch("tool call", id, tag, o.Owner); v != nil {
		return v
	}
	c := f.writeCold()
	c.Open.Tool = c.Open.Tool.Delete(id)
	if holder, held := f.heldCall(id, o); held {
		c := *holder.Calls().At(o.Idx)
		if meta != nil {
			c = *holder.Calls().At(o.Idx).WithInfo()
			c.Info.Meta = c.Info.Meta.Merge(meta)
		}
		c.Status = model.EntClosed
		// The arguments are complete: give back the room their buffer kept
		// to grow.
		c.Args = c.Args.Compact()
		f.putCall(&holder, o.Loc, o.Idx, &c)
	}
	return nil
}

func (f *folder) toolResult(e *event.ToolCallResult, tag model.Owner) *Violation {
	if m, _, exists := f.msg(e.MessageID); exists {
		return f.violation("A1", "TOOL_CALL_RESULT mints message '%s', but that id already names a %s; one id names one message", e.MessageID, m.Kind())
	}
	role := event.RoleTool
	if e.Role != nil {
		role = *e.Role
	}
	// The strings the view keeps are copies of their own: the decoder's
	// share one allocation with the event's others (see msgStart).
	id := strings.Clone(e.MessageID)
	sent, text, isText, other := resultContent(e.Content)
	// Insert right after the message holding the call, after the tool
	// messages already following it; append when no message holds it.
	holder, hloc, idx, held := f.call(e.ToolCallID)
	var after *string // the message the result follows; nil: the end of the list
	if held && f.st.Cold.Listed(holder.ID) {
		at := holder.ID // an empty id is an id like any other
		after = &at
		// Start from the last result put after this holder, when it is
		// still there: the tool messages before it follow the holder
		// already, and not walking them again keeps n results under one
		// message O(n).
		if last, ok := f.lastResult(holder); ok && f.st.Cold.Listed(last) {
			if lm, _, ok := f.msg(last); ok && lm.Role() == event.RoleTool {
				at = last
			}
		}
		for {
			next, ok := f.st.Cold.ListNext(at, f.peek)
			if !ok {
				break
			}
			if nm, _, ok := f.msg(next); !ok || nm.Role() != event.RoleTool {
				break
			}
			at = next
		}
	}
	var answered *model.Call // the call as the result leaves it; nil when the result is appended
	if after != nil {
		c := *holder.Calls().At(idx)
		c.Result, c.HasResult, c.ResultContent = id, true, sent
		answered = &c
	}
	var info *model.MsgInfo
	if answered != nil && answered.Status != model.EntOpen {
		// The message names its call with the id the call keeps: a call
		// no longer open is seldom replaced again, which would leave this
		// version of it to the message alone.
		info = model.ToolInfo(f.tagOf(tag), &answered.ID, e.Metadata)
	} else {
		info = model.ToolInfoCopy(f.tagOf(tag), strings.Clone(e.ToolCallID), e.Metadata)
	}
	m := model.NewMsg(id, role, info)
	m.Text, m.HasText = text, isText
	if other != nil {
		m.Info().SetRaw(other)
	}
	// R26: the result is attributed on its own and (re)sets its message's owner.
	f.place(m, &model.OwnerRec{Owner: tag, Kind: model.KindTool}, true, after, nil)
	if answered != nil {
		h := *holder
		h.AnswerCall(idx, answered)
		f.putMsg(hloc, &h)
	}
	return nil
}

// lastResult returns the id of the tool result inserted last after holder,
// a listed message holding a call that a TOOL_CALL_RESULT answers, and
// false when none was since a MESSAGES_SNAPSHOT last rebuilt the list: the
// result of the call its calls answered last (CallList.LastAnswer).
func (f *folder) lastResult(holder *model.Msg) (string, bool) {
	calls := holder.Calls()
	i, ok := calls.LastAnswer()
	if !ok {
		return "", false
	}
	return calls.At(i).Result, true
}

// ---------------------------------------------------------------------------
// Reasoning

// reasoningOwner returns the owner of a reasoning id: the reasoning
// message's, else the span's (a span and a message may share an id and
// share one owner).
func (f *folder) reasoningOwner(id string) (model.Owner, bool) {
	rec, ok := f.st.Cold.MsgOwner(id)
	return f.msgOwnerOf(reasoningMsgs, id, rec, ok)
}

// msgOwnerOf returns the owner of message id of kind k, given the owner
// recorded for the id (rec, when known), and false when it has none yet. A
// reasoning message shares its owner with the span of its id. (A method, not
// a function field of msgKind: an indirect call would make every fold's
// folder escape to the heap.)
func (f *folder) msgOwnerOf(k *msgKind, id string, rec model.OwnerRec, known bool) (model.Owner, bool) {
	if k.kind != model.KindReasoning {
		return rec.Owner, known
	}
	if known && rec.Kind == model.KindReasoning {
		return rec.Owner, true
	}
	return f.st.Cold.Rest.SpanOwner.Get(id)
}

func (f *folder) reasoningStart(id string, tag model.Owner) *Violation {
	if _, open := f.st.Cold.RunScope.OpenSpan.Get(id); open {
		return f.violation("V12", "reasoning span '%s' is already in progress; end it with REASONING_END first", id)
	}
	owner := tag
	if rec, known := f.reasoningOwner(id); known {
		if tag.Sub && tag != rec {
			return f.violation("R16", "subagentRunId '%s' does not match the reasoning message '%s' opener's subagent %s", tag.ID, id, rec.Quoted())
		}
		owner = rec
	}
	if _, ok := f.st.Cold.Rest.SpanOwner.Get(id); !ok {
		f.writeRest().SpanOwner = f.st.Cold.Rest.SpanOwner.Set(id, owner)
	}
	key := f.invFor(owner)
	n := f.info(key)
	pos := n.Spans.Len()
	n.Spans = n.Spans.Append(model.Span{ID: id, Status: model.EntOpen, Start: f.index, End: -1})
	f.writeScope().OpenSpan = f.st.Cold.RunScope.OpenSpan.Set(id, model.SpanLoc{Owner: owner, Inv: key, Pos: pos})
	return nil
}

func (f *folder) reasoningEnd(id string, tag model.Owner) *Violation {
	sl, open := f.st.Cold.RunScope.OpenSpan.Get(id)
	if !open {
		return f.violation("V12", "no reasoning span '%s' is in progress; send REASONING_START first", id)
	}
	if v := f.ownerMismatch("reasoning message", id, tag, sl.Owner); v != nil {
		return v
	}
	f.writeScope().OpenSpan = f.st.Cold.RunScope.OpenSpan.Delete(id)
	f.endSpan(sl, model.EntClosed)
	return nil
}

func (f *folder) endSpan(sl model.SpanLoc, status model.EntStatus) {
	n := f.info(sl.Inv)
	s := n.Spans.At(sl.Pos)
	s.Status, s.End = status, f.index
	n.Spans = n.Spans.Set(sl.Pos, s)
}

func (f *folder) encryptedValue(e *event.ReasoningEncryptedValue, tag model.Owner) *Violation {
	val := e.EncryptedValue
	switch e.Subtype {
	case event.EncryptedToolCall:
		if rec, ok := f.st.Cold.CallOwner(e.EntityID); ok && tag.Sub && tag != rec {
			return f.violation("R15", "subagentRunId '%s' does not match the tool call '%s' opener's subagent %s", tag.ID, e.EntityID, rec.Quoted())
		}
		if holder, loc, idx, ok := f.call(e.EntityID); ok {
			f.changeCallInfo(holder, loc, idx, func(c *model.CallInfo) { c.EncryptedValue = &val })
		}
	case event.EncryptedMessage:
		if rec, ok := f.st.Cold.MsgOwner(e.EntityID); ok && tag.Sub && tag != rec.Owner &&
			(rec.Kind == model.KindText || rec.Kind == model.KindReasoning) {
			return f.violation("R15", "subagentRunId '%s' does not match the message '%s' opener's subagent %s", tag.ID, e.EntityID, rec.Owner.Quoted())
		}
		if m, loc, ok := f.msg(e.EntityID); ok && m.Role() != event.RoleActivity {
			c := m.WithInfo()
			c.Info().SetEncryptedValue(&val)
			f.putMsg(loc, c)
		}
	default:
		f.warn(ruleApply, "REASONING_ENCRYPTED_VALUE with unknown subtype %q ignored", e.Subtype)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Activity

func (f *folder) activitySnapshot(e *event.ActivitySnapshot, tag model.Owner) *Violation {
	m, loc, exists := f.msg(e.MessageID)
	if exists && m.Role() != event.RoleActivity {
		return f.violation("A1", "ACTIVITY_SNAPSHOT for '%s', which names a %s; one id names one message of one kind", e.MessageID, m.Kind())
	}
	doc, err := patch.New(e.Content)
	if err != nil {
		return f.violation(event.RuleSchema, "ACTIVITY_SNAPSHOT '%s' content is not valid JSON: %v", e.MessageID, err)
	}
	typ := e.ActivityType
	replace := e.Replace == nil || *e.Replace
	switch {
	case exists && replace:
		// R27: a replacing snapshot re-mints the activity and re-owns it; G17:
		// a change of owner is worth a warning.
		if rec, ok := f.st.Cold.MsgOwner(e.MessageID); ok && rec.Owner != tag {
			f.warn("G17", "activity '%s' changes owner from %s to %s: a replacing ACTIVITY_SNAPSHOT re-owns it (R27)",
				e.MessageID, rec.Owner.Quoted(), tag.Quoted())
		}
		c := m.WithInfo()
		c.Text, c.HasText, c.HasDoc = persist.Text{}, false, true
		i := c.Info()
		x := i.Extra()
		x.Doc, x.Raw = doc, nil
		x.ActivityType = &typ
		x.Meta = x.Meta.Merge(e.Metadata)
		i.SetExtra(x)
		i.Tag = tag.Tag()
		f.update(m, loc, c)
		f.writeCold().SetMsgOwner(e.MessageID, model.OwnerRec{Owner: tag, Kind: model.KindActivity}, f.writeRest)
	case exists:
		if e.Metadata != nil {
			c := m.WithInfo()
			c.Info().SetMeta(c.Info().Meta().Merge(e.Metadata))
			f.putMsg(loc, c)
		}
	default:
		info := &model.MsgInfo{Tag: tag.Tag()}
		info.SetExtra(model.MsgExtra{ActivityType: &typ, Doc: doc, Meta: model.MetaOf(e.Metadata)})
		m := model.NewMsg(e.MessageID, event.RoleActivity, info)
		m.HasDoc = true
		f.appendMsg(m, &model.OwnerRec{Owner: tag, Kind: model.KindActivity})
	}
	return nil
}

func (f *folder) activityDelta(e *event.ActivityDelta, tag model.Owner) *Violation {
	m, loc, exists := f.msg(e.MessageID)
	if !exists {
		return nil // the reference ignores a delta for an unknown activity
	}
	if m.Role() != event.RoleActivity {
		f.warn(ruleApply, "ACTIVITY_DELTA for '%s', which is a %s message, not an activity; ignored", e.MessageID, m.Role())
		return nil
	}
	if rec, ok := f.st.Cold.MsgOwner(e.MessageID); ok && tag.Sub && tag != rec.Owner {
		return f.violation("R15", "subagentRunId '%s' does not match the activity '%s' opener's subagent %s", tag.ID, e.MessageID, rec.Owner.Quoted())
	}
	c := m.WithInfo()
	x := c.Info().Extra()
	doc, warns, err := patch.Apply(x.Doc, e.Patch, nil)
	for _, w := range warns {
		f.warn("G2", "ACTIVITY_DELTA '%s': %s", e.MessageID, w.String())
	}
	if err != nil {
		// G8: a failed patch changes nothing of the activity, its type included.
		f.warn("G8", "ACTIVITY_DELTA '%s' skipped whole, content and activityType unchanged: %v", e.MessageID, err)
	} else {
		typ := e.ActivityType
		c.HasDoc = true
		x.Doc, x.ActivityType = doc, &typ
	}
	x.Meta = x.Meta.Merge(e.Metadata)
	c.Info().SetExtra(x)
	f.putMsg(loc, c)
	return nil
}

// ---------------------------------------------------------------------------
// State (R22: a subagent's state events change the one run state)

func (f *folder) stateSnapshot(e *event.StateSnapshot, tag model.Owner) *Violation {
	doc, err := patch.New(e.Snapshot)
	if err != nil {
		return f.violation(event.RuleSchema, "STATE_SNAPSHOT snapshot is not valid JSON: %v", err)
	}
	r := f.writeRest()
	r.Doc, r.DocBy, r.DocSet = doc, tag, true
	return nil
}

func (f *folder) stateDelta(e *event.StateDelta, tag model.Owner) *Violation {
	doc, warns, err := patch.Apply(f.st.Cold.Rest.Doc, e.Delta, nil)
	for _, w := range warns {
		f.warn("G2", "STATE_DELTA: %s", w.String())
	}
	if err != nil {
		f.warn("G8", "STATE_DELTA skipped whole, state unchanged: %v", err)
		return nil
	}
	r := f.writeRest()
	r.Doc, r.DocBy, r.DocSet = doc, tag, true
	return nil
}

func cloneStr(s *string) *string {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// ownerMismatch returns the R15 violation for a continuation of the kind
// entity id, opened by owner, that is tagged with another subagent; nil when
// the tag agrees or is absent (an untagged continuation continues whatever its
// opener owns). It is small enough to inline on the hot path.
func (f *folder) ownerMismatch(kind, id string, tag, owner model.Owner) *Violation {
	if !tag.Sub || tag == owner {
		return nil
	}
	return f.ownerViolation(kind, id, tag, owner)
}

func (f *folder) ownerViolation(kind, id string, tag, owner model.Owner) *Violation {
	return f.violation("R15", "subagentRunId '%s' does not match the %s '%s' opener's subagent %s", tag.ID, kind, id, owner.Quoted())
}
