package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/internal/wire"
)

// fuzzSeeds returns every event of every conformance vector, the §3
// examples, and inputs aimed at the fast path's edges.
func fuzzSeeds(f *testing.F) [][]byte {
	vectors, err := conformance.Load()
	if err != nil {
		f.Fatal(err)
	}
	seen := map[string]bool{}
	var seeds [][]byte
	add := func(b []byte) {
		if !seen[string(b)] {
			seen[string(b)] = true
			seeds = append(seeds, b)
		}
	}
	// One event of each shape (type and member names at every depth) keeps
	// the corpus small enough for the fuzzer's baseline run.
	shapes := map[string]bool{}
	for _, v := range vectors {
		for _, e := range v.Events {
			var c bytes.Buffer
			if json.Compact(&c, e) != nil {
				continue
			}
			var x any
			_ = json.Unmarshal(e, &x)
			if sh := shape(x); !shapes[sh] {
				shapes[sh] = true
				add(c.Bytes())
			}
		}
	}
	examples, err := os.ReadFile(examplesFile)
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(examples, []byte("\n")) {
		if len(l) > 0 {
			add(l)
		}
	}
	for _, s := range []string{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"s","messageId":"m1","delta":"a\"b\\c\/d\b\f\n\r\t\u00e9\u0000","timestamp":-12}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"\ud83d\ude00","x":{"y":[1,2.5e-3,true,false,null,"z"]}}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"q\":1}","timestamp":9007199254740991}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"","timestamp":9007199254740992}`,
		`{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"é漢","subagentRunId":""}`,
		`{"type":"REASONING_MESSAGE_CONTENT" , "messageId" : "r" , "delta" : "x" } ` + "\n",
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","messageId":"n"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","messag\u0065Id":"n"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\xff"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","rawEvent":null,"metadata":{}}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":01}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}{}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"x","n":-0.0e+1,"o":{},"a":[],"s":"\u12"}`,
		`{"type":"STATE_DELTA","subagentRunId":"s\n","delta":[{"op":"add","path":"/a~1b","value":{"x":[1,{"y":"\u00e9"}]}}],"timestamp":3}`,
		`{"type":"STATE_DELTA","delta":[ ],"z":"\ud800"}`,
		`{"type":"STATE_DELTA","delta":{}}`,
		`{"type":"STATE_DELTA","delta":[{"op":"remove","path":"a"},{"op":"add","path":"/x~2"}]}`,
		`{"type":"STATE_DELTA","delta":[{"op":"move","from":"/a","path":"/b","op":"copy"},{"op":"frob"},1]}`,
		`{"type":"STATE_DELTA","delta":[{"path":"/\u0061","op":"replace","value":null},{"op":"test","path":"","value":{}}]}`,
		`{"type":"STATE_DELTA","delta":[1,]}`,
		// The other flat types, in fast shapes and at the edges of them.
		`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant","subagentRunId":"s","name":"n\u00e9","timestamp":0}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","role":null}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m","name":"a","name":"b"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m","subagentRunId":"s"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":1}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"user","delta":"d","name":"n"}`,
		`{"type":"TEXT_MESSAGE_CHUNK"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"t","parentMessageId":"m","subagentRunId":"s"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"t","parentMessageId":null}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c","timestamp":-9007199254740991}`,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"t","parentMessageId":"m","delta":"{"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"c","content":"result \"1\"\u00e9","role":"tool","subagentRunId":"s"}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"c","content":[{"type":"text","text":"x"}]}`,
		`{"type":"TOOL_CALL_RESULT","messageId":"r","toolCallId":"c","content":"x","role":"user"}`,
		`{"type":"STEP_STARTED","stepName":"s1"}`,
		`{"type":"STEP_FINISHED","stepName":"s1","subagentRunId":"s"}`,
		`{"type":"REASONING_START","messageId":"r"}`,
		`{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}`,
		`{"type":"REASONING_MESSAGE_START","messageId":"r","role":"assistant"}`,
		`{"type":"REASONING_MESSAGE_END","messageId":"r"}`,
		`{"type":"REASONING_MESSAGE_CHUNK","messageId":"r","delta":"x"}`,
		`{"type":"REASONING_END","messageId":"r","timestamp":1.0}`,
		`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"c","encryptedValue":"v"}`,
		`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"other","entityId":"c","encryptedValue":"v"}`,
		`{"type":"STATE_SNAPSHOT","snapshot":null}`,
		`{"type":"STATE_SNAPSHOT","snapshot":{"a":[1,"\ud800",{"b":false}]},"subagentRunId":"s"}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN","content":{"x":1},"replace":false}`,
		`{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN","content":[],"replace":true}`,
		`{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"PLAN","patch":[{"op":"replace","path":"/x","value":2}]}`,
		`{"type":"RAW","event":{"upstream":true},"source":"openai"}`,
		`{"type":"CUSTOM","name":"n","value":null}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n","description":"d","parentSubagentRunId":"p","parentToolCallId":"c","parentMessageId":"m"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":null,"name":"n"}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","result":{"ok":true}}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","result":null}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"success"}}`,
		`{"type":"SUBAGENT_ERROR","subagentRunId":"s","message":"m","code":"c"}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.0","parentRunId":"p","timestamp":5}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","subagentRunId":"s"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":"done"}`,
		`{"type":"RUN_ERROR","message":"m","code":"c"}`,
		// The history-carrying events, in fast shapes and at the edges of them.
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"hi \u00e9","name":"n","subagentRunId":"s","metadata":{"k":1}},{"id":"a","role":"assistant","content":"x","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"encryptedValue":"e","metadata":{}}]},{"id":"t","role":"tool","content":"r","toolCallId":"c","error":"e","encryptedValue":"v"}],"timestamp":7}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"d","role":"developer","content":"x"},{"id":"s","role":"system","content":"y","name":"n"},{"id":"p","role":"activity","activityType":"A","content":{"a":[]}},{"id":"r","role":"reasoning","content":"z","encryptedValue":"e"},{"id":"a","role":"assistant","toolCalls":[]}]}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"text","text":"t\n<&>","id":"i","metadata":{"k": [1, {}]}},{"text":"","type":"text"}]},{"id":"t","role":"tool","toolCallId":"c","content":[{"type":"image","source":{"type":"data","value":"v","mimeType":"m"}}]}]}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":[{"type":"text","text":"t"}]},{"role":"robot"},{"id":"x","role":"user","content":"c","name":null}]}`,
		`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"","name":"g"}}],"id":"b"}]}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r2","timestamp":9,"protocolVersion":"1","parentRunId":"r1","input":{"threadId":"t","runId":"r2","parentRunId":"r1","protocolVersion":"1","state":{"a":[1,{"b":null}]},"messages":[{"id":"u","role":"user","content":"hi"},{"id":"a","role":"assistant","content":"yo","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"q\":1}"}}]},{"id":"t","role":"tool","toolCallId":"c","content":"r"}],"tools":[{"name":"f","description":"d","parameters":{"type":"object"},"metadata":{}}],"context":[{"description":"d","value":"v"}],"forwardedProps":"x"}}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[],"state":null,"resume":[{"interruptId":"i","status":"resolved"}]}}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"resolved","payload":[1],"metadata":{"m":"\u00e9"}},{"interruptId":"j","status":"cancelled"}]}}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[]}}`,
		`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"\ud83d\ude00","role":"user","content":"\ud800"}],"tools":[{"name":"f","description":"d","parameters":null}]}}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"`,
		`{"type":"TEXT_MESSAGE_END" ,"messageId":"m"} `,
		`{"type":"TEXT_MESSAGE_END","messageId":"m",}`,
	} {
		add([]byte(s))
	}
	return seeds
}

