package threads

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// RootKey is the pane key of the parent agent. A subagent invocation's key
// is "inv-N", N its position among the thread's invocations in the order
// they were first seen: one pane per invocation, even when a later run
// reuses an id (docs/protocol.md G10).
const RootKey = "root"

func invKey(pos int) string { return "inv-" + strconv.Itoa(pos) }

// Pane is one pane of the wire format (docs/panes.md): one invocation of the
// tree, the parent agent or a subagent, everything a browser needs to draw
// it. A snapshot carries each pane whole; a patch carries a pane's Meta when
// it changed and item operations (ItemOp) for the items that changed.
type Pane struct {
	PaneMeta
	// Items are the invocation's messages in creation order: text,
	// reasoning, tool calls (with their results) and activity.
	Items []PaneItem `json:"items"`
}

// PaneMeta is a pane without its items: what a patch resends whole when any
// of it changed.
type PaneMeta struct {
	// Key identifies the pane (RootKey or "inv-N").
	Key string `json:"key"`
	// Root is true for the parent agent.
	Root bool `json:"root"`
	// ID is the subagentRunId; null for the parent agent.
	ID *string `json:"id"`
	// Parent is the key of the pane this one nests in; null for the root.
	Parent *string `json:"parent"`
	// Name is SUBAGENT_STARTED's name (the id for an unannounced
	// invocation, "" for the root).
	Name string `json:"name"`
	// Description is SUBAGENT_STARTED's description, omitted when absent.
	Description string `json:"description,omitempty"`
	// Status is the invocation's status (running, finished, suspended,
	// errored, abandoned, unannounced).
	Status view.Status `json:"status"`
	// ParentToolCallID is the tool call that spawned the invocation.
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	// Children are the keys of the panes nested in this one, in start order.
	Children []string `json:"children"`
	// Steps are the invocation's steps in the order they first started,
	// each name once, with its latest status.
	Steps []PaneStep `json:"steps"`
	// Outcome is SUBAGENT_FINISHED's outcome; null when absent.
	Outcome *event.SubagentOutcome `json:"outcome"`
	// Result is SUBAGENT_FINISHED's result; null when absent.
	Result json.RawMessage `json:"result"`
	// Error is SUBAGENT_ERROR's report; null when the invocation did not error.
	Error *ErrorReport `json:"error"`
}

// PaneStep is one step of a pane.
type PaneStep struct {
	Name   string            `json:"name"`   // the step's name
	Status view.EntityStatus `json:"status"` // open, closed or abandoned
}

// Item kinds.
const (
	ItemText      = "text"      // a text message (any role but tool, reasoning, activity)
	ItemReasoning = "reasoning" // a reasoning message
	ItemTool      = "tool"      // a tool call, with its result once answered
	ItemResult    = "result"    // a tool result answering a call held by another pane
	ItemActivity  = "activity"  // an activity message
)

// PaneItem is one entry of a pane's timeline. Which fields are set depends
// on Kind.
type PaneItem struct {
	// Key identifies the item within its pane: "m:" and the message id, or
	// "t:" and the tool call id.
	Key string `json:"key"`
	// Kind is ItemText, ItemReasoning, ItemTool, ItemResult or ItemActivity.
	Kind string `json:"kind"`
	// ID is the message id, or the tool call id (tool).
	ID string `json:"id"`
	// Role is a text message's role.
	Role event.Role `json:"role,omitempty"`
	// Text is a text or reasoning message's text so far.
	Text string `json:"text,omitempty"`
	// Name is a tool call's tool name.
	Name string `json:"name,omitempty"`
	// Args is a tool call's JSON arguments as streamed so far.
	Args string `json:"args,omitempty"`
	// Status is open while a message or tool call streams, then closed, or
	// abandoned when it was cut off (G11). Absent for result and activity.
	Status view.EntityStatus `json:"status,omitempty"`
	// Result is a tool call's result content, or a result item's; absent
	// while unanswered.
	Result json.RawMessage `json:"result,omitempty"`
	// ToolCallID is the call a result item answers.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Subagents are the keys of the panes a tool call spawned.
	Subagents []string `json:"subagents,omitempty"`
	// ActivityType is an activity's type, e.g. "PLAN".
	ActivityType string `json:"activityType,omitempty"`
	// Content is an activity's JSON content.
	Content json.RawMessage `json:"content,omitempty"`
}

// ItemOp is one operation of a pane patch (docs/panes.md). Exactly one of
// Put, Del, Text, Args or Status says what it does:
//
//   - Put: insert or replace the item Put.Key, whole; a new item goes after
//     the item After names ("" = first), or last when After is nil.
//   - Del: remove the item of that key.
//   - Text: append to the text of item Key.
//   - Args: append to the arguments of tool call item Key.
//   - Status: set the status of item Key.
type ItemOp struct {
	Key    string            `json:"key,omitempty"`
	Put    *PaneItem         `json:"put,omitempty"`
	After  *string           `json:"after,omitempty"`
	Del    string            `json:"del,omitempty"`
	Text   string            `json:"text,omitempty"`
	Args   string            `json:"args,omitempty"`
	Status view.EntityStatus `json:"status,omitempty"`
}

// ErrorReport is an error's message and optional code.
type ErrorReport struct {
	Message string  `json:"message"` // what went wrong
	Code    *string `json:"code"`    // a machine-readable code; null when absent
}

func errorReport(e *view.Error) *ErrorReport {
	if e == nil {
		return nil
	}
	return &ErrorReport{Message: e.Message, Code: e.Code}
}

