package reducer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// FuzzReduce feeds arbitrary event sequences (JSON Lines) to the reducer: it
// must never panic, a refused event must never change the view it was
// refused against, and every view must stay readable.
func FuzzReduce(f *testing.F) {
	vecs, err := conformance.Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, vec := range vecs {
		if len(vec.Events) <= 60 {
			f.Add(vec.JSONL())
		}
	}
	f.Add([]byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n" + `{"type":"TEXT_MESSAGE_CHUNK","delta":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v := view.New()
		for _, line := range bytes.Split(data, []byte{'\n'}) {
			e, err := event.Decode(line)
			if err != nil {
				v, _ = reducer.FoldJSON(v, line)
				continue
			}
			before, err := v.MarshalJSON()
			if err != nil {
				t.Fatalf("MarshalJSON: %v", err)
			}
			next, err := reducer.Reduce(v, e)
			if err != nil {
				var viol *reducer.Violation
				if !errors.As(err, &viol) {
					t.Fatalf("Reduce error %T is not a *Violation: %v", err, err)
				}
				if next != v {
					t.Fatalf("a refused event returned another view")
				}
				after, _ := v.MarshalJSON()
				if !bytes.Equal(before, after) {
					t.Fatalf("a refused event (%v) changed the view:\n%s\n%s", err, before, after)
				}
				v, _ = reducer.Fold(v, e)
				continue
			}
			v = next
		}
		for _, end := range []error{nil, errors.New("broken"), nil} {
			w := reducer.End(v, end)
			if _, err := w.MarshalJSON(); err != nil {
				t.Fatalf("MarshalJSON after End: %v", err)
			}
		}
		for inv := range v.Invocations() {
			_ = inv.ToolCalls()
			_ = inv.Reasoning()
			_ = inv.Activity()
			_ = inv.Spans()
			_ = inv.Steps()
		}
	})
}

// FuzzReduceEvents builds event sequences from a small vocabulary (a few
// ids, tags and types) so that fuzzing explores the reducer's rules rather
// than the decoder: every four bytes make one event. The properties are
// those of FuzzReduce.
func FuzzReduceEvents(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 5, 0, 1, 0, 6, 0, 1, 3, 7, 0, 0, 0, 1, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 28, 1, 0, 0, 5, 0, 2, 0, 8, 1, 2, 1, 29, 1, 0, 1, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		data = fuzzPrefix(data)
		v := view.New()
		var evs []event.Event
		var views []*view.View
		for i := 0; i+4 <= len(data); i += 4 {
			e := fuzzEvent(data[i], data[i+1], data[i+2], data[i+3])
			evs = append(evs, e)
			views = append(views, v)
			before, _ := v.MarshalJSON()
			next, err := reducer.Reduce(v, e)
			if err != nil {
				if next != v {
					t.Fatalf("a refused event returned another view")
				}
				if after, _ := v.MarshalJSON(); !bytes.Equal(before, after) {
					t.Fatalf("a refused %s changed the view: %v", e.EventType(), err)
				}
				v, _ = reducer.Fold(v, e)
				continue
			}
			v = next
		}
		if _, err := reducer.End(v, errors.New("cut")).MarshalJSON(); err != nil {
			t.Fatal(err)
		}
		// Folding again from a view in the middle, after the first pass
		// appended to everything it shares, gives the same result.
		if len(evs) > 0 {
			final, _ := v.MarshalJSON()
			mid := len(evs) / 2
			w := views[mid]
			for _, e := range evs[mid:] {
				w, _ = reducer.Fold(w, e)
			}
			if again, _ := w.MarshalJSON(); !bytes.Equal(final, again) {
				t.Fatalf("folding from event %d again differs:\n%s\n%s", mid, final, again)
			}
		}
	})
}

// maxFuzzEvents bounds the events a fuzz input of four bytes an event
// makes: the targets check the whole view after each event, which costs
// O(n²) in the test itself, and a bug shows in far fewer events. At 1024
// events, a run of activity snapshots (a 170 KB view, checked four ways
// after each) took 5 s, and over the fuzzer's 10 s limit with its
// instrumentation, which it reports as a hang.
const maxFuzzEvents = 256

// fuzzPrefix returns the part of data that makes at most maxFuzzEvents
// events.
func fuzzPrefix(data []byte) []byte { return data[:min(len(data), 4*maxFuzzEvents)] }

