package reducer

import (
	"bytes"
	"encoding/json"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/internal/persist"
	"github.com/agview/agview/patch"
)

// MESSAGES_SNAPSHOT and RUN_STARTED.input.messages: history that replaces or
// extends the message list and establishes owners (docs/protocol.md §7, R25).

// fromHistory converts a history message into a view message.
func (f *folder) fromHistory(hm *event.Message) *model.Msg {
	info := &model.MsgInfo{Tag: cloneStr(hm.Subagent), Name: cloneStr(hm.Name), ToolCallID: cloneStr(hm.ToolCallID)}
	x := model.MsgExtra{
		Error: cloneStr(hm.Error), ActivityType: cloneStr(hm.ActivityType),
		EncryptedValue: cloneStr(hm.EncryptedValue), Meta: model.MetaOf(hm.Metadata),
	}
	var text persist.Text
	hasText, hasDoc := false, false
	if hm.Role == event.RoleActivity && len(hm.Content) > 0 {
		if doc, err := patch.New(hm.Content); err == nil {
			x.Doc, hasDoc = doc, true
		} else {
			x.Raw = bytes.Clone(hm.Content)
		}
	} else {
		text, hasText, x.Raw = content(hm.Content)
	}
	info.SetExtra(x)
	m := model.NewMsg(hm.ID, hm.Role, info)
	m.Text, m.HasText, m.HasDoc = text, hasText, hasDoc
	if hm.ToolCalls != nil {
		m.HasCalls = true
		for _, tc := range hm.ToolCalls {
			m.AppendCall(&model.Call{
				ID: tc.ID, Name: tc.Function.Name, Args: persist.TextOf(tc.Function.Arguments),
				Info: model.CallInfoOf(cloneStr(tc.EncryptedValue), tc.Metadata),
			})
		}
	}
	return m
}

// own records the owner of a history message and of its tool calls; with
// overwrite false only ids not yet recorded are seeded.
func (f *folder) own(hm *event.Message, overwrite bool) {
	owner := tagOwner(hm.Subagent)
	if _, known := f.st.Cold.MsgOwner(hm.ID); overwrite || !known {
		f.writeCold().SetMsgOwner(hm.ID, model.OwnerRec{Owner: owner, Kind: model.KindOf(hm.Role), Replayed: true}, f.writeRest)
	}
	for _, tc := range hm.ToolCalls {
		if _, known := f.st.Cold.CallOwner(tc.ID); overwrite || !known {
			f.writeCold().SetCallOwner(tc.ID, owner, f.writeCalls, f.writeRest)
		}
	}
}

// holdCalls records m as the holder of its tool calls that no message holds.
func (f *folder) holdCalls(m *model.Msg) {
	calls := m.Calls()
	for i := range calls.Len() { // an index loop: a range-over-func body would make f escape
		c := calls.At(i)
		if _, _, held := f.st.Cold.CallHolder(c.ID); !held {
			f.writeCold().HoldCall(c.ID, m.ID, i, nil, f.writeCalls, f.writeRest)
		}
	}
}

// echoInput appends RUN_STARTED.input.messages whose ids are not in the list
// and seeds the owners of ids not yet recorded (R25).
//
// A tool message of the history answers the call its toolCallId names: the
// call, once a message holds it, links to that message as its result unless
// a TOOL_CALL_RESULT (or earlier history) already answered it.
func (f *folder) echoInput(msgs []event.Message) {
	tools := false
	for i := range msgs {
		hm := &msgs[i]
		f.own(hm, false)
		tools = tools || isResult(hm)
		if f.st.Cold.Listed(hm.ID) {
			continue
		}
		m := f.fromHistory(hm)
		f.appendMsg(m, nil)
		f.holdCalls(m)
	}
	if !tools {
		return
	}
	for i := range msgs {
		hm := &msgs[i]
		if !isResult(hm) {
			continue
		}
		m, _, ok := f.msg(hm.ID)
		if !ok || m.Role() != event.RoleTool || m.Info().ToolCallID == nil || *m.Info().ToolCallID != *hm.ToolCallID {
			continue
		}
		if holder, loc, idx, held := f.call(*hm.ToolCallID); held && !holder.Calls().At(idx).HasResult {
			content := string(m.Message().Content)
			f.changeCall(holder, loc, idx, func(c *model.Call) {
				c.Result, c.HasResult, c.ResultContent = hm.ID, true, content
			})
		}
	}
}

// isResult reports whether a history message is a tool result naming its
// tool call.
func isResult(hm *event.Message) bool {
	return hm.Role == event.RoleTool && hm.ToolCallID != nil
}