// itemsOf returns the items of message m of a pane: its text (unless it is
// an assistant message that only holds tool calls), its tool calls, or, for
// a tool result, a result item unless the pane holds the call (ours).
func itemsOf(v *view.View, m event.Message, ours func(callID string) bool, subKeys func(callID string, ids []string) []string) []PaneItem {
	switch m.Role {
	case event.RoleTool:
		if m.ToolCallID != nil && ours(*m.ToolCallID) {
			return nil
		}
		it := PaneItem{Key: "m:" + m.ID, Kind: ItemResult, ID: m.ID, Result: m.Content}
		if m.ToolCallID != nil {
			it.ToolCallID = *m.ToolCallID
		}
		return []PaneItem{it}
	case event.RoleActivity:
		it := PaneItem{Key: "m:" + m.ID, Kind: ItemActivity, ID: m.ID, Content: m.Content}
		if m.ActivityType != nil {
			it.ActivityType = *m.ActivityType
		}
		return []PaneItem{it}
	case event.RoleReasoning:
		return []PaneItem{{Key: "m:" + m.ID, Kind: ItemReasoning, ID: m.ID, Text: ContentText(m.Content), Status: messageStatus(v, m.ID)}}
	}
	var out []PaneItem
	st := messageStatus(v, m.ID)
	if len(m.Content) > 0 || st != view.EntityClosed || len(m.ToolCalls) == 0 {
		out = append(out, PaneItem{Key: "m:" + m.ID, Kind: ItemText, ID: m.ID, Role: m.Role, Text: ContentText(m.Content), Status: st})
	}
	for _, tc := range m.ToolCalls {
		c, ok := v.ToolCall(tc.ID)
		if !ok {
			c = view.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments, Status: view.EntityClosed}
		}
		out = append(out, PaneItem{Key: "t:" + c.ID, Kind: ItemTool, ID: c.ID, Name: c.Name, Args: c.Arguments, Status: c.Status, Result: c.Result, Subagents: subKeys(c.ID, c.Subagents)})
	}
	return out
}

// messageStatus returns the status of v's message id (closed should v not
// hold it).
func messageStatus(v *view.View, id string) view.EntityStatus {
	if st, ok := v.MessageStatus(id); ok {
		return st
	}
	return view.EntityClosed
}

// ContentText returns a message content as display text: a JSON string's
// value, the text parts of a content-part array joined by newlines, or the
// JSON itself for anything else ("" for none).
func ContentText(content json.RawMessage) string {
	content = bytes.TrimSpace(content)
	if len(content) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []event.ContentPart
	if json.Unmarshal(content, &parts) == nil {
		var b []byte
		for _, p := range parts {
			if p.Type != "text" || p.Text == nil {
				continue
			}
			if len(b) > 0 {
				b = append(b, '\n')
			}
			b = append(b, *p.Text...)
		}
		return string(b)
	}
	return string(content)
}

// diffItem returns the operations that turn item a into b (same key): an
// append to its text or arguments and a status when only those changed,
// else a Put of b.
func diffItem(a, b *PaneItem) []ItemOp {
	tail := func(old, cur string) (string, bool) {
		if len(cur) >= len(old) && cur[:len(old)] == old {
			return cur[len(old):], true
		}
		return "", false
	}
	same := a.Kind == b.Kind && a.ID == b.ID && a.Role == b.Role && a.Name == b.Name &&
		bytes.Equal(a.Result, b.Result) && a.ToolCallID == b.ToolCallID && a.ActivityType == b.ActivityType &&
		bytes.Equal(a.Content, b.Content) && slices.Equal(a.Subagents, b.Subagents)
	text, textOK := tail(a.Text, b.Text)
	args, argsOK := tail(a.Args, b.Args)
	if !same || !textOK || !argsOK {
		put := *b
		return []ItemOp{{Put: &put}}
	}
	var ops []ItemOp
	if text != "" {
		ops = append(ops, ItemOp{Key: b.Key, Text: text})
	}
	if args != "" {
		ops = append(ops, ItemOp{Key: b.Key, Args: args})
	}
	if a.Status != b.Status {
		if b.Status == "" {
			put := *b
			return []ItemOp{{Put: &put}}
		}
		ops = append(ops, ItemOp{Key: b.Key, Status: b.Status})
	}
	return ops
}

// marshal encodes x as JSON the way a browser's JSON.stringify would (no
// HTML escaping), without a trailing newline.
func marshal(x any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// Apply applies one item operation of a patch to p, as docs/panes.md says a
// client does, and reports whether it could: false when op names an item p
// does not have (the client then asks for a snapshot).
func (p *Pane) Apply(op ItemOp) bool {
	find := func(k string) int {
		for i := len(p.Items) - 1; i >= 0; i-- {
			if p.Items[i].Key == k {
				return i
			}
		}
		return -1
	}
	switch {
	case op.Put != nil:
		if i := find(op.Put.Key); i >= 0 {
			p.Items[i] = *op.Put
			return true
		}
		at := len(p.Items)
		if op.After != nil {
			at = 0
			if *op.After != "" {
				if at = find(*op.After) + 1; at == 0 {
					return false
				}
			}
		}
		p.Items = slices.Insert(p.Items, at, *op.Put)
	case op.Del != "":
		i := find(op.Del)
		if i < 0 {
			return false
		}
		p.Items = slices.Delete(p.Items, i, i+1)
	default:
		i := find(op.Key)
		if i < 0 {
			return false
		}
		p.Items[i].Text += op.Text
		p.Items[i].Args += op.Args
		if op.Status != "" {
			p.Items[i].Status = op.Status
		}
	}
	return true
}
