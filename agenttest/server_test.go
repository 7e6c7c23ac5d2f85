package agenttest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
)

// TestMain fails the tests when a goroutine outlives them: Close must stop
// and wait for everything a Server starts.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var run = []event.Event{
	&event.RunStarted{ThreadID: "t1", RunID: "r1"},
	&event.TextMessageStart{MessageID: "m1", Role: event.Ptr(event.RoleAssistant)},
	&event.TextMessageContent{MessageID: "m1", Delta: "hello"},
	&event.TextMessageEnd{MessageID: "m1"},
	&event.RunFinished{ThreadID: "t1", RunID: "r1"},
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestServerSSEWire(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(agenttest.Frames(json.RawMessage(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`),
		json.RawMessage("{\n \"type\": \"RUN_ERROR\",\n \"message\": \"x\"\n}")), nil)
	defer srv.Close()
	resp := post(t, srv.URL(), `{"threadId":"t","runId":"r","messages":[]}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"+
		"data: {\ndata:  \"type\": \"RUN_ERROR\",\ndata:  \"message\": \"x\"\ndata: }\n\n", string(body),
		"one data field per frame, a multi-line frame on several data lines")
}

func TestServerRefusesBadRequests(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(agenttest.Events(run...), &agenttest.Options{MaxInputBytes: 64})
	defer srv.Close()

	resp := post(t, srv.URL(), `not json`)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	body, _ := io.ReadAll(resp.Body)
	assert.Contains(t, string(body), "not a RunAgentInput")

	resp = post(t, srv.URL(), `{"threadId":"`+strings.Repeat("x", 100)+`"}`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL(), nil)
	require.NoError(t, err)
	get, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer get.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, get.StatusCode)
	assert.Equal(t, "POST", get.Header.Get("Allow"))

	assert.Empty(t, srv.Inputs(), "refused requests are not recorded")

	// WebSocket: the first message must be a text RunAgentInput.
	for _, msg := range []struct {
		typ  int
		data string
		code int
	}{
		{websocket.BinaryMessage, `{}`, websocket.CloseUnsupportedData},
		{websocket.TextMessage, `[1,2]`, websocket.CloseInvalidFramePayloadData},
	} {
		c, _, err := websocket.DefaultDialer.DialContext(t.Context(), srv.WSURL(), nil)
		require.NoError(t, err)
		require.NoError(t, c.WriteMessage(msg.typ, []byte(msg.data)))
		_, _, err = c.ReadMessage()
		assert.True(t, websocket.IsCloseError(err, msg.code), "want close %d, got %v", msg.code, err)
		c.Close()
	}
}

func TestServerInputs(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(agenttest.Events(run...), nil)
	defer srv.Close()
	for _, id := range []string{"a", "b"} {
		for range transport.NewSSE(srv.URL(), nil).Run(t.Context(), &event.RunAgentInput{ThreadID: id, RunID: "r"}) {
		}
	}
	for range transport.NewWebSocket(srv.WSURL(), nil).Run(t.Context(), &event.RunAgentInput{ThreadID: "c", RunID: "r"}) {
	}
	in := srv.Inputs()
	require.Len(t, in, 3)
	assert.Equal(t, []string{"a", "b", "c"}, []string{in[0].ThreadID, in[1].ThreadID, in[2].ThreadID})
	in[0].ThreadID = "changed"
	assert.Equal(t, "a", srv.Inputs()[0].ThreadID, "Inputs returns fresh copies")
}

// TestServerScriptSeesInput checks a ScriptFunc generates from the run's input.
func TestServerScriptSeesInput(t *testing.T) {
	t.Parallel()
	echo := agenttest.ScriptFunc(func(in *event.RunAgentInput) iter.Seq[json.RawMessage] {
		return agenttest.Events(
			&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID},
			&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID},
		).Frames(in)
	})
	srv := agenttest.NewServer(echo, nil)
	defer srv.Close()
	var got []event.Event
	for e, err := range transport.NewSSE(srv.URL(), nil).Run(t.Context(), &event.RunAgentInput{ThreadID: "th", RunID: "rn"}) {
		require.NoError(t, err)
		got = append(got, e)
	}
	require.Len(t, got, 2)
	assert.Equal(t, "rn", got[0].(*event.RunStarted).RunID)
}

// TestServerCloseStopsRuns closes a server while a slow run streams to a
// client: Close must return (having waited for its goroutines) and the
// client must see the connection break.
func TestServerCloseStopsRuns(t *testing.T) {
	t.Parallel()
	for _, ws := range []bool{false, true} {
		started := make(chan struct{})
		script := agenttest.ScriptFunc(func(in *event.RunAgentInput) iter.Seq[json.RawMessage] {
			close(started) // the run is in progress: the server pauses before each frame
			return agenttest.Events(run...).Frames(in)
		})
		srv := agenttest.NewServer(script, &agenttest.Options{Delay: time.Hour})
		var src transport.Runner = transport.NewSSE(srv.URL(), nil)
		if ws {
			src = transport.NewWebSocket(srv.WSURL(), nil)
		}
		done := make(chan error, 1)
		go func() {
			var fatal error
			for _, err := range src.Run(t.Context(), nil) {
				fatal = err
			}
			done <- fatal
		}()
		select {
		case <-started:
		case <-t.Context().Done():
			t.Fatal("the run never started")
		}
		srv.Close()
		srv.Close() // idempotent
		select {
		case err := <-done:
			var te *transport.Error
			require.ErrorAs(t, err, &te, "websocket=%v", ws)
			assert.Contains(t, []transport.Kind{transport.KindIO, transport.KindClosed, transport.KindIncomplete}, te.Kind,
				"websocket=%v: %v", ws, err)
		case <-t.Context().Done():
			t.Fatal("the client did not see the server close")
		}
	}
}