// priorCalls returns the tool calls the messages restate as they are now
// (before a snapshot replaces their messages), keyed by id; nil when none.
func (f *folder) priorCalls(msgs []event.Message) map[string]*model.Call {
	var prior map[string]*model.Call
	for i := range msgs {
		for _, tc := range msgs[i].ToolCalls {
			if holder, _, idx, ok := f.call(tc.ID); ok {
				if prior == nil {
					prior = make(map[string]*model.Call)
				}
				prior[tc.ID] = holder.Calls().At(idx)
			}
		}
	}
	return prior
}

// relink gives the tool calls of m, a message just built from a snapshot,
// what the snapshot cannot say: the subagents each call spawned and, when
// the call was answered, its result (carried over from the call as it was),
// then the result the snapshot's own tool messages give it (results: call
// id → the last tool message naming it). A call the verifier still has
// open stays open.
func (f *folder) relink(m *model.Msg, prior map[string]*model.Call, results map[string]*event.Message) {
	calls := m.Calls()
	for i := range calls.Len() { // m is private: its calls (not their shared infos) may be changed in place
		c := calls.At(i)
		if old, ok := prior[c.ID]; ok {
			if old.Info.Spawned != nil {
				info := *c.Info
				info.Spawned = old.Info.Spawned
				c.Info = &info
			}
			c.Result, c.HasResult, c.ResultContent = old.Result, old.HasResult, old.ResultContent
		}
		if r, ok := results[c.ID]; ok {
			c.Result, c.HasResult, c.ResultContent = r.ID, true, string(r.Content)
		}
		if f.st.Cold.Open.Tool.Has(c.ID) {
			c.Status = model.EntOpen
		}
	}
}

// messagesSnapshot replaces the list: local messages named by the snapshot
// are replaced in place, client-only activity and reasoning are preserved,
// every other local message is removed, and the snapshot's new messages are
// appended in order. Owners are overwritten (R25).
func (f *folder) messagesSnapshot(e *event.MessagesSnapshot) *Violation {
	if !f.replaceList && f.restated(e.Messages) {
		return nil
	}
	snap := make(map[string]*event.Message, len(e.Messages))
	hasActivity, hasReasoning := false, false
	for i := range e.Messages {
		hm := &e.Messages[i]
		if _, dup := snap[hm.ID]; dup {
			return f.violation("A1", "MESSAGES_SNAPSHOT holds two messages with id '%s'; one id names one message", hm.ID)
		}
		snap[hm.ID] = hm
		switch hm.Role {
		case event.RoleActivity:
			hasActivity = true
		case event.RoleReasoning:
			hasReasoning = true
		}
	}
	auth := authorityOf(e.Metadata)
	// What the snapshot cannot restate about the calls it keeps (spawned
	// subagents, results): read before any message is replaced.
	prior := f.priorCalls(e.Messages)
	results := resultsOf(e.Messages)

	// The list as it is now: where each message lives was in it, so every
	// one of them is appended again or dropped below (see model.ListReset).
	old := f.st.Cold.ListMsgs(f.peek)
	f.writeCold().ListReset()
	f.writeCold().UnholdCalls(f.writeCalls)
	for loc, m := range old {
		id := m.ID
		if hm, named := snap[id]; named {
			nm := f.fromHistory(hm)
			f.relink(nm, prior, results)
			f.writeCold().ListAppend(id, f.update(m, loc, nm))
			continue
		}
		keep := false
		switch m.Role() {
		case event.RoleActivity:
			keep = auth.preserves(m.Info().ActivityType(), hasActivity)
		case event.RoleReasoning:
			keep = !hasReasoning
		}
		if keep {
			// The tool results after it are no longer known to follow it
			// (see lastResult): a fresh list starts a fresh run of results.
			if _, answered := m.Calls().LastAnswer(); answered {
				c := *m
				c.ForgetAnswer()
				f.putMsg(loc, &c)
			}
			f.writeCold().ListAppend(id, loc)
			continue
		}
		f.unplace(loc)
		f.writeCold().DropMsgLoc(id)
	}
	for i := range e.Messages {
		hm := &e.Messages[i]
		f.own(hm, true)
		if f.st.Cold.Listed(hm.ID) {
			continue
		}
		nm := f.fromHistory(hm)
		f.relink(nm, prior, results)
		f.appendMsg(nm, nil)
	}
	for id := range f.st.Cold.ListAll(f.peek) {
		if m, _, ok := f.msg(id); ok {
			f.holdCalls(m)
		}
	}
	f.relocateOpen()
	return nil
}

// resultsOf returns the last tool message of msgs naming each tool call,
// keyed by the call's id; nil when none.
func resultsOf(msgs []event.Message) map[string]*event.Message {
	var results map[string]*event.Message
	for i := range msgs {
		if hm := &msgs[i]; isResult(hm) {
			if results == nil {
				results = make(map[string]*event.Message)
			}
			results[*hm.ToolCallID] = hm
		}
	}
	return results
}