func fuzzEvent(op, idb, tagb, flag byte) event.Event {
	ids := []string{"a", "b", "c", "s1", "s2"}
	id := ids[int(idb)%len(ids)]
	var tag event.Attribution
	switch tagb % 4 {
	case 1:
		tag = event.By("s1")
	case 2:
		tag = event.By("s2")
	case 3:
		tag = event.By("")
	}
	var opt *string
	if flag%2 == 1 {
		opt = &id
	}
	delta := string(rune('a' + flag%26))
	if flag%16 == 15 {
		delta = "" // empty deltas change nothing, but count
	}
	switch op % 36 {
	case 0:
		return &event.RunStarted{ThreadID: "t", RunID: id}
	case 1:
		return &event.RunFinished{ThreadID: "t", RunID: id}
	case 2:
		return &event.RunFinished{ThreadID: "t", RunID: id, Outcome: &event.RunFinishedOutcome{Type: event.OutcomeInterrupt, Interrupts: []event.Interrupt{{ID: id, Reason: "r", Subagent: tag.Subagent}}}}
	case 3:
		return &event.RunError{Message: "x"}
	case 4:
		return &event.StepStarted{Attribution: tag, StepName: id}
	case 5:
		return &event.TextMessageStart{Attribution: tag, MessageID: id}
	case 6:
		return &event.TextMessageContent{Attribution: tag, MessageID: id, Delta: delta}
	case 7:
		return &event.TextMessageEnd{Attribution: tag, MessageID: id}
	case 8:
		return &event.ToolCallStart{Attribution: tag, ToolCallID: id, ToolCallName: "f", ParentMessageID: opt}
	case 9:
		return &event.ToolCallArgs{Attribution: tag, ToolCallID: id, Delta: delta}
	case 10:
		return &event.ToolCallEnd{Attribution: tag, ToolCallID: id}
	case 11:
		return &event.ToolCallResult{Attribution: tag, MessageID: "r" + delta, ToolCallID: id, Content: []byte(`"ok"`)}
	case 12:
		return &event.StateSnapshot{Attribution: tag, Snapshot: []byte(`{"n":[1]}`)}
	case 13:
		return &event.StateDelta{Attribution: tag, Delta: []byte(`[{"op":"add","path":"/n/-","value":2}]`)}
	case 14:
		return &event.MessagesSnapshot{Messages: []event.Message{{ID: id, Role: event.RoleAssistant, Content: []byte(`"snap"`), Subagent: tag.Subagent}}}
	case 15:
		return &event.ActivitySnapshot{Attribution: tag, MessageID: id, ActivityType: "P", Content: []byte(`{"l":[]}`), Replace: func() *bool { b := flag%3 != 0; return &b }()}
	case 16:
		return &event.ActivityDelta{Attribution: tag, MessageID: id, ActivityType: "P", Patch: []byte(`[{"op":"add","path":"/l/-","value":1}]`)}
	case 17:
		return &event.Custom{Attribution: tag, Name: "c", Value: []byte(`null`)}
	case 18:
		return &event.ReasoningStart{Attribution: tag, MessageID: id}
	case 19:
		return &event.ReasoningMessageStart{Attribution: tag, MessageID: id, Role: event.RoleReasoning}
	case 20:
		return &event.ReasoningMessageContent{Attribution: tag, MessageID: id, Delta: delta}
	case 21:
		return &event.ReasoningMessageEnd{Attribution: tag, MessageID: id}
	case 22:
		return &event.ReasoningEnd{Attribution: tag, MessageID: id}
	case 23:
		st := event.EncryptedMessage
		if flag%2 == 0 {
			st = event.EncryptedToolCall
		}
		return &event.ReasoningEncryptedValue{Attribution: tag, Subtype: st, EntityID: id, EncryptedValue: "E"}
	case 24:
		return &event.TextMessageChunk{Attribution: tag, MessageID: opt, Delta: &delta}
	case 25:
		name := "f"
		return &event.ToolCallChunk{Attribution: tag, ToolCallID: opt, ToolCallName: &name, Delta: &delta}
	case 26:
		return &event.ReasoningMessageChunk{Attribution: tag, MessageID: opt, Delta: &delta}
	case 27:
		return &event.StepFinished{Attribution: tag, StepName: id}
	case 28:
		e := &event.SubagentStarted{ID: id, Name: "n", ParentToolCallID: opt}
		if flag%3 == 0 {
			p := ids[int(flag)%len(ids)]
			e.ParentSubagentRunID = &p
		}
		return e
	case 29:
		var o *event.SubagentOutcome
		switch flag % 4 {
		case 1:
			o = &event.SubagentOutcome{Type: event.SubagentSuspended, InterruptIDs: []string{id}}
		case 2:
			o = &event.SubagentOutcome{Type: "bogus"}
		}
		return &event.SubagentFinished{ID: id, Outcome: o}
	case 30:
		return &event.SubagentError{ID: id, Message: "x"}
	case 31:
		return &event.ThinkingStart{}
	case 32:
		return &event.ThinkingTextMessageStart{}
	case 33:
		return &event.ThinkingTextMessageContent{Delta: delta}
	case 34:
		return &event.ThinkingTextMessageEnd{}
	default:
		return &event.ThinkingEnd{}
	}
}

