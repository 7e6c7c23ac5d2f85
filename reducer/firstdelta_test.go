package reducer_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFirstDeltaCases folds the shapes around a message's first delta, which
// a Builder streams in place from its START on (reopened messages, content
// parts, metadata, tags, snapshots, chunks, refusals, tool calls sharing the
// hot message), four ways (see paths), handing views out after every event,
// every other one or none.
func TestFirstDeltaCases(t *testing.T) {
	head := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"w"}`,
	}
	cases := map[string][]string{
		"args and text share hot": {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`,
			`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1"}`, `{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}`, `{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"1"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"2"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":""}`, `{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"3"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"d"}`,
			`{"type":"TOOL_CALL_END","toolCallId":"c1"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"e"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m1"}`},
		"args first then start": {`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1"}`, `{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"1"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"2"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`, `{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"3"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
		"start then delta":            {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
		"empty first":                 {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
		"start meta":                  {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","metadata":{"k":1}}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`},
		"tagged start untagged delta": {`{"type":"TEXT_MESSAGE_START","subagentRunId":"s1","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"b"}`},
		"tagged start wrong tag":      {`{"type":"TEXT_MESSAGE_START","subagentRunId":"s1","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s2","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s1","messageId":"m1","delta":"b"}`},
		"unattributed tag start":      {`{"type":"TEXT_MESSAGE_START","subagentRunId":"s7","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s7","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
		"start refused":               {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
		"reopen text": {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m1"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"x"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","metadata":{"z":2}}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"y"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}`},
		"reopen tool holder": {`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1"}`, `{"type":"TOOL_CALL_END","toolCallId":"c1"}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
		"reopen parts": {`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"assistant","content":[{"type":"text","text":"p"}]}]}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
		"reopen snapshot text": {`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"assistant","content":"snap"},{"id":"m2","role":"assistant","content":"s2"}]}`,
			`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
		"snapshot while open": {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m0","role":"user","content":"u"},{"id":"m1","role":"assistant","content":[{"type":"text","text":"p"}]}]}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}`},
		"snapshot moves before first": {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m0","role":"user","content":"u"},{"id":"m1","role":"assistant","content":"q"}]}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}`},
		"snapshot removes before first": {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m0","role":"user","content":"u"}]}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
		"snapshot parts before first": {`{"type":"TEXT_MESSAGE_START","subagentRunId":"s1","messageId":"m1","role":"assistant"}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"assistant","content":[{"type":"text","text":"p"}]}]}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}`},
		"chunk between": {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CHUNK","messageId":"k1","delta":"c"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}`},
		"other full events between": {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"STEP_STARTED","stepName":"s"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`,
			`{"type":"STATE_SNAPSHOT","snapshot":{"a":1}}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}`, `{"type":"STEP_FINISHED","stepName":"nope"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"d"}`},
		"two starts same node": {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"b"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}`},
		"tool call into open": {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1"}`,
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}`, `{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`, `{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"}"}`},
		"reasoning": {`{"type":"REASONING_START","messageId":"r0"}`, `{"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"}`, `{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"t"}`, `{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"u"}`,
			`{"type":"REASONING_MESSAGE_END","messageId":"r1"}`, `{"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"}`, `{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"v"}`},
		"run ends": {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`,
			`{"type":"RUN_STARTED","threadId":"t","runId":"r2"}`, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}`},
		"unknown and bad lines": {`{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"NOPE"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`, `{"type":`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}`, ``, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"d"}`},
		"activity id":           {`{"type":"ACTIVITY_SNAPSHOT","messageId":"m1","activityType":"P","content":{"a":1}}`, `{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}`},
	}
	for name, tail := range cases {
		t.Run(name, func(t *testing.T) {
			for hand := range 3 {
				p := newPaths(t)
				for i, l := range append(append([]string{}, head...), tail...) {
					p.line(i, []byte(l), hand == 1 || hand == 2 && i%2 == 0)
				}
				p.end()
			}
		})
	}
}

// TestFirstDeltaRandom folds random streams of those shapes four ways (see
// paths), handing out views at random: FuzzFoldPaths' vocabulary has no
// content parts, metadata or undecodable lines.
func TestFirstDeltaRandom(t *testing.T) {
	ids := []string{"m1", "m2", "r1"}
	tags := []string{``, `"subagentRunId":"s1",`, `"subagentRunId":"s2",`}
	tmpl := []string{
		`{"type":"TEXT_MESSAGE_START",%[2]s"messageId":"%[1]s","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_START",%[2]s"messageId":"%[1]s","role":"assistant","metadata":{"k":1}}`,
		`{"type":"TEXT_MESSAGE_CONTENT",%[2]s"messageId":"%[1]s","delta":"%[3]s"}`,
		`{"type":"TEXT_MESSAGE_CONTENT",%[2]s"messageId":"%[1]s","delta":"%[3]s"}`,
		`{"type":"TEXT_MESSAGE_CONTENT",%[2]s"messageId":"%[1]s","delta":""}`,
		`{"type":"TEXT_MESSAGE_CONTENT",%[2]s"messageId":"%[1]s","delta":"%[3]s","metadata":{"d":1}}`,
		`{"type":"TEXT_MESSAGE_END",%[2]s"messageId":"%[1]s"}`,
		`{"type":"REASONING_MESSAGE_START",%[2]s"messageId":"%[1]s","role":"reasoning"}`,
		`{"type":"REASONING_MESSAGE_CONTENT",%[2]s"messageId":"%[1]s","delta":"%[3]s"}`,
		`{"type":"REASONING_MESSAGE_END",%[2]s"messageId":"%[1]s"}`,
		`{"type":"TOOL_CALL_START",%[2]s"toolCallId":"c1","toolCallName":"f","parentMessageId":"%[1]s"}`,
		`{"type":"TOOL_CALL_ARGS",%[2]s"toolCallId":"c1","delta":"%[3]s"}`,
		`{"type":"TOOL_CALL_END",%[2]s"toolCallId":"c1"}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"%[1]s","role":"assistant","content":[{"type":"text","text":"p"}]}]}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m0","role":"user","content":"u"},{"id":"%[1]s","role":"assistant","content":"s"}]}`,
		`{"type":"TEXT_MESSAGE_CHUNK",%[2]s"messageId":"%[1]s","delta":"%[3]s"}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"a":"%[3]s"}}`,
		`{"type":"STEP_FINISHED","stepName":"nope"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"w"}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"s1"}`,
		`{"type":"NOPE"}`,
		`{"type":`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
	}
	r := rand.New(rand.NewPCG(5, 5))
	n := 20
	if testing.Short() {
		n = 5
	}
	for range n {
		p := newPaths(t)
		p.line(0, []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`), false)
		for i := 1; i < 60; i++ {
			k := r.IntN(len(tmpl) + 6)
			if k >= len(tmpl) {
				k = 2 // deltas most often
			}
			l := fmt.Sprintf(tmpl[k], ids[r.IntN(len(ids))], tags[r.IntN(len(tags))], string(rune('a'+r.IntN(26))))
			p.line(i, []byte(l), r.IntN(4) == 0)
		}
		p.end()
	}
}