// restated folds a snapshot that restates the list as it is, in order and
// unchanged, then new messages (a conversation's next run, which a server
// opens with the whole history): the held messages stay as they are, and
// only the new ones are built, as messagesSnapshot would build them. It
// compares ids and bytes before it builds or changes anything, and reports
// false, having changed nothing, when msgs does not restate the list or a
// new message's id is not new (messagesSnapshot then folds it).
//
// The result is messagesSnapshot's: a held message it would replace by
// msgs' version equals that version (same id, role, members, content and
// tool calls, closed, with the results msgs gives its calls), the holders
// of the held calls stay, and the owners are recorded as msgs says (R25).
// The held calls keep the tool result that last answered them (see
// lastResult), which messagesSnapshot forgets because it rebuilds the
// list: in a list left in its order, the results that follow a call's
// message are those that followed it, so a result walks to the same
// place either way.
func (f *folder) restated(msgs []event.Message) bool {
	held := f.st.Cold.ListLen()
	if held > len(msgs) {
		return false
	}
	fresh := msgs[held:]
	if !f.newIDs(fresh) {
		return false
	}
	results := resultsOf(msgs)
	open := f.st.Cold.Open.Tool
	i, same := 0, true
	for _, m := range f.st.Cold.ListMsgs(f.peek) {
		if !sameAsHistory(m, &msgs[i], results, open) {
			same = false
			break
		}
		i++
	}
	if !same {
		return false
	}
	for i := range msgs[:held] {
		if hm := &msgs[i]; !f.ownedBySnapshot(hm) {
			f.own(hm, true)
		}
	}
	prior := f.priorCalls(fresh)
	for i := range fresh {
		hm := &fresh[i]
		f.own(hm, true)
		nm := f.fromHistory(hm)
		f.relink(nm, prior, results)
		f.appendMsg(nm, nil)
		f.holdCalls(nm)
	}
	f.relocateOpen()
	return true
}

// newIDs reports whether the ids of msgs are distinct and none of them is
// in the list.
func (f *folder) newIDs(msgs []event.Message) bool {
	var seen map[string]bool
	if len(msgs) > 1 {
		seen = make(map[string]bool, len(msgs))
	}
	for i := range msgs {
		id := msgs[i].ID
		if f.st.Cold.Listed(id) || seen[id] {
			return false
		}
		if seen != nil {
			seen[id] = true
		}
	}
	return true
}

// ownedBySnapshot reports whether the owners recorded for a history
// message and its tool calls are those own(hm, true) records.
func (f *folder) ownedBySnapshot(hm *event.Message) bool {
	owner := tagOwner(hm.Subagent)
	if rec, ok := f.st.Cold.MsgOwner(hm.ID); !ok || rec != (model.OwnerRec{Owner: owner, Kind: model.KindOf(hm.Role), Replayed: true}) {
		return false
	}
	for _, tc := range hm.ToolCalls {
		if o, ok := f.st.Cold.CallOwner(tc.ID); !ok || o != owner {
			return false
		}
	}
	return true
}

// sameAsHistory reports whether m, a held message, is what fromHistory and
// relink make of hm (results: the snapshot's last tool message naming each
// call; open: the open tool calls), but for which tool result last
// answered its calls.
// An activity message, and a message or call still open or abandoned,
// never is.
func sameAsHistory(m *model.Msg, hm *event.Message, results map[string]*event.Message, open persist.Map[model.OpenCall]) bool {
	if m.ID != hm.ID || m.Role() != hm.Role || hm.Role == event.RoleActivity || !closed(m.Status) {
		return false
	}
	i := m.Info()
	if !sameStr(i.Tag, hm.Subagent) || !sameStr(i.Name, hm.Name) || !sameStr(i.ToolCallID, hm.ToolCallID) ||
		!sameStr(i.Error(), hm.Error) || !sameStr(i.ActivityType(), hm.ActivityType) ||
		!sameStr(i.EncryptedValue(), hm.EncryptedValue) || !sameMeta(i.Meta(), hm.Metadata) {
		return false
	}
	switch {
	case m.HasDoc:
		return false
	case m.HasText:
		escaped, ok := scanString(hm.Content)
		if !ok {
			return false
		}
		if !escaped {
			if string(hm.Content[1:len(hm.Content)-1]) != m.Text.String() {
				return false
			}
		} else if text, isText, _ := content(hm.Content); !isText || text.String() != m.Text.String() {
			return false
		}
	case i.Raw() != nil:
		if len(hm.Content) == 0 || hm.Content[0] == '"' || !bytes.Equal(i.Raw(), hm.Content) {
			return false
		}
	case len(hm.Content) != 0:
		return false
	}
	calls := m.Calls()
	if m.HasCalls != (hm.ToolCalls != nil) || calls.Len() != len(hm.ToolCalls) {
		return false
	}
	for j := range hm.ToolCalls {
		c, tc := calls.At(j), &hm.ToolCalls[j]
		if c.ID != tc.ID || c.Name != tc.Function.Name || c.Args.String() != tc.Function.Arguments ||
			!sameStr(c.Info.EncryptedValue, tc.EncryptedValue) || !sameMeta(c.Info.Meta, tc.Metadata) ||
			!closed(c.Status) || open.Has(c.ID) {
			return false
		}
		if r, ok := results[c.ID]; ok && (!c.HasResult || c.Result != r.ID || c.ResultContent != string(r.Content)) {
			return false
		}
	}
	return true
}