// FuzzHistoryEvents is FuzzReduceEvents for what moves messages around in
// the list: MESSAGES_SNAPSHOTs and run inputs restating, re-tagging and
// dropping messages that hold calls (assistant messages, and the client-only
// reasoning and activity a snapshot keeps), tool results inserted after
// their holders, replacing ACTIVITY_SNAPSHOTs re-owning a message. Every
// event goes through every fold path (Fold, FoldJSON, the Builder's Fold and
// FoldJSON: same views, and none handed out changes afterwards); the stream
// is then forked from a view in the middle, which must end as a fresh fold
// of the same events does and leave every view published before as it was.
// Each byte makes one choice (see historyEvent).
func FuzzHistoryEvents(f *testing.F) {
	f.Add([]byte{0, 5, 0, 1, 0, 2, 3, 0, 9, 0, 2, 3, 0, 0, 1, 7, 0, 3, 1, 0, 0})
	f.Add([]byte{6, 4, 5, 1, 1, 1, 1, 2, 1, 9, 9, 0, 1, 5, 0, 3, 1, 2, 9, 0, 3, 9, 1, 2, 3, 5, 2, 2})
	// A snapshot re-tags a listed message into another node, then a result.
	f.Add([]byte("0000X0020(0000A001"))
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:min(len(data), 4*maxFuzzEvents)]
		next := func(n int) int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(b) % n
		}
		evs := []event.Event{&event.RunStarted{ThreadID: "t", RunID: "r"}}
		for len(data) > 0 {
			evs = append(evs, historyEvent(next))
		}
		p := newPaths(t)
		views := []*view.View{view.New()}
		for i, e := range evs {
			line, err := event.Encode(e)
			if err != nil {
				t.Fatalf("Encode %s: %v", e.EventType(), err)
			}
			p.line(i, line, i%3 == 2)
			views = append(views, p.ref)
			// The fork below folds what the wire paths folded (the decoder
			// keeps toolCalls for assistant messages only).
			if evs[i], err = event.Decode(line); err != nil {
				t.Fatalf("Decode %s: %v", line, err)
			}
		}
		p.end()
		jsons := make([][]byte, len(views))
		for i, v := range views {
			jsons[i] = viewJSON(t, v)
		}
		// Fork at the middle: the second half again, then the first half's
		// events, from the middle's view and from scratch.
		mid := len(evs) / 2
		fork := slices.Clone(evs[mid:])
		if mid > 1 {
			fork = append(fork, evs[1:mid]...)
		}
		w := views[mid]
		fresh := view.New()
		for _, e := range evs[:mid] {
			fresh, _ = reducer.Fold(fresh, e)
		}
		for _, e := range fork {
			w, _ = reducer.Fold(w, e)
			fresh, _ = reducer.Fold(fresh, e)
		}
		if a, b := viewJSON(t, w), viewJSON(t, fresh); !bytes.Equal(a, b) {
			t.Fatalf("the fork at event %d differs from a fresh fold:\n%s\n%s", mid, a, b)
		}
		for i, v := range views {
			if got := viewJSON(t, v); !bytes.Equal(jsons[i], got) {
				t.Fatalf("view %d changed after the fork at event %d:\n%s\n%s", i, mid, jsons[i], got)
			}
		}
		checkMessageReaders(t, w)
		checkMessageReaders(t, p.ref)
	})
}

