package transform_test

import (
	"fmt"

	"github.com/agview/agview/event"
	"github.com/agview/agview/transform"
)

// events is a source of the given events, as package transport yields them.
func events(es ...event.Event) func(yield func(event.Event, error) bool) {
	return func(yield func(event.Event, error) bool) {
		for _, e := range es {
			if !yield(e, nil) {
				return
			}
		}
	}
}

// SubagentVisibility re-emits a stream to a peer as its declared protocol
// version allows: a peer that declares no version predates subagents.
func ExampleSubagentVisibility() {
	src := events(
		&event.RunStarted{ThreadID: "th1", RunID: "r1"},
		&event.SubagentStarted{ID: "sa-1", Name: "researcher"},
		&event.TextMessageChunk{Attribution: event.By("sa-1"), MessageID: event.Ptr("m1"), Delta: event.Ptr("found it")},
		&event.SubagentError{ID: "sa-1", Message: "quota exceeded"},
		&event.RunFinished{ThreadID: "th1", RunID: "r1"},
	)
	peer := &event.RunAgentInput{ThreadID: "th1"} // no protocolVersion: an old peer
	for e, err := range transform.SubagentVisibility(peer)(src) {
		if err != nil {
			fmt.Println(err)
			continue
		}
		b, _ := event.Encode(e)
		fmt.Println(string(b))
	}
	// Output:
	// {"type":"RUN_STARTED","threadId":"th1","runId":"r1"}
	// {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"found it"}
	// {"type":"TEXT_MESSAGE_END","messageId":"m1"}
	// {"type":"CUSTOM","name":"SUBAGENT_ERROR","value":{"message":"quota exceeded","name":"researcher","subagentRunId":"sa-1"}}
	// {"type":"RUN_FINISHED","threadId":"th1","runId":"r1"}
}

// ExpandChunks turns the chunk shorthand into explicit events, keeping
// attribution: here an id-less chunk finds its stream by its tag.
func ExampleExpandChunks() {
	src := events(
		&event.RunStarted{ThreadID: "th1", RunID: "r1"},
		&event.TextMessageChunk{Attribution: event.By("sa-1"), MessageID: event.Ptr("m1"), Delta: event.Ptr("a")},
		&event.TextMessageChunk{Attribution: event.By("sa-2"), MessageID: event.Ptr("m2"), Delta: event.Ptr("b")},
		&event.TextMessageChunk{Attribution: event.By("sa-1"), Delta: event.Ptr("c")},
		&event.RunFinished{ThreadID: "th1", RunID: "r1"},
	)
	for e := range transform.ExpandChunks(src) {
		b, _ := event.Encode(e)
		fmt.Println(string(b))
	}
	// Output:
	// {"type":"RUN_STARTED","threadId":"th1","runId":"r1"}
	// {"type":"TEXT_MESSAGE_START","subagentRunId":"sa-1","messageId":"m1","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"sa-1","messageId":"m1","delta":"a"}
	// {"type":"TEXT_MESSAGE_START","subagentRunId":"sa-2","messageId":"m2","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"sa-2","messageId":"m2","delta":"b"}
	// {"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"sa-1","messageId":"m1","delta":"c"}
	// {"type":"TEXT_MESSAGE_END","subagentRunId":"sa-1","messageId":"m1"}
	// {"type":"TEXT_MESSAGE_END","subagentRunId":"sa-2","messageId":"m2"}
	// {"type":"RUN_FINISHED","threadId":"th1","runId":"r1"}
}

// HideSubagents keeps apart what attribution kept apart: two owners' steps
// of the same name reach the old peer under two names.
func ExampleHideSubagents() {
	src := events(
		&event.RunStarted{ThreadID: "th1", RunID: "r1"},
		&event.SubagentStarted{ID: "sa-1", Name: "researcher"},
		&event.StepStarted{StepName: "plan"},
		&event.StepStarted{Attribution: event.By("sa-1"), StepName: "plan"},
		&event.StepFinished{Attribution: event.By("sa-1"), StepName: "plan"},
		&event.SubagentFinished{ID: "sa-1", Result: []byte(`{"sources":3}`)},
		&event.StepFinished{StepName: "plan"},
		&event.RunFinished{ThreadID: "th1", RunID: "r1"},
	)
	for e := range transform.HideSubagents(src) {
		b, _ := event.Encode(e)
		fmt.Println(string(b))
	}
	// Output:
	// {"type":"RUN_STARTED","threadId":"th1","runId":"r1"}
	// {"type":"STEP_STARTED","stepName":"plan"}
	// {"type":"STEP_STARTED","stepName":"plan (subagent 'sa-1')"}
	// {"type":"STEP_FINISHED","stepName":"plan (subagent 'sa-1')"}
	// {"type":"CUSTOM","name":"SUBAGENT_FINISHED","value":{"name":"researcher","result":{"sources":3},"subagentRunId":"sa-1"}}
	// {"type":"STEP_FINISHED","stepName":"plan"}
	// {"type":"RUN_FINISHED","threadId":"th1","runId":"r1"}
}
