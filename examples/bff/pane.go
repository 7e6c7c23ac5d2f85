package main

import (
	"bytes"
	"encoding/json"

	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// RootKey is the pane key of the parent agent; a subagent invocation's key is
// "sub:" followed by its subagentRunId (see PaneKey).
const RootKey = "root"

// PaneKey returns the key of the pane showing inv: RootKey for the parent
// agent, "sub:"+id for a subagent invocation. Keys never collide, whatever the
// ids (a subagentRunId may be "" or "root").
func PaneKey(inv *view.Invocation) string {
	if inv.IsRoot() {
		return RootKey
	}
	return subKey(inv.ID())
}

func subKey(id string) string { return "sub:" + id }

// Pane is the JSON form of one pane: one invocation of the tree (the parent
// agent or a subagent), everything a browser needs to draw it. The service
// sends it as the data of a "pane" event whenever the invocation changed.
type Pane struct {
	// Key identifies the pane (see PaneKey).
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
	// Version increases with every change of the invocation.
	Version uint64 `json:"version"`
	// ParentToolCallID is the tool call that spawned the invocation.
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	// Children are the keys of the panes nested in this one, in start order.
	Children []string `json:"children"`
	// Steps are the invocation's steps in the order they first started,
	// each name once: a step a continued invocation starts again (as the
	// swarm's suspended researcher does after the interrupt is answered)
	// shows its latest status in its first place.
	Steps []PaneStep `json:"steps"`
	// Items are the invocation's messages in creation order: text,
	// reasoning, tool calls (with their results) and activity.
	Items []PaneItem `json:"items"`
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

// PaneItem is one entry of a pane's timeline. Which fields are set depends on
// Kind.
type PaneItem struct {
	// Kind is ItemText, ItemReasoning, ItemTool, ItemResult or ItemActivity.
	Kind string `json:"kind"`
	// ID is the message id (text, reasoning, result, activity) or the tool
	// call id (tool).
	ID string `json:"id"`
	// Role is a text message's role.
	Role event.Role `json:"role,omitempty"`
	// Text is a text or reasoning message's text so far.
	Text string `json:"text,omitempty"`
	// Open is true while a text or reasoning message is still streaming:
	// the same as Status == open, kept for clients that read it.
	Open bool `json:"open,omitempty"`
	// Name is a tool call's tool name.
	Name string `json:"name,omitempty"`
	// Args is a tool call's JSON arguments as streamed so far.
	Args string `json:"args,omitempty"`
	// Status is a text or reasoning message's status: open while it
	// streams, then closed, or abandoned when it was cut off (its run
	// errored, its transport broke or its stream was cancelled, docs/protocol.md
	// G11). For a tool call: open while its arguments stream, then closed,
	// or abandoned. Absent for result and activity items.
	Status view.EntityStatus `json:"status,omitempty"`
	// Result is a tool call's result content (a JSON string or an array of
	// content parts), or a result item's; absent while unanswered.
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

// PaneOf returns the pane of inv, an invocation of v.
func PaneOf(inv *view.Invocation, v *view.View) Pane {
	p := Pane{
		Key:      PaneKey(inv),
		Root:     inv.IsRoot(),
		Name:     inv.Name(),
		Status:   inv.Status(),
		Version:  inv.Version(),
		Children: []string{},
		Steps:    []PaneStep{},
		Items:    []PaneItem{},
		Outcome:  inv.Outcome(),
		Result:   inv.Result(),
		Error:    errorReport(inv.Error()),
	}
	if !p.Root {
		id := inv.ID()
		p.ID = &id
		parent := RootKey
		if ps, ok := inv.ParentSubagentRunID(); ok && v.Invocation(ps) != nil {
			parent = subKey(ps)
		}
		p.Parent = &parent
		p.Description = inv.Description()
		p.ParentToolCallID = inv.ParentToolCallID()
	}
	for _, c := range inv.Children() {
		p.Children = append(p.Children, subKey(c))
	}
	stepAt := map[string]int{}
	for _, s := range inv.Steps() {
		if i, ok := stepAt[s.Name]; ok {
			p.Steps[i].Status = s.Status
			continue
		}
		stepAt[s.Name] = len(p.Steps)
		p.Steps = append(p.Steps, PaneStep{Name: s.Name, Status: s.Status})
	}
	calls := map[string]view.ToolCall{}
	for _, c := range inv.ToolCalls() {
		calls[c.ID] = c
	}
	for m := range inv.Messages() {
		switch m.Role {
		case event.RoleTool:
			// A result is shown with its call when this pane holds the call.
			if m.ToolCallID != nil {
				if _, ours := calls[*m.ToolCallID]; ours {
					continue
				}
			}
			it := PaneItem{Kind: ItemResult, ID: m.ID, Result: m.Content}
			if m.ToolCallID != nil {
				it.ToolCallID = *m.ToolCallID
			}
			p.Items = append(p.Items, it)
		case event.RoleActivity:
			it := PaneItem{Kind: ItemActivity, ID: m.ID, Content: m.Content}
			if m.ActivityType != nil {
				it.ActivityType = *m.ActivityType
			}
			p.Items = append(p.Items, it)
		case event.RoleReasoning:
			st := messageStatus(v, m.ID)
			p.Items = append(p.Items, PaneItem{Kind: ItemReasoning, ID: m.ID, Text: ContentText(m.Content), Open: st == view.EntityOpen, Status: st})
		default:
			st := messageStatus(v, m.ID)
			if len(m.Content) > 0 || st != view.EntityClosed || len(m.ToolCalls) == 0 {
				p.Items = append(p.Items, PaneItem{Kind: ItemText, ID: m.ID, Role: m.Role, Text: ContentText(m.Content), Open: st == view.EntityOpen, Status: st})
			}
			for _, tc := range m.ToolCalls {
				c, ok := calls[tc.ID]
				if !ok {
					c = view.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments, Status: view.EntityClosed}
				}
				it := PaneItem{Kind: ItemTool, ID: c.ID, Name: c.Name, Args: c.Arguments, Status: c.Status, Result: c.Result}
				for _, s := range c.Subagents {
					it.Subagents = append(it.Subagents, subKey(s))
				}
				p.Items = append(p.Items, it)
			}
		}
	}
	return p
}

// messageStatus returns the status of v's message id: open, closed or
// abandoned (closed should v not hold it).
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

// Header is the JSON form of a thread's header: how the conversation
// stands, without its panes. The service sends it as the data of a "run" event
// whenever it changed.
type Header struct {
	// ID is the thread's id: the threadId of every run the service sends.
	ID string `json:"id"`
	// Agent is the agent's URL.
	Agent string `json:"agent"`
	// Active is true while a run is in progress; false once it ended (the
	// view is then final until the next one starts).
	Active bool `json:"active"`
	// Error says why the last run failed (a transport error, a
	// cancellation), "" when it did not.
	Error string `json:"error,omitempty"`
	// Runs are the runs of the thread, in order.
	Runs []HeaderRun `json:"runs"`
	// PendingInterrupts await an answer (POST /threads/{id}/runs).
	PendingInterrupts []event.Interrupt `json:"pendingInterrupts"`
	// Invocations counts the subagent invocations.
	Invocations int `json:"invocations"`
	// Violations counts the refused events.
	Violations int `json:"violations"`
	// Diagnostics are the last MaxHeaderDiagnostics violations and
	// warnings.
	Diagnostics []HeaderDiagnostic `json:"diagnostics"`
}

// MaxHeaderDiagnostics bounds Header.Diagnostics: the header carries the
// latest ones; GET /threads/{id}/view has them all.
const MaxHeaderDiagnostics = 50

// HeaderRun is one run of a Header: one request to the agent.
type HeaderRun struct {
	ThreadID string                    `json:"threadId"`        // RUN_STARTED's thread
	RunID    string                    `json:"runId"`           // RUN_STARTED's run id
	Status   view.RunStatus            `json:"status"`          // running, finished, errored, interrupted, incomplete, cancelled or failed
	Outcome  *event.RunFinishedOutcome `json:"outcome"`         // RUN_FINISHED's outcome; null when absent or not finished
	Error    *ErrorReport              `json:"error"`           // RUN_ERROR's or the transport's error; null when none
	Usage    *RunUsage                 `json:"usage,omitempty"` // the tokens the run reported; absent when it reported none
}

// RunUsage is a run's token usage, summed over what it reported
// (view.Run.Tokens).
type RunUsage struct {
	Input  int64 `json:"input"`  // tokens read
	Output int64 `json:"output"` // tokens written
	Total  int64 `json:"total"`  // tokens in all
}

// HeaderDiagnostic is one diagnostic of a Header.
type HeaderDiagnostic struct {
	Index   int           `json:"index"`   // the event's index in the stream
	Kind    view.DiagKind `json:"kind"`    // violation or warning
	Rule    string        `json:"rule"`    // the docs/protocol.md rule id
	Type    event.Type    `json:"type"`    // the event's wire type; "" when unknown
	Message string        `json:"message"` // what, where and why
}

// HeaderOf returns the header of the thread id, for the agent at agent,
// whose latest view is v; active and runErr say whether a run is in progress
// and how the last one ended.
func HeaderOf(id, agent string, v *view.View, active bool, runErr string) Header {
	h := Header{
		ID:                id,
		Agent:             agent,
		Active:            active,
		Error:             runErr,
		Runs:              []HeaderRun{},
		PendingInterrupts: v.PendingInterrupts(),
		Invocations:       v.InvocationCount(),
		Violations:        v.ViolationCount(),
		Diagnostics:       []HeaderDiagnostic{},
	}
	if h.PendingInterrupts == nil {
		h.PendingInterrupts = []event.Interrupt{}
	}
	for _, r := range v.Runs() {
		hr := HeaderRun{ThreadID: r.ThreadID, RunID: r.RunID, Status: r.Status, Outcome: r.Outcome, Error: errorReport(r.Error)}
		if tk := r.Tokens(); tk.Reported {
			hr.Usage = &RunUsage{Input: tk.Input, Output: tk.Output, Total: tk.Total}
		}
		h.Runs = append(h.Runs, hr)
	}
	ds := v.Diagnostics()
	for _, d := range ds[max(0, len(ds)-MaxHeaderDiagnostics):] {
		h.Diagnostics = append(h.Diagnostics, HeaderDiagnostic{Index: d.Index, Kind: d.Kind, Rule: d.Rule, Type: d.Type, Message: d.Message})
	}
	return h
}

// State is the JSON form of the thread's state, sent as the data of a
// "state" event whenever it changed.
type State struct {
	// State is the document (any JSON value).
	State json.RawMessage `json:"state"`
	// ChangedBy is the subagentRunId of the invocation that changed it
	// last; null for the parent agent or before any change. Provenance only:
	// the state belongs to the run.
	ChangedBy *string `json:"changedBy"`
}

// StateOf returns the state of v.
func StateOf(v *view.View) State {
	s := State{State: v.State()}
	if id, ok := v.StateChangedBy(); ok {
		s.ChangedBy = &id
	}
	return s
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