// checkMessageReaders checks that Message, MessageStatus and ToolCall agree
// with Messages for every message of v's list and every call it holds.
func checkMessageReaders(t *testing.T, v *view.View) {
	t.Helper()
	for m := range v.Messages() {
		got, ok := v.Message(m.ID)
		if !ok || !reflect.DeepEqual(got, m) {
			t.Fatalf("Message(%q) = %+v, %v; Messages holds %+v", m.ID, got, ok, m)
		}
		if _, ok := v.MessageStatus(m.ID); !ok {
			t.Fatalf("MessageStatus(%q) finds no message; Messages holds it", m.ID)
		}
		for _, c := range m.ToolCalls {
			if tc, ok := v.ToolCall(c.ID); ok && tc.MessageID == m.ID && tc.Name != c.Function.Name {
				t.Fatalf("ToolCall(%q) is named %q; message %q holds it named %q", c.ID, tc.Name, m.ID, c.Function.Name)
			}
		}
	}
}

// historyEvent makes one event of FuzzHistoryEvents' vocabulary, each
// choice next(n) (0 ≤ choice < n): few ids, so that snapshots, results and
// activity snapshots meet the same messages and calls.
func historyEvent(next func(n int) int) event.Event {
	ids := []string{"a", "b", "act", "r1", "r2"}
	calls := []string{"t1", "t2", "t3"}
	tags := []*string{nil, new(string), new(string)}
	*tags[1], *tags[2] = "s1", "s2"
	id, call := ids[next(len(ids))], calls[next(len(calls))]
	tag := event.Attribution{Subagent: tags[next(len(tags))]}
	var parent *string
	if k := next(len(ids) + 1); k < len(ids) {
		parent = &ids[k]
	}
	history := func() []event.Message {
		var ms []event.Message
		seen := map[string]bool{}
		for k := next(5); k > 0; k-- {
			m := event.Message{ID: ids[next(len(ids))], Subagent: tags[next(len(tags))]}
			if seen[m.ID] {
				continue
			}
			seen[m.ID] = true
			var held []event.ToolCall
			for j := next(3); j > 0; j-- {
				held = append(held, event.ToolCall{ID: calls[next(len(calls))], Type: "function", Function: event.FunctionCall{Name: "f", Arguments: "{}"}})
			}
			switch next(5) {
			case 0:
				m.Role, m.ToolCalls = event.RoleAssistant, held
			case 1:
				m.Role, m.Content, m.ToolCallID = event.RoleTool, json.RawMessage(`"res"`), &calls[next(len(calls))]
			case 2:
				m.Role, m.Content, m.ToolCalls = event.RoleReasoning, json.RawMessage(`"hm"`), held
			case 3:
				typ := "P"
				m.Role, m.Content, m.ActivityType = event.RoleActivity, json.RawMessage(`{"k":1}`), &typ
			default:
				m.Role, m.Content = event.RoleUser, json.RawMessage(`"u"`)
			}
			ms = append(ms, m)
		}
		return ms
	}
	switch next(14) {
	case 0:
		e := &event.RunStarted{ThreadID: "t", RunID: id}
		if next(2) == 0 {
			e.Input = &event.RunAgentInput{ThreadID: "t", RunID: id, Messages: history()}
		}
		return e
	case 1:
		return &event.RunFinished{ThreadID: "t", RunID: id}
	case 2:
		return &event.TextMessageStart{Attribution: tag, MessageID: id}
	case 3:
		return &event.TextMessageEnd{Attribution: tag, MessageID: id}
	case 4:
		return &event.ToolCallStart{Attribution: tag, ToolCallID: call, ToolCallName: "f", ParentMessageID: parent}
	case 5:
		return &event.ToolCallArgs{Attribution: tag, ToolCallID: call, Delta: "{"}
	case 6:
		return &event.ToolCallEnd{Attribution: tag, ToolCallID: call}
	case 7, 8:
		return &event.ToolCallResult{Attribution: tag, MessageID: ids[next(len(ids))], ToolCallID: call, Content: json.RawMessage(`"ok"`)}
	case 9, 10:
		return &event.MessagesSnapshot{Messages: history()}
	case 11:
		replace := next(3) != 0
		return &event.ActivitySnapshot{Attribution: tag, MessageID: id, ActivityType: "P", Content: json.RawMessage(`{"l":[]}`), Replace: &replace}
	case 12:
		return &event.ReasoningMessageStart{Attribution: tag, MessageID: id, Role: event.RoleReasoning}
	default:
		return &event.TextMessageContent{Attribution: tag, MessageID: id, Delta: "d"}
	}
}
