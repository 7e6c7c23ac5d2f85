package wire_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/wire"
)

// flatSpec is a Spec with a member of every kind, for the scanner's own
// tests.
var flatSpec = &wire.Spec{Type: "X", Members: []wire.Member{
	{Name: "s", Kind: wire.String, Required: true},
	{Name: "b", Kind: wire.Bool},
	{Name: "l", Kind: wire.Literal},
	{Name: "a", Kind: wire.Any},
	{Name: "n", Kind: wire.NotNull},
	{Name: "o", Kind: wire.Object},
	{Name: "p", Kind: wire.Patch},
}}

func TestScanFlat(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
		vals     map[int]string // member index → its bytes
		ts       int64
	}{
		{"required only", `{"type":"X","s":"v"}`, true, map[int]string{0: "v"}, 0},
		{"every kind, spaces, timestamp", `{"type":"X" , "s" : "a\nb" ,"b":true,"l":"q\"","a":null,"n":[1,{}],"o":{"k":"v"},"p":[{"op":"remove","path":"/a"}],"timestamp":-12 }` + "\r\n",
			true, map[int]string{0: `a\nb`, 1: "true", 2: `"q\""`, 3: "null", 4: "[1,{}]", 5: `{"k":"v"}`, 6: `[{"op":"remove","path":"/a"}]`}, -12},
		{"missing required", `{"type":"X","b":false}`, false, nil, 0},
		{"unknown member", `{"type":"X","s":"v","z":1}`, false, nil, 0},
		{"duplicate", `{"type":"X","s":"v","s":"w"}`, false, nil, 0},
		{"duplicate timestamp", `{"type":"X","s":"v","timestamp":1,"timestamp":2}`, false, nil, 0},
		{"escaped name", `{"type":"X","\u0073":"v"}`, false, nil, 0},
		{"other type", `{"type":"Y","s":"v"}`, false, nil, 0},
		{"type not first", `{"s":"v","type":"X"}`, false, nil, 0},
		{"null string", `{"type":"X","s":null}`, false, nil, 0},
		{"null not null", `{"type":"X","s":"v","n":null}`, false, nil, 0},
		{"array for object", `{"type":"X","s":"v","o":[]}`, false, nil, 0},
		{"number for bool", `{"type":"X","s":"v","b":1}`, false, nil, 0},
		{"invalid UTF-8", "{\"type\":\"X\",\"s\":\"\xff\"}", false, nil, 0},
		{"control character", "{\"type\":\"X\",\"s\":\"\n\"}", false, nil, 0},
		{"fraction timestamp", `{"type":"X","s":"v","timestamp":1.5}`, false, nil, 0},
		{"unsafe timestamp", `{"type":"X","s":"v","timestamp":9007199254740992}`, false, nil, 0},
		{"safe timestamp", `{"type":"X","s":"v","timestamp":9007199254740991}`, true, map[int]string{0: "v"}, 9007199254740991},
		{"patch without value", `{"type":"X","s":"v","p":[{"op":"add","path":"/a"}]}`, false, nil, 0},
		{"patch bad pointer", `{"type":"X","s":"v","p":[{"op":"move","path":"/a","from":"b"}]}`, false, nil, 0},
		{"patch unknown op kept", `{"type":"X","s":"v","p":[{"op":"frob"}]}`, true, map[int]string{0: "v", 6: `[{"op":"frob"}]`}, 0},
		{"trailing comma", `{"type":"X","s":"v",}`, false, nil, 0},
		{"trailing bytes", `{"type":"X","s":"v"}{}`, false, nil, 0},
		{"truncated", `{"type":"X","s":"v"`, false, nil, 0},
		{"invalid inside a raw value", `{"type":"X","s":"v","a":[1,]}`, false, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			f, ok := wire.ScanFlat(data, flatSpec)
			require.Equal(t, tc.ok, ok)
			if !ok {
				return
			}
			for k := range flatSpec.Members {
				want, present := tc.vals[k]
				assert.Equal(t, present, f.Present(k), "member %d present", k)
				if present {
					assert.Equal(t, want, string(f.Bytes(data, k)), "member %d", k)
				}
			}
			assert.Equal(t, tc.ts, f.Timestamp)
		})
	}
}