// FuzzDecode checks that Decode never panics, that its errors are the typed
// ones, and that whatever decodes re-encodes and decodes to an equal event.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Decode(data)
		if err != nil {
			var de *DecodeError
			var ut *UnknownTypeError
			if !errors.As(err, &de) && !errors.As(err, &ut) && !(len(data) == 0 && err == ErrEmpty) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			if e != nil {
				t.Fatalf("an event with an error")
			}
			if de != nil && (de.Offset < -1 || de.Offset > int64(len(data))) {
				t.Fatalf("offset %d outside the input of %d bytes", de.Offset, len(data))
			}
			_ = err.Error()
			return
		}
		b, err := Encode(e)
		if err != nil {
			t.Fatalf("a decoded event does not encode: %v\n%s", err, data)
		}
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("the encoding does not decode: %v\n%s\n%s", err, data, b)
		}
		if got, want := normalize(back), normalize(e); !reflect.DeepEqual(got, want) {
			t.Fatalf("decode(encode(e)) != e\ninput  %s\nencode %s\nwant %#v\ngot  %#v", data, b, want, got)
		}
		again, err := Encode(back)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("encoding is not stable: %s vs %s (%v)", b, again, err)
		}
	})
}

// FuzzFastPath checks the fast path against the reference decoder: whenever
// the fast path accepts an input, the reference accepts it too, with an
// equal event and no warnings; and Decode agrees with the reference on every
// input, error or not.
func FuzzFastPath(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		if _, ok := fastTypes[string(wire.TypePrefix(s))]; ok || string(wire.TypePrefix(s)) == string(TypeMessagesSnapshot) {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ref, refErr := decodeReference(data)
		if fast, ok := decodeFast(data); ok {
			if refErr != nil {
				t.Fatalf("fast path accepts what the reference refuses (%v):\n%s", refErr, data)
			}
			if len(ref.Common().Warnings()) != 0 {
				t.Fatalf("fast path accepts what the reference warns about (%v):\n%s", ref.Common().Warnings(), data)
			}
			if !reflect.DeepEqual(fast, ref) {
				t.Fatalf("fast and reference differ on\n%s\nfast %#v\nref  %#v", data, fast, ref)
			}
		}
		got, err := Decode(data)
		if len(data) == 0 {
			if err != ErrEmpty {
				t.Fatalf("Decode of empty input: %v, want ErrEmpty", err)
			}
			return
		}
		if (err == nil) != (refErr == nil) || (err != nil && err.Error() != refErr.Error()) {
			t.Fatalf("Decode error %v, reference %v on\n%s", err, refErr, data)
		}
		if err == nil && !reflect.DeepEqual(got, ref) {
			t.Fatalf("Decode and reference differ on\n%s", data)
		}
	})
}

// shape describes a JSON value by its member names and value kinds.
func shape(x any) string {
	switch v := x.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(k)
			b.WriteByte(':')
			if k == "type" {
				b.WriteString(fmt.Sprint(v[k]))
			} else {
				b.WriteString(shape(v[k]))
			}
			b.WriteByte(',')
		}
		b.WriteByte('}')
		return b.String()
	case []any:
		var b strings.Builder
		b.WriteByte('[')
		for _, e := range v {
			b.WriteString(shape(e))
		}
		b.WriteByte(']')
		return b.String()
	}
	return fmt.Sprintf("%T", x)
}
