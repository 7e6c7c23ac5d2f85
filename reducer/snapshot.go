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
// extends the message list and establishes owners (PROTOCOL.md §7, R25).

// fromHistory converts a history message into a view message.
func (f *folder) fromHistory(hm *event.Message) *model.Msg {
	m := &model.Msg{
		ID: hm.ID, Role: hm.Role,
		I: &model.MsgInfo{
			Tag: cloneStr(hm.Subagent), Name: cloneStr(hm.Name),
			ToolCallID: cloneStr(hm.ToolCallID), Error: cloneStr(hm.Error),
			ActivityType: cloneStr(hm.ActivityType), EncryptedValue: cloneStr(hm.EncryptedValue),
			Meta: model.MetaOf(hm.Metadata), Start: f.index,
		},
	}
	if hm.Role == event.RoleActivity && len(hm.Content) > 0 {
		if doc, err := patch.New(hm.Content); err == nil {
			m.I.Doc, m.I.HasDoc = doc, true
		} else {
			m.I.Raw = bytes.Clone(hm.Content)
		}
	} else {
		m.Text, m.HasText, m.I.Raw = content(hm.Content)
	}
	if hm.ToolCalls != nil {
		m.HasCalls = true
		owner := tagOwner(hm.Subagent)
		m.Calls = make([]*model.Call, 0, len(hm.ToolCalls))
		for _, tc := range hm.ToolCalls {
			m.Calls = append(m.Calls, &model.Call{
				ID: tc.ID, Name: tc.Function.Name, Args: persist.TextOf(tc.Function.Arguments),
				I: &model.CallInfo{
					EncryptedValue: cloneStr(tc.EncryptedValue), Meta: model.MetaOf(tc.Metadata),
					Owner: owner, Start: f.index,
				},
			})
		}
	}
	return m
}

// own records the owner of a history message and of its tool calls; with
// overwrite false only ids not yet recorded are seeded.
func (f *folder) own(hm *event.Message, overwrite bool) {
	owner := tagOwner(hm.Subagent)
	if _, known := f.st.C.MsgOwner.Get(hm.ID); overwrite || !known {
		f.c().MsgOwner = f.st.C.MsgOwner.Set(hm.ID, model.OwnerRec{Owner: owner, Kind: model.KindOf(hm.Role)})
	}
	for _, tc := range hm.ToolCalls {
		if _, known := f.st.C.CallOwner.Get(tc.ID); overwrite || !known {
			f.c().CallOwner = f.st.C.CallOwner.Set(tc.ID, owner)
		}
	}
}

// holdCalls records m as the holder of its tool calls that no message holds.
func (f *folder) holdCalls(m *model.Msg) {
	for _, c := range m.Calls {
		if _, held := f.st.C.CallLoc.Get(c.ID); !held {
			f.c().CallLoc = f.st.C.CallLoc.Set(c.ID, m.ID)
		}
	}
}

// echoInput appends RUN_STARTED.input.messages whose ids are not in the list
// and seeds the owners of ids not yet recorded (R25).
func (f *folder) echoInput(msgs []event.Message) {
	for i := range msgs {
		hm := &msgs[i]
		f.own(hm, false)
		if f.st.C.Order.Has(hm.ID) {
			continue
		}
		m := f.fromHistory(hm)
		f.appendMsg(m)
		f.holdCalls(m)
	}
}

// messagesSnapshot replaces the list: local messages named by the snapshot
// are replaced in place, client-only activity and reasoning are preserved,
// every other local message is removed, and the snapshot's new messages are
// appended in order. Owners are overwritten (R25).
func (f *folder) messagesSnapshot(e *event.MessagesSnapshot) *Violation {
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

	old := f.st.C.Order
	f.c().Order = persist.Seq{}
	f.c().CallLoc = persist.Map[string]{}
	for id := range old.All() {
		m, loc, ok := f.msg(id)
		if !ok {
			continue
		}
		if hm, named := snap[id]; named {
			nm := f.fromHistory(hm)
			if m.Status == model.EntOpen {
				nm.Status = model.EntOpen // still streaming as far as the verifier knows
			}
			f.update(m, loc, nm)
			f.c().Order = f.st.C.Order.Append(id)
			continue
		}
		keep := false
		switch m.Role {
		case event.RoleActivity:
			keep = auth.preserves(m.I.ActivityType, hasActivity)
		case event.RoleReasoning:
			keep = !hasReasoning
		}
		if keep {
			f.c().Order = f.st.C.Order.Append(id)
			continue
		}
		f.unplace(loc)
		f.c().MsgLoc = f.st.C.MsgLoc.Delete(id)
	}
	for i := range e.Messages {
		hm := &e.Messages[i]
		f.own(hm, true)
		if f.st.C.Order.Has(hm.ID) {
			continue
		}
		f.appendMsg(f.fromHistory(hm))
	}
	for id := range f.st.C.Order.All() {
		if m, _, ok := f.msg(id); ok {
			f.holdCalls(m)
		}
	}
	f.relocateOpen()
	return nil
}

// relocateOpen points the open entities at where their messages now live
// (or marks them gone), after messages moved or left the list.
func (f *folder) relocateOpen() {
	c := f.c()
	for id, o := range c.Scope.OpenText.All() {
		o.Loc, o.In = c.MsgLoc.Get(id)
		c.Scope.OpenText = c.Scope.OpenText.Set(id, o)
	}
	for id, o := range c.Scope.OpenRsn.All() {
		o.Loc, o.In = c.MsgLoc.Get(id)
		c.Scope.OpenRsn = c.Scope.OpenRsn.Set(id, o)
	}
	for id, o := range c.Scope.OpenTool.All() {
		_, o.Loc, o.Idx, o.Held = f.call(id)
		c.Scope.OpenTool = c.Scope.OpenTool.Set(id, o)
	}
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
