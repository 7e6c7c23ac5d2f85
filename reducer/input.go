package reducer

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/patch"
	"github.com/agview/agview/view"
)

// InputError reports a run input whose history Input refuses: nothing of it
// is folded, and a client sends nothing. Match it with errors.As.
type InputError struct {
	// Rule is the docs/protocol.md rule the input breaks: "A1" (two history
	// messages share an id) or "E3" (the state, or a message's content or
	// metadata, is not a JSON value).
	Rule string
	// MessageID names the offending history message; "" when the input's
	// state is at fault.
	MessageID string
	// Index is the position of the offending message in input.messages, -1
	// when the state is at fault.
	Index int
	// Reason says what is wrong.
	Reason string
}

// Error names the rule, the message and what is wrong.
func (e *InputError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("run input refused: %s: %s", e.Rule, e.Reason)
	}
	return fmt.Sprintf("run input refused: %s: message '%s' (messages[%d]): %s", e.Rule, e.MessageID, e.Index, e.Reason)
}

// Input folds the input of a run about to start into v, as a client holding
// the conversation does before it sends it (docs/protocol.md G15): the run's input
// is data, like an event, and the stream that answers it folds onto it.
//
//   - in.Messages become the history: folded in order as a MESSAGES_SNAPSHOT
//     of them would be (§7): a message v already holds is replaced in place
//     by the input's version, a message the input does not name is removed —
//     except client-only activity messages (never sent in an input) and, when
//     the input holds no reasoning, reasoning messages — and the input's new
//     messages are appended in order. On a new view that is simply the
//     history, in order; when the input continues the conversation v holds
//     (its history as NextInput in package client sends it, plus new
//     messages) the messages v holds are left exactly as they are (an
//     abandoned one stays abandoned) and only the new ones are appended. Each message is owned as its subagentRunId says
//     (R25: owners are overwritten; its tool calls inherit it), so a later
//     event into it under another owner is refused as R15/R16/R18 say; a
//     tool message answers the call it names. Two messages with one id are
//     refused (A1), and so is a content or metadata that is not one JSON
//     value within the decoder's nesting limit (E3; a history built in Go
//     can hold one). (subagentRunId: null, R1, cannot be spelled in an
//     event.Message: event.DecodeInput refuses it in JSON.)
//   - in.State, when present, becomes the run state (the reference starts a
//     run from the state it sends); absent, the state stays.
//   - in.ThreadID becomes the conversation's thread ([view.View.Thread]);
//     "" leaves it as it was.
//   - A new stream begins: one still open in v is first ended as End(v, nil)
//     does, then the next event must be RUN_STARTED (or RUN_ERROR) again
//     (V1), and End may end this stream in turn. Pending interrupts stay
//     until the run finishes (the input's resume entries answer them; see
//     package client for the checks a client makes before sending).
//
// The input is not an event: it does not count in [view.View.EventCount],
// so event indices stay those of the streams. Input is pure like Reduce: v
// and in are not changed, and on an *InputError v itself is returned. It
// reads O(history + messages v holds) and, continuing a conversation,
// changes the view by O(new messages).
func Input(v *view.View, in *event.RunAgentInput) (*view.View, error) {
	return input(v, in, true, false)
}

// input is Input; continuing false always takes the snapshot path (tests
// compare the two). held: the history is every message v holds but
// activity, then in.Messages, which name none of v's messages and hold no
// activity (InputAfter).
func input(v *view.View, in *event.RunAgentInput, continuing, held bool) (*view.View, error) {
	if in == nil {
		in = &event.RunAgentInput{}
	}
	seen := make(map[string]int, len(in.Messages))
	for i := range in.Messages {
		id := in.Messages[i].ID
		if j, dup := seen[id]; dup {
			return v, &InputError{Rule: "A1", MessageID: id, Index: i,
				Reason: fmt.Sprintf("messages[%d] has the same id; one id names one message", j)}
		}
		seen[id] = i
		if member := invalidJSON(&in.Messages[i]); member != "" {
			return v, &InputError{Rule: event.RuleSchema, MessageID: id, Index: i,
				Reason: member + " is not a JSON value (or nests deeper than 10,000 levels)"}
		}
	}
	var doc patch.Document
	if in.State != nil {
		d, err := patch.New(in.State)
		if err != nil {
			return v, &InputError{Rule: event.RuleSchema, Index: -1, Reason: fmt.Sprintf("state is not a JSON value: %v", err)}
		}
		doc = d
	}
	if !v.Ended() && v.EventCount() > 0 {
		v = End(v, nil)
	}
	nv, _ := next(v)
	fv := newFolder(nv, "")
	f := &fv
	f.resetScope(model.RunScope{})
	r := f.writeRest()
	r.Ended, r.Phase = false, model.PhaseNone
	if in.ThreadID != "" {
		r.Thread = in.ThreadID
	}
	if held {
		f.historyAfter(in.Messages)
	} else if viol := f.history(in.Messages, continuing); viol != nil {
		// Unreachable: duplicates were refused above.
		return v, &InputError{Rule: viol.Rule, Index: -1, Reason: viol.Message}
	}
	if in.State != nil {
		r := f.writeRest()
		r.Doc, r.DocBy, r.DocSet = doc, model.Owner{}, false
	}
	f.commit()
	return publish(nv), nil
}

