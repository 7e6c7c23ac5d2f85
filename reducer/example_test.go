package reducer_test

import (
	"errors"
	"fmt"

	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

func ExampleReduce() {
	stream := []event.Event{
		&event.RunStarted{ThreadID: "th1", RunID: "r1"},
		&event.SubagentStarted{ID: "sa1", Name: "researcher"},
		&event.TextMessageStart{Attribution: event.By("sa1"), MessageID: "m1"},
		&event.TextMessageContent{MessageID: "m1", Delta: "Found three sources."},
		&event.TextMessageEnd{MessageID: "m1"},
		&event.SubagentFinished{ID: "sa1"},
		&event.RunFinished{ThreadID: "th1", RunID: "r1"},
	}
	v := view.New()
	for _, e := range stream {
		next, err := reducer.Reduce(v, e)
		if err != nil {
			fmt.Println(err)
			return
		}
		v = next
	}
	for m := range v.Messages() {
		fmt.Printf("%s by %s: %s\n", m.ID, *m.Subagent, m.Content)
	}
	inv := v.Invocation("sa1")
	fmt.Println(inv.Name(), inv.Status())
	// Output:
	// m1 by sa1: "Found three sources."
	// researcher finished
}

func ExampleFold() {
	v := view.New()
	for _, line := range []string{
		`{"type":"RUN_STARTED","threadId":"th1","runId":"r1"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"mine","subagentRunId":"sa2"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"ok"}`,
	} {
		e, err := event.Decode([]byte(line))
		if err != nil {
			v = reducer.Refuse(v, "", err)
			continue
		}
		// Fold records a violation in the view and goes on.
		v, _ = reducer.Fold(v, e)
	}
	for _, d := range v.Diagnostics() {
		fmt.Println(d.Index, d.Kind, d.Rule)
	}
	m, _ := v.Message("m1")
	fmt.Println(string(m.Content))
	// Output:
	// 1 warning R12
	// 2 violation R15
	// "ok"
}

func ExampleFoldJSON() {
	v := view.New()
	var viol *reducer.Violation
	for _, line := range []string{
		`{"type":"RUN_STARTED","threadId":"th1","runId":"r1"}`,
		`{"type":"TEXT_MESSAGE_SPARKLE"}`,
		`{"type":"STEP_FINISHED","stepName":"plan"}`,
	} {
		var err error
		v, err = reducer.FoldJSON(v, []byte(line))
		if errors.As(err, &viol) {
			fmt.Println(viol)
		}
	}
	fmt.Println(v.EventCount(), "events,", v.ViolationCount(), "refused")
	// Output:
	// event 2 (STEP_FINISHED): V11: STEP_FINISHED for step "plan", which was not started
	// 3 events, 1 refused
}

func ExampleEnd() {
	v := view.New()
	v, _ = reducer.FoldJSON(v, []byte(`{"type":"RUN_STARTED","threadId":"th1","runId":"r1"}`))
	v, _ = reducer.FoldJSON(v, []byte(`{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"researcher"}`))
	// The transport broke: the run failed and what was open is abandoned (G11).
	v = reducer.End(v, errors.New("connection reset by peer"))
	r, _ := v.LastRun()
	fmt.Println(r.Status, r.Error.Message)
	fmt.Println(v.Invocation("sa1").Status())
	// Output:
	// failed connection reset by peer
	// abandoned
}

func ExampleBuilder() {
	b := reducer.NewBuilder(view.New())
	for _, line := range []string{
		`{"type":"RUN_STARTED","threadId":"th1","runId":"r1"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"researcher"}`,
		`{"type":"TEXT_MESSAGE_START","subagentRunId":"sa1","messageId":"m1","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"sa1","messageId":"m1","delta":"Three "}`,
		`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"sa1","messageId":"m1","delta":"sources"}`,
	} {
		_ = b.FoldJSON([]byte(line)) // a refusal is recorded in the view
	}
	// Render a frame: the view handed out never changes.
	frame := b.View()
	_ = b.FoldJSON([]byte(`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"sa1","messageId":"m1","delta":" found."}`))
	m, _ := frame.Message("m1")
	fmt.Println(string(m.Content))
	m, _ = b.View().Message("m1")
	fmt.Println(string(m.Content))
	// Output:
	// "Three sources"
	// "Three sources found."
}