// closed reports whether an entity of status s reads as closed, as one
// from history does.
func closed(s model.EntStatus) bool { return s == model.EntHistory || s == model.EntClosed }

// sameStr reports whether two optional strings are equal.
func sameStr(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// sameMeta reports whether m is the metadata MetaOf makes of raw.
func sameMeta(m model.Meta, raw json.RawMessage) bool {
	if m == nil || len(raw) == 0 {
		return m == nil && model.MetaOf(raw) == nil
	}
	o := model.MetaOf(raw)
	if len(o) != len(m) {
		return false
	}
	for k := range m {
		if m[k].Key != o[k].Key || !bytes.Equal(m[k].Val, o[k].Val) {
			return false
		}
	}
	return true
}

// relocateOpen points the open entities at where their messages now live
// (or marks them gone), after messages moved or left the list, and gives
// them the owners the snapshot recorded (R25: a snapshot overwrites owners,
// so continuations are checked against the snapshot's attribution). The
// owner maps are the source of truth; an open entry's owner is a copy, equal
// to the map's except while a snapshot rewrites the map.
func (f *folder) relocateOpen() {
	c := f.writeCold()
	for id, o := range c.Open.Text.All() {
		c.Open.Text = c.Open.Text.Set(id, f.relocateMsg(id, o))
	}
	for id, o := range c.Open.Rsn.All() {
		c.Open.Rsn = c.Open.Rsn.Set(id, f.relocateMsg(id, o))
	}
	for id, o := range c.RunScope.OpenSpan.All() {
		// A span shares its owner with the reasoning message of its id.
		if rec, ok := c.MsgOwner(id); ok && rec.Kind == model.KindReasoning && rec.Owner != o.Owner {
			o.Owner = rec.Owner
			sc := f.writeScope()
			sc.OpenSpan = sc.OpenSpan.Set(id, o)
		}
	}
	for id, o := range c.Open.Tool.All() {
		_, o.Loc, o.Idx, o.Held = f.call(id)
		if owner, ok := c.CallOwner(id); ok {
			o.Owner = owner
		}
		c.Open.Tool = c.Open.Tool.Set(id, o)
	}
}

// relocateMsg returns the open text or reasoning message o, with id, as
// relocateOpen leaves it; a snapshot version of it reads as still open.
func (f *folder) relocateMsg(id string, o model.Open) model.Open {
	c := f.writeCold()
	o.Loc, o.In = c.MsgLoc(id)
	if rec, ok := c.MsgOwner(id); ok {
		o.Owner = rec.Owner
	}
	if m, ok := f.at(id, o.Loc, o.In); ok && m.Status != model.EntOpen {
		m.Status = model.EntOpen // still streaming as far as the verifier knows
		f.putMsg(o.Loc, &m)
	}
	return o
}

// authority is the snapshot's declaration of which activity types it is
// authoritative for: metadata["@ag-ui/client"].authoritativeActivityTypes.
type authority struct {
	declared bool
	all      bool            // null: every type
	types    map[string]bool // an array: these types (invalid: none)
}

func authorityOf(meta json.RawMessage) authority {
	if len(meta) == 0 {
		return authority{}
	}
	var outer map[string]json.RawMessage
	if json.Unmarshal(meta, &outer) != nil {
		return authority{}
	}
	var client map[string]json.RawMessage
	if json.Unmarshal(outer["@ag-ui/client"], &client) != nil {
		return authority{}
	}
	raw, ok := client["authoritativeActivityTypes"]
	if !ok {
		return authority{}
	}
	a := authority{declared: true, types: map[string]bool{}}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		a.all = true
		return a
	}
	var types []string
	if json.Unmarshal(raw, &types) == nil {
		for _, t := range types {
			a.types[t] = true
		}
	}
	return a
}

// preserves reports whether a local activity of the given type survives a
// snapshot that does not name it.
func (a authority) preserves(typ *string, snapHasActivity bool) bool {
	if !a.declared {
		return !snapHasActivity
	}
	if a.all {
		return false
	}
	return typ == nil || !a.types[*typ]
}
