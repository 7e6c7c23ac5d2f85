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
		if fastSpecOf(s) != nil {
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