func TestServerAfterClose(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(agenttest.Events(run...), nil)
	srv.Close()
	var fatal error
	for _, err := range transport.NewSSE(srv.URL(), nil).Run(t.Context(), nil) {
		fatal = err
	}
	assert.ErrorIs(t, fatal, transport.KindConnect, "a closed server accepts no connection")
}

func TestFaultDefaults(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(agenttest.Events(run...), &agenttest.Options{Fault: agenttest.Fault{Kind: agenttest.FaultStatus}})
	defer srv.Close()
	resp := post(t, srv.URL(), `{}`)
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, "FaultStatus defaults to 500")

	srv2 := agenttest.NewServer(agenttest.Events(run...), &agenttest.Options{Fault: agenttest.ContentType("")})
	defer srv2.Close()
	resp = post(t, srv2.URL(), `{}`)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "FaultContentType defaults to application/json")

	srv3 := agenttest.NewServer(agenttest.Events(run...), &agenttest.Options{Fault: agenttest.OversizeAfter(0, 1000)})
	defer srv3.Close()
	body, err := io.ReadAll(post(t, srv3.URL(), `{}`).Body)
	require.NoError(t, err)
	frame := bytes.TrimSuffix(bytes.TrimPrefix(body, []byte("data: ")), []byte("\n\n"))
	assert.Len(t, frame, 1000, "the oversized frame has the size asked")
	assert.True(t, json.Valid(frame), "the oversized frame is a valid event")

	srv4 := agenttest.NewServer(agenttest.Events(run...), &agenttest.Options{Fault: agenttest.CutAfter(99)})
	defer srv4.Close()
	var fatal error
	n := 0
	for _, err := range transport.NewSSE(srv4.URL(), nil).Run(t.Context(), nil) {
		if err != nil {
			fatal = err
		}
		n++
	}
	assert.NoError(t, fatal, "a fault after more frames than the script has never happens")
	assert.Equal(t, len(run), n)
}

func TestGarbageAfter(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(agenttest.Events(run...), &agenttest.Options{Fault: agenttest.GarbageAfter(1, []byte("data: {oops\n\n"))})
	defer srv.Close()
	body, err := io.ReadAll(post(t, srv.URL(), `{}`).Body)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(body), "}\n\ndata: {oops\n\n"), "the garbage is written raw after the frame: %q", body)
}

func TestVector(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "v.json")
	require.NoError(t, os.WriteFile(good, []byte(`{"name":"v","events":[
  {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
  {"type": "TEXT_MESSAGE_START"},
  {"type":"RUN_FINISHED","threadId":"t","runId":"r"}
]}`), 0o644))
	s, err := agenttest.VectorFile(good)
	require.NoError(t, err)
	var frames []string
	for f := range s.Frames(nil) {
		frames = append(frames, string(f))
	}
	assert.Equal(t, []string{
		`{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}`,
		`{"type": "TEXT_MESSAGE_START"}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
	}, frames, "frames are served verbatim, malformed ones included")

	_, err = agenttest.Vector([]byte(`{"name":"no events"}`))
	assert.ErrorContains(t, err, `no "events" array`)
	_, err = agenttest.Vector([]byte(`[`))
	assert.ErrorContains(t, err, "not a conformance vector")
	_, err = agenttest.VectorFile(filepath.Join(dir, "missing.json"))
	assert.True(t, errors.Is(err, os.ErrNotExist), "%v", err)
}

func TestScripts(t *testing.T) {
	t.Parallel()
	var n int
	for f := range agenttest.Events(run...).Frames(nil) {
		e, err := event.Decode(f)
		require.NoError(t, err)
		assert.Equal(t, run[n], e)
		n++
	}
	assert.Equal(t, len(run), n)

	// Frames stops when the consumer does.
	n = 0
	for range agenttest.Frames(json.RawMessage(`1`), json.RawMessage(`2`)).Frames(nil) {
		n++
		break
	}
	assert.Equal(t, 1, n)
}

// TestServeProto: the server answers protobuf exactly when the request's
// Accept admits it, and its frames decode to the script's events.
func TestServeProto(t *testing.T) {
	t.Parallel()
	events := []event.Event{
		&event.RunStarted{ThreadID: "t", RunID: "r"},
		&event.TextMessageContent{MessageID: "m", Delta: "hi"},
		&event.RunFinished{ThreadID: "t", RunID: "r"},
	}
	srv := agenttest.NewServer(agenttest.Events(events...), nil)
	defer srv.Close()
	for _, tt := range []struct {
		accept []string
		proto  bool
	}{
		{nil, false},
		{[]string{"text/event-stream"}, false},
		{[]string{"*/*"}, true},
		{[]string{"text/event-stream", "application/vnd.ag-ui.event+proto;q=0.1"}, true},
		{[]string{"application/vnd.ag-ui.event+proto;q=0"}, false},
	} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL(), strings.NewReader(`{}`))
		require.NoError(t, err)
		req.Header["Accept"] = tt.accept
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		if !tt.proto {
			assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"), "%q", tt.accept)
			continue
		}
		require.Equal(t, transport.MediaTypeProto, resp.Header.Get("Content-Type"), "%q", tt.accept)
		var got []event.Event
		for e, err := range transport.Read(t.Context(), bytes.NewReader(body), transport.FormatProto, nil) {
			require.NoError(t, err)
			got = append(got, e)
		}
		assert.Equal(t, events, got)
	}
}