// history folds a run input's messages as a MESSAGES_SNAPSHOT of them.
// When they continue the conversation the view holds — every message it
// holds that the snapshot would keep is in msgs, unchanged, and nothing it
// holds would be removed — the result is the same with the held messages
// left as they are (their status, abandoned ones included, and their place
// in their invocations), so only the new messages are appended, their owners
// and those of the held ones recorded as the snapshot would (R25). That is
// the common case (NextInput's history plus the next user message), and it
// costs O(new messages) in the view instead of a copy of every message.
func (f *folder) history(msgs []event.Message, continuing bool) *Violation {
	if !continuing || !f.continues(msgs) {
		return f.messagesSnapshot(&event.MessagesSnapshot{Messages: msgs})
	}
	var fresh []event.Message
	for i := range msgs {
		if !f.ownedAs(&msgs[i]) {
			f.own(&msgs[i], true)
		}
		if !f.st.Cold.Listed(msgs[i].ID) {
			fresh = append(fresh, msgs[i])
		}
	}
	f.echoInput(fresh)
	return nil
}

// ownedAs reports whether the owners recorded for a history message and its
// tool calls are already those own(hm, true) would record.
func (f *folder) ownedAs(hm *event.Message) bool {
	owner := tagOwner(hm.Subagent)
	if rec, ok := f.st.Cold.MsgOwner(hm.ID); !ok || rec != (model.OwnerRec{Owner: owner, Kind: model.KindOf(hm.Role)}) {
		return false
	}
	for _, tc := range hm.ToolCalls {
		if o, ok := f.st.Cold.CallOwner(tc.ID); !ok || o != owner {
			return false
		}
	}
	return true
}

// continues reports whether folding msgs as a snapshot would leave every
// message the view holds as it is: each one msgs names is equal to its
// version there, and each one it does not name is client-only activity or
// reasoning the snapshot's rules preserve.
func (f *folder) continues(msgs []event.Message) bool {
	named := make(map[string]*event.Message, len(msgs))
	hasActivity, hasReasoning := false, false
	for i := range msgs {
		named[msgs[i].ID] = &msgs[i]
		switch msgs[i].Role {
		case event.RoleActivity:
			hasActivity = true
		case event.RoleReasoning:
			hasReasoning = true
		}
	}
	for id := range f.st.Cold.ListAll(f.peek) {
		m, _, ok := f.msg(id)
		if !ok {
			return false
		}
		hm, isNamed := named[id]
		switch {
		case isNamed:
			if !reflect.DeepEqual(m.Message(), *hm) {
				return false
			}
		case m.Role() == event.RoleActivity && !hasActivity, m.Role() == event.RoleReasoning && !hasReasoning:
		default:
			return false
		}
	}
	return true
}

// invalidJSON names the raw JSON member of m that is not one JSON value
// within the decoder's nesting limit, or returns "". A history built in Go
// (not decoded by event.DecodeInput) may hold one, and the view could not
// be written as JSON afterwards.
func invalidJSON(m *event.Message) string {
	if len(m.Content) > 0 && !json.Valid(m.Content) {
		return "content"
	}
	if len(m.Metadata) > 0 && !json.Valid(m.Metadata) {
		return "metadata"
	}
	for j := range m.ToolCalls {
		if md := m.ToolCalls[j].Metadata; len(md) > 0 && !json.Valid(md) {
			return fmt.Sprintf("toolCalls[%d].metadata", j)
		}
	}
	return ""
}

// Input folds a run's input as Input does; the Builder then goes on from
// the view it returns. On an *InputError nothing changes.
func (b *Builder) Input(in *event.RunAgentInput) error {
	cur := b.View()
	nv, err := Input(cur, in)
	if err != nil {
		return err
	}
	// Messages may have moved or left: forget where streamed deltas went.
	b.sm, b.remembered = streams{}, lookups{}
	b.cur, b.owned = nv, true
	return nil
}
