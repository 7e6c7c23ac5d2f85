package reducer

import (
	"fmt"

	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// InputAfter folds the input of a run whose history is the first held
// messages v holds, as an input carries them (in order, activity messages
// left out, as client.NextInput sends them), followed by in.Messages: the
// view Input(v, whole) returns, whole being in with that history. A journal
// keeps a run's input that way (package client's input records), so that a
// thread's journal holds each message once.
//
// lastID, when not "", is the id of the held-th of those messages: when v
// holds another there (the journal was not folded in order), or fewer than
// held, InputAfter returns v and an *InputError of rule "G15" naming lastID.
//
// When held is every message of v's but activity, and in.Messages holds no
// activity message and no id v holds (a conversation continued: the common
// case), it reads O(messages v holds) records, none of their content, and
// O(in.Messages); otherwise it folds the whole input as Input does.
func InputAfter(v *view.View, held int, lastID string, in *event.RunAgentInput) (*view.View, error) {
	if in == nil {
		in = &event.RunAgentInput{}
	}
	st := state(v)
	count, at := 0, ""
	for _, m := range st.Cold.ListMsgs(st.Node) {
		if m.Role() == event.RoleActivity {
			continue
		}
		count++
		if count == held {
			at = m.ID
		}
	}
	switch {
	case held < 0 || count < held:
		return v, &InputError{Rule: "G15", MessageID: lastID, Index: -1,
			Reason: fmt.Sprintf("the history starts with %d messages of the view's, which holds %d", held, count)}
	case held > 0 && lastID != "" && at != lastID:
		return v, &InputError{Rule: "G15", MessageID: lastID, Index: held - 1,
			Reason: fmt.Sprintf("the view's message %d is '%s'", held, at)}
	}
	continued := count == held
	for i := range in.Messages {
		if in.Messages[i].Role == event.RoleActivity || st.Cold.Listed(in.Messages[i].ID) {
			continued = false
			break
		}
	}
	if continued {
		return input(v, in, true, true)
	}
	whole := *in
	whole.Messages = make([]event.Message, 0, held+len(in.Messages))
	for m := range v.Messages() {
		if len(whole.Messages) == held {
			break
		}
		if m.Role != event.RoleActivity {
			whole.Messages = append(whole.Messages, m)
		}
	}
	whole.Messages = append(whole.Messages, in.Messages...)
	return Input(v, &whole)
}

// InputAfter folds a run's input as InputAfter does; the Builder then goes
// on from the view it returns. On an error nothing changes.
func (b *Builder) InputAfter(held int, lastID string, in *event.RunAgentInput) error {
	nv, err := InputAfter(b.View(), held, lastID, in)
	if err != nil {
		return err
	}
	b.sm, b.remembered = streams{}, lookups{}
	b.cur, b.owned = nv, true
	return nil
}

// historyAfter folds, as history does, a history that is every message the
// view holds but activity (each left as it is) followed by msgs, new ones:
// the owners of the held messages are recorded again as the history's would
// be (R25), then msgs are appended.
func (f *folder) historyAfter(msgs []event.Message) {
	held := make([]event.Message, 0, f.st.Cold.ListLen())
	for _, m := range f.st.Cold.ListMsgs(f.peek) {
		if m.Role() == event.RoleActivity {
			continue
		}
		hm := event.Message{ID: m.ID, Role: m.Role(), Subagent: m.Info().Tag}
		if m.HasCalls {
			calls := m.Calls()
			hm.ToolCalls = make([]event.ToolCall, calls.Len())
			for i := range calls.Len() {
				hm.ToolCalls[i].ID = calls.At(i).ID
			}
		}
		held = append(held, hm)
	}
	// In order, as history records them: a later message's owners may
	// overwrite an earlier one's (a tool call two messages hold).
	for _, list := range [][]event.Message{held, msgs} {
		for i := range list {
			if !f.ownedAs(&list[i]) {
				f.own(&list[i], true)
			}
		}
	}
	f.echoInput(msgs)
}
