package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/agview/agview/event"
	"github.com/agview/agview/store"
	"github.com/agview/agview/view"
)

// The journal's input records (docs/journal-format.md). A run's input record
// holds only what the journal does not already hold: it is the run's
// RunAgentInput JSON whose "messages" are those after the first N messages
// of the thread's history as the journal's own fold holds it when the record
// is read, with three members of agview's added:
//
//	"agviewBase": N          the input's history starts with the first N
//	                         messages (activity left out, as NextInput leaves
//	                         them) of the view folded from the records before
//	                         this one; "messages" holds the rest
//	"agviewBaseId": "ID"     the id of the Nth of them, checked when read
//	"agviewStateSame": true  the input's state is the view's state, byte for
//	                         byte; "state" is left out
//
// A record without agviewBase holds the whole input, as every input record
// did before (and as one does whose history was rewritten from its first
// message): both read the same way.
const (
	baseKey      = "agviewBase"
	baseIDKey    = "agviewBaseId"
	stateSameKey = "agviewStateSame"
)

// InputRecordError reports an input record that refers to messages of the
// thread's history the view it is read against does not hold: the journal
// was not folded in order, or was written by a writer whose view of the
// thread was not the journal's. Match it with errors.As.
type InputRecordError struct {
	// Base is the number of history messages the record refers to, BaseID
	// the id of the last of them.
	Base   int
	BaseID string
	// Held is the number of messages (activity left out) the view holds.
	Held int
	// Reason says what does not match.
	Reason string
}

// Error says what the record refers to and what the view holds.
func (e *InputRecordError) Error() string {
	return fmt.Sprintf("client: input record: its history starts with %d messages of the journal's view, up to %q, but %s", e.Base, e.BaseID, e.Reason)
}

// EncodeInputRecord returns the journal record of in, the input of a run
// about to start on a thread whose journal folds, up to this record, into
// base (nil: nothing, a new thread). It holds what base does not: the
// messages after the longest run of leading messages base holds as they are
// (the same id and the same bytes; activity messages, which an input never
// carries, left out), the interrupt answers, and the state only when it is
// not base's. DecodeInputRecord, given the same view, returns in again.
//
// A writer that keeps its own fold of the thread (a service, package
// client's recorder) passes the view it folded from every record before the
// one it is about to append, under the thread's lease.
func EncodeInputRecord(base *view.View, in *event.RunAgentInput) ([]byte, error) {
	if base == nil {
		return json.Marshal(in)
	}
	n, lastID := 0, ""
	for m := range historyOf(base) {
		if n == len(in.Messages) || !sameMessage(&m, &in.Messages[n]) {
			break
		}
		lastID = m.ID
		n++
	}
	same := in.State != nil && bytes.Equal(in.State, base.State())
	if n == 0 && !same {
		return json.Marshal(in)
	}
	rec := *in
	rec.Messages = in.Messages[n:]
	if same {
		rec.State = nil
	}
	data, err := json.Marshal(&rec)
	if err != nil {
		return nil, err
	}
	data = data[:len(data)-1] // the object's closing brace
	if n > 0 {
		id, _ := json.Marshal(lastID) // a string always marshals
		data = append(data, `,"`+baseKey+`":`...)
		data = strconv.AppendInt(data, int64(n), 10)
		data = append(data, `,"`+baseIDKey+`":`...)
		data = append(data, id...)
	}
	if same {
		data = append(data, `,"`+stateSameKey+`":true`...)
	}
	return append(data, '}'), nil
}

// DecodeInputRecord returns the RunAgentInput of an input record (from
// EncodeInputRecord, or a whole input as older writers recorded it), read
// against base, the view folded from the records before it. It returns an
// *event.DecodeError when the record does not decode, an *InputRecordError
// when it refers to history base does not hold.
func DecodeInputRecord(base *view.View, data []byte) (*event.RunAgentInput, error) {
	r, err := parseInputRecord(data)
	if err != nil {
		return nil, err
	}
	if base == nil {
		base = view.New()
	}
	in := r.in
	if r.stateSame {
		in.State = base.State()
	}
	if r.held == 0 {
		return in, nil
	}
	msgs := make([]event.Message, 0, r.held+len(in.Messages))
	for m := range historyOf(base) {
		if len(msgs) == r.held {
			break
		}
		msgs = append(msgs, m)
	}
	switch {
	case len(msgs) < r.held:
		return nil, &InputRecordError{Base: r.held, BaseID: r.heldID, Held: len(msgs), Reason: fmt.Sprintf("the view holds %d", len(msgs))}
	case msgs[r.held-1].ID != r.heldID:
		return nil, &InputRecordError{Base: r.held, BaseID: r.heldID, Held: historyLen(base), Reason: fmt.Sprintf("the view's message %d is %q", r.held, msgs[r.held-1].ID)}
	}
	in.Messages = append(msgs, in.Messages...)
	return in, nil
}

// FoldInputRecord folds an input record (from EncodeInputRecord, or a whole
// input) into s, whose view is the one the journal's records before it
// fold into, as JournalFolder folds it: without reading the history it
// continues (reducer.InputAfter). It returns the record's input, whose
// Messages are those the record holds (the history's new messages; all of
// it for a whole input), with an *event.DecodeError when the record does
// not decode (the input is then nil), or what the store returned (a
// *reducer.InputError when the record refers to history the view does not
// hold; nothing is then folded).
func FoldInputRecord(s *store.Store, data []byte) (*event.RunAgentInput, error) {
	r, err := parseInputRecord(data)
	if err != nil {
		return nil, err
	}
	if r.stateSame {
		r.in.State = s.View().State()
	}
	return r.in, s.InputAfter(r.held, r.heldID, r.in)
}

// inputRecord is an input record as read: in holds the messages after the
// first held of the view's.
type inputRecord struct {
	in        *event.RunAgentInput
	held      int
	heldID    string
	stateSame bool
}

// parseInputRecord reads an input record.
func parseInputRecord(data []byte) (*inputRecord, error) {
	in, _, err := event.DecodeInput(data) // agview's members are unknown: warned, dropped
	if err != nil {
		return nil, err
	}
	r := &inputRecord{in: in}
	if !bytes.Contains(data, []byte(`"agview`)) {
		return r, nil // a whole input
	}
	var x struct {
		Base      int    `json:"agviewBase"`
		BaseID    string `json:"agviewBaseId"`
		StateSame bool   `json:"agviewStateSame"`
	}
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err // a member of agview's that is not what it should be
	}
	if x.Base < 0 || (x.Base > 0 && x.BaseID == "") {
		return nil, &InputRecordError{Base: x.Base, BaseID: x.BaseID, Reason: "the record names no such messages"}
	}
	r.held, r.heldID, r.stateSame = x.Base, x.BaseID, x.StateSame
	return r, nil
}

// historyOf iterates v's messages as an input carries them: activity left
// out (NextInput).
func historyOf(v *view.View) func(func(event.Message) bool) {
	return func(yield func(event.Message) bool) {
		for m := range v.Messages() {
			if m.Role == event.RoleActivity {
				continue
			}
			if !yield(m) {
				return
			}
		}
	}
}

func historyLen(v *view.View) int {
	n := 0
	for range historyOf(v) {
		n++
	}
	return n
}

// sameMessage reports whether an input's message is the one the view holds:
// the same id, and equal member by member (raw JSON byte for byte), so that
// folding either gives the same view.
func sameMessage(held, sent *event.Message) bool {
	return held.ID == sent.ID && reflect.DeepEqual(*held, *sent)
}