// TestFlatStrings checks that Strings decodes the String members into one
// string that does not alias the input.
func TestFlatStrings(t *testing.T) {
	spec := &wire.Spec{Type: "X", Members: []wire.Member{
		{Name: "a", Kind: wire.String}, {Name: "l", Kind: wire.Literal}, {Name: "b", Kind: wire.String},
	}}
	data := []byte(`{"type":"X","b":"\u00e9\"","l":"raw","a":"plain"}`)
	f, ok := wire.ScanFlat(data, spec)
	require.True(t, ok)
	s, ok := f.Strings(data)
	require.True(t, ok)
	assert.Equal(t, "plain", s[0])
	assert.Equal(t, "", s[1], "a Literal is not decoded")
	assert.Equal(t, "é\"", s[2])
	for i := range data {
		data[i] = 'x'
	}
	assert.Equal(t, "plain", s[0], "the strings do not alias the input")

	data = []byte(`{"type":"X","a":"\ud83d\ude00"}`)
	f, ok = wire.ScanFlat(data, spec)
	require.True(t, ok)
	_, ok = f.Strings(data)
	assert.False(t, ok, "surrogate escapes are left to event.Decode")
}

func TestTypePrefix(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"RUN_STARTED","x":1}`: "RUN_STARTED",
		`{"type":"A\"B"}`:              "",
		`{"type":"A\u0042"}`:           "",
		`{"type":""}`:                  "",
		`{"type":"A`:                   "",
		` {"type":"A"}`:                "",
		`{"type": "A"}`:                "",
	} {
		assert.Equal(t, want, string(wire.TypePrefix([]byte(in))), in)
	}
}

