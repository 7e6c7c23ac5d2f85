package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
)

var minted = regexp.MustCompile(`^<minted-uuid-\d+>$`)

// CheckFinal compares the final messages, state and pending interrupts a
// consumer produced (each as JSON) with the vector's expectation, as the
// README says: JSON values compared with key order aside, absent keys absent,
// and a message whose expected id is a <minted-uuid-N> placeholder compared
// by everything but its id (one placeholder standing for one id). It returns
// one line per difference; none means the consumer passes. It must only be
// called for accepting vectors.
func (v *Vector) CheckFinal(messages, state, pendingInterrupts json.RawMessage) []string {
	e := &v.Expect
	return checkFinal(e.Messages, e.State, e.PendingInterrupts, messages, state, pendingInterrupts)
}

// checkFinal compares final messages, state and pending interrupts with
// the expected ones.
func checkFinal(wantMsgs, wantState, wantPending, messages, state, pendingInterrupts json.RawMessage) []string {
	var diffs []string
	diffs = append(diffs, compareMessages("messages", wantMsgs, messages)...)
	diffs = append(diffs, compareValue("state", wantState, state)...)
	diffs = append(diffs, compareValue("pendingInterrupts", wantPending, pendingInterrupts)...)
	return diffs
}

func compareValue(what string, want, got json.RawMessage) []string {
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		return []string{fmt.Sprintf("expected %s does not decode: %v", what, err)}
	}
	if err := json.Unmarshal(got, &g); err != nil {
		return []string{fmt.Sprintf("%s does not decode: %v", what, err)}
	}
	if !reflect.DeepEqual(w, g) {
		return []string{fmt.Sprintf("%s:\n  want %s\n  got  %s", what, mustJSON(w), mustJSON(g))}
	}
	return nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}
