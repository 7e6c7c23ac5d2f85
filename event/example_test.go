package event_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agview/agview/event"
)

func ExampleDecode() {
	e, err := event.Decode([]byte(`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"sub-1","messageId":"m1","delta":"Hi"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	switch e := e.(type) {
	case *event.TextMessageContent:
		who, _ := e.SubagentRunID()
		fmt.Printf("%s: %s += %q (by %s)\n", e.EventType(), e.MessageID, e.Delta, who)
	}

	// A schema violation names the field, the rule and the byte.
	_, err = event.Decode([]byte(`{"type":"STEP_STARTED","stepName":"plan","subagentRunId":null}`))
	var de *event.DecodeError
	if errors.As(err, &de) {
		fmt.Println(de.Rule, de.Pointer, de.Offset)
	}

	// An unknown type is a warning for the caller, not a failure.
	_, err = event.Decode([]byte(`{"type":"TEXT_MESSAGE_SPARKLE"}`))
	var ut *event.UnknownTypeError
	fmt.Println(errors.As(err, &ut), ut.Type)

	// What the protocol tolerates decodes with a warning.
	e, _ = event.Decode([]byte(`{"type":"RUN_STARTED","threadId":"t1","runId":"r1","subagentRunId":"sub-1"}`))
	for _, w := range e.Common().Warnings() {
		fmt.Println(w.Rule, w)
	}
	// Output:
	// TEXT_MESSAGE_CONTENT: m1 += "Hi" (by sub-1)
	// R1 /subagentRunId 57
	// true TEXT_MESSAGE_SPARKLE
	// G3 RUN_STARTED /subagentRunId: this type cannot carry subagentRunId (only the 24 attributable types do); dropped
}

func ExampleEncode() {
	b, err := event.Encode(&event.ToolCallStart{
		Attribution:  event.By("sub-1"),
		ToolCallID:   "tc1",
		ToolCallName: "search",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(b))

	b, _ = event.Encode(&event.SubagentFinished{
		ID:      "sub-1",
		Outcome: &event.SubagentOutcome{Type: event.SubagentSuspended, InterruptIDs: []string{"int-1"}},
	})
	fmt.Println(string(b))
	// Output:
	// {"type":"TOOL_CALL_START","subagentRunId":"sub-1","toolCallId":"tc1","toolCallName":"search"}
	// {"type":"SUBAGENT_FINISHED","subagentRunId":"sub-1","outcome":{"type":"suspended","interruptIds":["int-1"]}}
}

func ExampleDecoder_All() {
	stream := `{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"tool"}

{"type":"TEXT_MESSAGE_START","messageId":"m1"}
{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
`
	d := event.NewDecoder(strings.NewReader(stream), nil)
	for e, err := range d.All() {
		if err != nil {
			fmt.Println("skipped:", err)
			continue
		}
		fmt.Println(e.EventType())
	}
	// Output:
	// RUN_STARTED
	// skipped: line 2: TEXT_MESSAGE_START /role: want one of "developer", "system", "assistant", "user", got "tool" (byte 53)
	// TEXT_MESSAGE_START
	// RUN_FINISHED
}
