package client_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
)

// TestFirstRequestIsReferences: for every client history vector (this
// module's, and ../shared's when it is there), the body of the first request
// a Client sends, the caller setting no state, is the reference client's byte
// for byte: JSON.stringify of its prepareRunAgentInput, whose members and
// their order the vector's nextInput shows, with the run's id, the history as
// sentInput, and state {} (the reference always sends its state, and a
// server with a typed RunAgentInput requires it). With the ids left to the
// client, the bodies are the same but for the minted ids.
func TestFirstRequestIsReferences(t *testing.T) {
	vecs, err := conformance.LoadClient()
	require.NoError(t, err)
	if dir, ok := conformance.SharedClientDir(); ok {
		shared, err := conformance.LoadClientDir(dir)
		require.NoError(t, err)
		vecs = append(vecs, shared...)
	}
	require.NotEmpty(t, vecs)
	uuid := regexp.MustCompile(`"(threadId|runId)":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"`)
	for _, vec := range vecs {
		t.Run(vec.Name, func(t *testing.T) {
			t.Parallel()
			want := referenceFirstRequest(t, vec)
			srv := newBodyServer(t, vec.Events)
			input, _, err := event.DecodeInput(vec.Input())
			require.NoError(t, err)
			input.State = nil // the caller sets none

			c := client.New(srv.URL)
			_, _ = c.Run(t.Context(), input) // a cut stream of category 01 ends with an error
			c.Close()
			assert.Equal(t, string(want), string(srv.body(t, 0)), "the first request, ids given")

			c = client.New(srv.URL)
			_, _ = c.Run(t.Context(), &event.RunAgentInput{Messages: input.Messages})
			c.Close()
			got := uuid.ReplaceAllFunc(srv.body(t, 1), func(m []byte) []byte {
				if bytes.HasPrefix(m, []byte(`"threadId"`)) {
					return []byte(`"threadId":"` + conformance.ClientThreadID + `"`)
				}
				return []byte(`"runId":"` + conformance.ClientRunID + `"`)
			})
			assert.Equal(t, string(want), string(got), "the first request, ids minted (ids aside)")
		})
	}
}

// referenceFirstRequest returns the body the reference client sends to start
// vec's run: the members of vec's nextInput, which the reference built, in
// its order, compact as JSON.stringify writes them, with runId
// conformance.ClientRunID, state {} and the messages vec says were sent.
func referenceFirstRequest(t *testing.T, vec *conformance.ClientVector) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(vec.Expect.NextInput))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	var out bytes.Buffer
	out.WriteByte('{')
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		key := tok.(string)
		var raw json.RawMessage
		require.NoError(t, dec.Decode(&raw))
		switch key {
		case "runId":
			raw = json.RawMessage(`"` + conformance.ClientRunID + `"`)
		case "state":
			raw = json.RawMessage(`{}`)
		case "messages":
			raw = vec.Expect.SentInput.Messages
		case "resume":
			continue
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		name, err := json.Marshal(key)
		require.NoError(t, err)
		out.Write(name)
		out.WriteByte(':')
		require.NoError(t, json.Compact(&out, raw))
	}
	out.WriteByte('}')
	return out.Bytes()
}

// bodyServer is an agent that keeps the body of every request and answers
// each with the same events over SSE.
type bodyServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newBodyServer(t *testing.T, events []json.RawMessage) *bodyServer {
	t.Helper()
	s := &bodyServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			var frame bytes.Buffer
			if json.Compact(&frame, e) != nil {
				frame.Reset()
				frame.Write(e)
			}
			_, _ = io.WriteString(w, "data: "+frame.String()+"\n\n")
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// body returns the body of request i.
func (s *bodyServer) body(t *testing.T, i int) []byte {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Greater(t, len(s.bodies), i, "request %d was sent", i)
	return s.bodies[i]
}
