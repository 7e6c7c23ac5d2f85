package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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

// FuzzCheckOrigin: whatever the Host and Origin headers hold, checkOrigin
// never panics, and a request it lets through names a loopback or allowed
// host, and, for a POST with an Origin, that origin's host is the request's
// or an allowed one.
func FuzzCheckOrigin(f *testing.F) {
	for _, c := range [][2]string{
		{"127.0.0.1:8080", ""}, {"localhost:8080", "http://localhost:8080"}, {"evil.example", "http://evil.example"},
		{"[::1]:80", "null"}, {"bff.example:443", "https://bff.example:443"}, {"127.0.0.1.evil.example", ""},
		{"LOCALHOST", "http://LOCALHOST"}, {"[::1", "http://[::1"}, {"x.localhost:1", "ftp://x"},
	} {
		f.Add(c[0], c[1])
	}
	s, err := NewServer("http://agent.invalid", &Options{AllowedHosts: []string{"bff.example"}})
	require.NoError(f, err)
	defer s.Close()
	f.Fuzz(func(t *testing.T, host, origin string) {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			r := &http.Request{Method: method, Host: host, Header: http.Header{}}
			if origin != "" {
				r.Header.Set("Origin", origin)
			}
			err := s.checkOrigin(r)
			if err != nil {
				var re *RequestError
				require.ErrorAs(t, err, &re)
				require.Equal(t, http.StatusForbidden, re.Status)
				continue
			}
			require.True(t, s.allowedHost(host), "let through a request for %q", host)
			if method == http.MethodPost && origin != "" {
				u, err := url.Parse(origin)
				require.NoError(t, err)
				require.True(t, strings.EqualFold(u.Host, host) || s.hosts[strings.ToLower(u.Host)], "let through a POST from %q to %q", origin, host)
			}
		}
	})
}