func TestScanDelta(t *testing.T) {
	data := []byte(`{"type":"TOOL_CALL_ARGS","subagentRunId":"s","toolCallId":"c","delta":"{\"q\":1}","timestamp":7}`)
	d, ok := wire.ScanDelta(data)
	require.True(t, ok)
	assert.Equal(t, wire.Delta{Type: "TOOL_CALL_ARGS", ID: []byte("c"), Tag: []byte("s"), Tagged: true,
		Text: []byte(`{\"q\":1}`), Escaped: true, Timestamp: 7, Timed: true}, d)
	for _, in := range []string{
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m\n","delta":"d"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","subagentRunId":"\u0073"}`,
	} {
		_, ok := wire.ScanDelta([]byte(in))
		assert.False(t, ok, in)
	}
}

// FuzzScanDelta checks ScanDelta against event.Decode: a delta it reads is
// the event Decode returns, without warnings.
func FuzzScanDelta(f *testing.F) {
	for _, s := range []string{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}`,
		`{"type":"TOOL_CALL_ARGS","subagentRunId":"s","toolCallId":"c","delta":"{\"q\":1}","timestamp":7}`,
		`{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"\u00e9\ud83d\ude00"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","metadata":{}}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","delta":"e"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, ok := wire.ScanDelta(data)
		if !ok {
			return
		}
		e, err := event.Decode(data)
		if err != nil {
			t.Fatalf("ScanDelta reads what Decode refuses (%v): %s", err, data)
		}
		checkDelta(t, d, e, data)
		if bytes.ContainsRune(d.ID, '\\') || bytes.ContainsRune(d.Tag, '\\') {
			t.Fatalf("an id or tag read in place holds an escape: %q", data)
		}
	})
}

// FuzzScanProtoDelta checks ScanProtoDelta against event.DecodeProto.
func FuzzScanProtoDelta(f *testing.F) {
	for _, e := range []event.Event{
		&event.TextMessageContent{MessageID: "m", Delta: "hi"},
		&event.ToolCallArgs{Attribution: event.By("s"), ToolCallID: "c", Delta: `{"q":1}`, Base: event.Base{Timestamp: event.Ptr[int64](5)}},
		&event.ReasoningMessageContent{Attribution: event.By("s"), MessageID: "r", Delta: "é"},
		&event.TextMessageEnd{MessageID: "m"},
	} {
		b, err := event.AppendProto(nil, e)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		d, ok := wire.ScanProtoDelta(msg)
		if !ok {
			return
		}
		if d.Escaped {
			t.Fatalf("a protobuf delta is never escaped")
		}
		e, err := event.DecodeProto(msg)
		if err != nil {
			t.Fatalf("ScanProtoDelta reads what DecodeProto refuses (%v): %x", err, msg)
		}
		checkDelta(t, d, e, msg)
	})
}

// checkDelta fails unless d, read from data, is e.
func checkDelta(t *testing.T, d wire.Delta, e event.Event, data []byte) {
	t.Helper()
	if w := e.Common().Warnings(); w != nil {
		t.Fatalf("read in place what decodes with warnings %v: %q", w, data)
	}
	var id, text string
	switch e := e.(type) {
	case *event.TextMessageContent:
		id, text = e.MessageID, e.Delta
	case *event.ToolCallArgs:
		id, text = e.ToolCallID, e.Delta
	case *event.ReasoningMessageContent:
		id, text = e.MessageID, e.Delta
	default:
		t.Fatalf("read %s in place as a delta: %q", e.EventType(), data)
	}
	got := d.Text
	if d.Escaped {
		var ok bool
		if got, ok = wire.AppendUnescaped(nil, d.Text); !ok {
			return // the caller takes event.Decode
		}
	}
	tag, tagged := e.SubagentRunID()
	ts := e.Common().Timestamp
	if d.Type != string(e.EventType()) || string(d.ID) != id || string(got) != text || d.Tagged != tagged ||
		string(d.Tag) != tag || d.Timed != (ts != nil) || ts != nil && *ts != d.Timestamp {
		t.Fatalf("read %+v in place, decoded %#v from %q", d, e, data)
	}
}

// scanStringRef is ScanString one byte at a time, the reference its word at
// a time loop must agree with.
func scanStringRef(data []byte, i int) (s wire.Str, ok bool) {
	for i++; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			s.End = i + 1
			return s, true
		case c == '\\':
			s.Escaped = true
			if i+1 >= len(data) {
				return s, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+6 > len(data) {
					return s, false
				}
				for _, h := range data[i+2 : i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return s, false
					}
				}
				i += 5
			default:
				return s, false
			}
		case c < 0x20:
			return s, false
		case c >= 0x80:
			s.Wide = true
		}
	}
	return s, false
}

// TestScanStringEveryByte puts every byte value at every place of a long
// string and checks ScanString against the byte-at-a-time reference.
func TestScanStringEveryByte(t *testing.T) {
	for c := range 256 {
		for at := 1; at < 20; at++ {
			data := []byte(`"abcdefghijklmnopqrstuvwxyz"`)
			data[at] = byte(c)
			got, gotOK := wire.ScanString(data, 0)
			want, wantOK := scanStringRef(data, 0)
			if got != want || gotOK != wantOK {
				t.Fatalf("byte %#x at %d: got %+v %v, want %+v %v", c, at, got, gotOK, want, wantOK)
			}
		}
	}
}

// FuzzScanString checks ScanString against the byte-at-a-time reference.
func FuzzScanString(f *testing.F) {
	for _, s := range []string{`"plain ascii text of some length"`, `"é漢字 and \n \u00e9 \"q\" end"`, "\"ctl\x01\"", `"unterminated`, `"\u12"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '"' {
			return
		}
		got, gotOK := wire.ScanString(data, 0)
		want, wantOK := scanStringRef(data, 0)
		if gotOK != wantOK || gotOK && got != want {
			t.Fatalf("%q: got %+v %v, want %+v %v", data, got, gotOK, want, wantOK)
		}
	})
}
