package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agview/agview/transport"
)

// FuzzDecodeNextRequest: the request decoder never panics, refuses with a
// *RequestError, and what it accepts is a consistent request that survives
// a round trip.
func FuzzDecodeNextRequest(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `{"message":"hi"}`, `{"answer":"resolved","payload":{"approved":true}}`,
		`{"answer":"cancelled"}`, `{"payload":null}`, `{"answer":"x"}`, `{"message":1}`, `{} {}`, `{"x":1}`, `[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := DecodeNextRequest(bytes.NewReader(data))
		if err != nil {
			var re *RequestError
			if !errors.As(err, &re) || re.Status != 400 || re.Where == "" || re.Reason == "" {
				t.Fatalf("error %v (%T) is not a complete *RequestError", err, err)
			}
			return
		}
		switch req.Answer {
		case AnswerResolved:
		case AnswerCancelled:
			if req.Payload != nil {
				t.Fatalf("a cancelled answer with a payload was accepted: %q", data)
			}
		default:
			t.Fatalf("answer %q accepted from %q", req.Answer, data)
		}
		if req.Payload != nil && (!json.Valid(req.Payload) || string(bytes.TrimSpace(req.Payload)) == "null") {
			t.Fatalf("payload %q accepted", req.Payload)
		}
		again, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("an accepted request does not encode: %v", err)
		}
		back, err := DecodeNextRequest(bytes.NewReader(again))
		if err != nil {
			t.Fatalf("round trip of %s: %v", again, err)
		}
		if back.Message != req.Message || back.Answer != req.Answer {
			t.Fatalf("round trip changed %+v into %+v", req, back)
		}
	})
}

// FuzzAppendComment: whatever the text, a comment is skipped by an SSE
// reader and does not disturb the event after it.
func FuzzAppendComment(f *testing.F) {
	for _, s := range []string{"", "boom", "a\nb", "a\r\nb\rc", "data: x\n\n", "\n\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		b := appendComment(nil, text)
		b = transport.AppendSSEData(b, []byte(`{"type":"X"}`))
		var got []string
		for ev, err := range transport.ParseSSE(bytes.NewReader(b), nil) {
			if err != nil {
				t.Fatalf("comment %q broke the stream: %v", text, err)
			}
			got = append(got, ev.Data)
		}
		if len(got) != 1 || got[0] != `{"type":"X"}` {
			t.Fatalf("comment %q: the reader got %q", text, got)
		}
		if !strings.HasSuffix(string(b[:len(b)-len("data: {\"type\":\"X\"}\n\n")]), "\n") {
			t.Fatalf("comment %q does not end its lines", text)
		}
	})
}
