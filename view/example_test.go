package view_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

func fold(lines ...string) *view.View {
	v := view.New()
	for _, l := range lines {
		v, _ = reducer.FoldJSON(v, []byte(l))
	}
	return v
}

func ExampleView_Invocation() {
	v := fold(
		`{"type":"RUN_STARTED","threadId":"th1","runId":"r1"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"delegate"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"tc1"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"researcher","parentToolCallId":"tc1"}`,
		`{"type":"STEP_STARTED","stepName":"search","subagentRunId":"sa1"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1","subagentRunId":"sa1"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Searching"}`,
	)
	inv := v.Invocation("sa1")
	fmt.Println(inv.Name(), inv.Status(), "spawned by", inv.ParentToolCallID())
	fmt.Println("streaming:", inv.OpenMessageIDs())
	for _, s := range inv.Steps() {
		fmt.Println("step", s.Name, s.Status)
	}
	tc, _ := v.ToolCall("tc1")
	fmt.Println("tool call", tc.ID, "spawned", tc.Subagents)

	// Pointer equality tells a pane whether to redraw.
	before := v.Invocation("sa1")
	v, _ = reducer.FoldJSON(v, []byte(`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/x","value":1}]}`))
	fmt.Println("unchanged:", v.Invocation("sa1") == before)
	// Output:
	// researcher running spawned by tc1
	// streaming: [m1]
	// step search open
	// tool call tc1 spawned [sa1]
	// unchanged: true
}

func ExampleView_MarshalJSON() {
	v := fold(
		`{"type":"RUN_STARTED","threadId":"th1","runId":"r1"}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"progress":0.5},"subagentRunId":"sa1"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
		`{"type":"RUN_FINISHED","threadId":"th1","runId":"r1"}`,
	)
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "events": 6,
	//   "messages": [
	//     {
	//       "id": "m1",
	//       "role": "assistant",
	//       "content": "Hi"
	//     }
	//   ],
	//   "state": {
	//     "progress": 0.5
	//   },
	//   "pendingInterrupts": [],
	//   "runs": [
	//     {
	//       "threadId": "th1",
	//       "runId": "r1",
	//       "status": "finished",
	//       "outcome": null,
	//       "result": null,
	//       "error": null
	//     }
	//   ],
	//   "invocations": [
	//     {
	//       "subagentRunId": "sa1",
	//       "run": 0,
	//       "name": "sa1",
	//       "description": null,
	//       "status": "unannounced",
	//       "parentSubagentRunId": null,
	//       "parentToolCallId": null,
	//       "parentMessageId": null,
	//       "children": [],
	//       "messageIds": [],
	//       "toolCallIds": [],
	//       "steps": [],
	//       "outcome": null,
	//       "result": null,
	//       "error": null
	//     }
	//   ],
	//   "diagnostics": [
	//     {
	//       "index": 1,
	//       "kind": "warning",
	//       "rule": "R12",
	//       "type": "STATE_SNAPSHOT",
	//       "message": "subagent 'sa1' has not been announced: events are attributed to it without a SUBAGENT_STARTED; a producer that can report the lifecycle should announce it (and close it with SUBAGENT_FINISHED or SUBAGENT_ERROR)"
	//     }
	//   ]
	// }
}

func ExampleView_Messages() {
	v := fold(
		`{"type":"RUN_STARTED","threadId":"th1","runId":"r1"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m1"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Let me check."}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"tc1","toolCallName":"search","parentMessageId":"m1"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"tc1","delta":"{\"q\":\"tides\"}"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"tc1"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"tc1","content":"3 hits","subagentRunId":"sa1"}`,
	)
	// The list the next RunAgentInput.messages sends back.
	b, _ := json.Marshal(v.MessageList())
	fmt.Println(string(b))
	// Output:
	// [{"id":"m1","role":"assistant","content":"Let me check.","toolCalls":[{"id":"tc1","type":"function","function":{"name":"search","arguments":"{\"q\":\"tides\"}"}}]},{"id":"t1","role":"tool","content":"3 hits","toolCallId":"tc1","subagentRunId":"sa1"}]
}

// WriteJSON writes the JSON form as it goes, member by member: the bytes
// MarshalJSON returns, without holding them all.
func ExampleView_WriteJSON() {
	v := fold(
		`{"type":"RUN_STARTED","threadId":"th1","runId":"r1"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"sa1","name":"researcher"}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"step":1}}`,
	)
	if err := v.WriteJSON(os.Stdout); err != nil {
		fmt.Println(err)
	}
	fmt.Println()
	// Output:
	// {"events":3,"messages":[],"state":{"step":1},"pendingInterrupts":[],"runs":[{"threadId":"th1","runId":"r1","status":"running","outcome":null,"result":null,"error":null}],"invocations":[{"subagentRunId":"sa1","run":0,"name":"researcher","description":null,"status":"running","parentSubagentRunId":null,"parentToolCallId":null,"parentMessageId":null,"children":[],"messageIds":[],"toolCallIds":[],"steps":[],"outcome":null,"result":null,"error":null}],"diagnostics":[]}
}

// A run's token usage: as the producer reported it, one entry per model,
// and summed.
func ExampleRun_Tokens() {
	v := fold(
		`{"type":"RUN_STARTED","threadId":"th1","runId":"r1"}`,
		`{"type":"RUN_FINISHED","threadId":"th1","runId":"r1","usage":[`+
			`{"model":"large","inputTokens":1200,"outputTokens":300,"totalTokens":1500},`+
			`{"model":"small","inputTokens":80,"outputTokens":20}]}`,
	)
	run, _ := v.LastRun()
	for _, u := range run.Usage {
		fmt.Println(*u.Model, *u.InputTokens, *u.OutputTokens)
	}
	t := run.Tokens()
	fmt.Printf("tokens: %d in, %d out, %d total\n", t.Input, t.Output, t.Total)
	// Output:
	// large 1200 300
	// small 80 20
	// tokens: 1280 in, 320 out, 1600 total
}

// A stream refused event after event keeps the first 1,000 and the last
// 1,000 diagnostics; DiagnosticsOmitted counts the others.
func ExampleView_DiagnosticsOmitted() {
	b := reducer.NewBuilder(view.New())
	for range 2500 {
		_ = b.FoldJSON([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"x"}`))
	}
	v := b.View()
	ds := v.Diagnostics()
	fmt.Println(len(ds), "kept,", v.DiagnosticsOmitted(), "omitted,", v.ViolationCount(), "violations")
	fmt.Println("first at event", ds[0].Index, "and last at event", ds[len(ds)-1].Index)
	// Output:
	// 2000 kept, 500 omitted, 2500 violations
	// first at event 0 and last at event 2499
}
