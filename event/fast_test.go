package event

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFastPathTakesCommonShapes checks which inputs the fast path decodes
// itself, so that FuzzFastPath compares something; what it declines goes to
// the reference decoder, which FuzzFastPath checks as well.
func TestFastPathTakesCommonShapes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		take bool
	}{
		{"plain", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}`, true},
		{"tagged, timestamp, spaces", `{"type":"TOOL_CALL_ARGS", "subagentRunId" : "s", "toolCallId":"c", "delta":"{\"q\":1}", "timestamp":-17 }` + "\n", true},
		{"reasoning, escapes, unicode", `{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"é\u00e9\n\\"}`, true},
		{"unknown members (reported by the reference path, G20)", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","x":1.5e3,"y":{"z":[null,true]}}`, false},
		{"other type", `{"type":"TEXT_MESSAGE_END","messageId":"m"}`, false},
		{"type not first", `{"messageId":"m","type":"TEXT_MESSAGE_CONTENT","delta":"d"}`, false},
		{"surrogate escape", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\ude00"}`, false},
		{"invalid UTF-8", "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"\xff\"}", false},
		{"metadata", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","metadata":{}}`, false},
		{"duplicate member", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","delta":"e"}`, false},
		{"escaped member name", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delt\u0061":"d"}`, false},
		{"null tag", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","subagentRunId":null}`, false},
		{"exponent timestamp", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","timestamp":1e3}`, false},
		{"missing delta", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}`, false},
		{"state delta", `{"type":"STATE_DELTA","subagentRunId":"s","delta":[ {"op":"add","path":"/a","value":[1,{"b":null}]} ],"timestamp":5}`, true},
		{"state delta not an array", `{"type":"STATE_DELTA","delta":{"op":"add"}}`, false},
		{"state delta invalid inside", `{"type":"STATE_DELTA","delta":[{"op":"add",}]}`, false},
		{"trailing bytes", `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"}x`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fast, ok := decodeFast([]byte(tc.in))
			assert.Equal(t, tc.take, ok)
			ref, err := decodeReference([]byte(tc.in))
			if ok {
				require.NoError(t, err)
				assert.Equal(t, ref, fast)
			}
		})
	}
}

// TestFastPathAllocations checks the budget of at most 3 allocations per
// TEXT_MESSAGE_CONTENT, tagged and timestamped included.
func TestFastPathAllocations(t *testing.T) {
	for _, in := range []string{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m000002","delta":"rray value memory "}`,
		`{"type":"TEXT_MESSAGE_CONTENT","subagentRunId":"sa000001","messageId":"m000001","delta":"sis \"within\" token ","timestamp":1700000000000}`,
	} {
		data := []byte(in)
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := Decode(data); err != nil {
				t.Fatal(err)
			}
		})
		assert.LessOrEqual(t, allocs, 3.0, "allocations for %s", in)
	}
}
