package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/store"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

func do(t *testing.T, method, url, body string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), method, url, strings.NewReader(body))
	require.NoError(t, err)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, data
}

func TestNewServerRefusesBadURLs(t *testing.T) {
	for _, u := range []string{"", "ftp://host/agent", "://nope", "localhost:8000"} {
		_, err := NewServer(u, nil)
		assert.Error(t, err, "agent URL %q", u)
	}
}

// TestRequests checks the answers to requests the service cannot act on:
// each is a JSON {"error"} with the status of its typed error.
func TestRequests(t *testing.T) {
	e := newEnv(t, nil, &agenttest.Options{Delay: time.Hour}, nil) // a run that stays active
	busy := e.start(t, "")
	big := `{"message":"` + strings.Repeat("x", MaxRequestBytes) + `"}`
	cases := []struct {
		name, method, path, body string
		header                   http.Header
		status                   int
		contains                 string
	}{
		{"start: not JSON", "POST", "/runs", "{", nil, 400, "body"},
		{"start: unknown field", "POST", "/runs", `{"mesage":"hi"}`, nil, 400, `unknown field "mesage"`},
		{"start: wrong type", "POST", "/runs", `{"message":42}`, nil, 400, "message: want a JSON string"},
		{"start: two values", "POST", "/runs", `{} {}`, nil, 400, "more than one JSON value"},
		{"start: too large", "POST", "/runs", big, nil, 413, "larger than"},
		{"start: not declared JSON", "POST", "/runs", `{}`, http.Header{"Content-Type": {"text/plain"}}, 415, "Content-Type"},
		{"next: not declared JSON", "POST", "/runs/" + busy.ID + "/next", `{}`, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, 415, "Content-Type"},
		{"next: unknown run", "POST", "/runs/nope/next", `{}`, nil, 404, "no such run"},
		{"next: bad answer", "POST", "/runs/" + busy.ID + "/next", `{"answer":"maybe"}`, nil, 400, "answer"},
		{"next: null payload", "POST", "/runs/" + busy.ID + "/next", `{"payload":null}`, nil, 400, "payload"},
		{"next: cancelled with payload", "POST", "/runs/" + busy.ID + "/next", `{"answer":"cancelled","payload":1}`, nil, 400, "payload"},
		{"next: busy", "POST", "/runs/" + busy.ID + "/next", `{"message":"more"}`, nil, 409, "still in progress"},
		{"events: unknown run", "GET", "/runs/nope/events", "", nil, 404, "no such run"},
		{"events: bad since", "GET", "/runs/" + busy.ID + "/events?since=-1", "", nil, 400, "since"},
		{"events: bad Last-Event-ID", "GET", "/runs/" + busy.ID + "/events", "", http.Header{"Last-Event-Id": {"x"}}, 400, "Last-Event-ID"},
		{"legacy: unknown run", "GET", "/runs/nope/legacy", "", nil, 404, "no such run"},
		{"view: unknown run", "GET", "/runs/nope/view", "", nil, 404, "no such run"},
		{"page: unknown run", "GET", "/runs/nope", "", nil, 404, "no such run"},
		{"wrong method", "PUT", "/runs", "", nil, 405, ""},
		{"no such route", "GET", "/nope", "", nil, 404, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, body := do(t, c.method, e.ts.URL+c.path, c.body, c.header)
			assert.Equal(t, c.status, res.StatusCode, "body: %s", body)
			msg := string(body)
			if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
				var answer struct{ Error string }
				require.NoError(t, json.Unmarshal(body, &answer))
				assert.NotEmpty(t, answer.Error)
				msg = answer.Error
			}
			assert.Contains(t, msg, c.contains)
		})
	}
}

func TestStatusOf(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{&RequestError{Status: 413, Where: "body"}, 413},
		{ErrUnknownRun, 404},
		{ErrBusy, 409},
		{ErrTooManyRuns, 503},
		{ErrClosed, 503},
		{errors.New("other"), 500},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, StatusOf(c.err), "%v", c.err)
		assert.Equal(t, c.want, StatusOf(errors.Join(errors.New("wrapped"), c.err)), "wrapped %v", c.err)
	}
}

// TestStartToFinalView: a run started over HTTP goes to its end; GET
// /runs/{id}/view is the store's view, the run list and the page know it.
func TestStartToFinalView(t *testing.T) {
	e := newEnv(t, nil, nil, nil)
	info := e.start(t, `{"message":"Electric buses?"}`)
	assert.True(t, info.Active, "the answer to POST /runs says the run is in progress")
	v, err := e.svc.Wait(testCtx(t), info.ID)
	require.NoError(t, err)

	inputs := e.agent.Inputs()
	require.Len(t, inputs, 1)
	require.Len(t, inputs[0].Messages, 1, "the user's message goes to the agent")
	assert.Equal(t, event.RoleUser, inputs[0].Messages[0].Role)
	assert.JSONEq(t, `"Electric buses?"`, string(inputs[0].Messages[0].Content))

	res, body := do(t, "GET", e.ts.URL+info.View, "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	want, err := v.MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(body), "GET view is the store's view")

	res, body = do(t, "GET", e.ts.URL+"/runs", "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	var list []RunInfo
	require.NoError(t, json.Unmarshal(body, &list))
	require.Len(t, list, 1)
	assert.Equal(t, info.ID, list[0].ID)
	assert.False(t, list[0].Active)
	assert.Equal(t, view.RunInterrupted, list[0].Status)

	for _, path := range []string{"/", info.Page} {
		res, body = do(t, "GET", e.ts.URL+path, "", nil)
		assert.Equal(t, http.StatusOK, res.StatusCode, path)
		assert.Contains(t, res.Header.Get("Content-Type"), "text/html", path)
		assert.Contains(t, string(body), `<script src="/static/app.js"`, path)
	}
	for path, ctype := range map[string]string{"/static/app.js": "javascript", "/static/app.css": "text/css"} {
		res, body = do(t, "GET", e.ts.URL+path, "", nil)
		assert.Equal(t, http.StatusOK, res.StatusCode, path)
		assert.Contains(t, res.Header.Get("Content-Type"), ctype, path)
		assert.NotEmpty(t, body, path)
	}
}

// TestNextAnswersTheInterrupt: the demo swarm ends on an approval
// interrupt; POST /runs/{id}/next answers it (client.NextInput) and the
// agent run that continues it folds into the same view.
func TestNextAnswersTheInterrupt(t *testing.T) {
	e := newEnv(t, nil, nil, nil)
	info := e.start(t, "")
	ctx := testCtx(t)
	v, err := e.svc.Wait(ctx, info.ID)
	require.NoError(t, err)
	pending := v.PendingInterrupts()
	require.Len(t, pending, 1, "the demo swarm awaits one approval")
	require.NotNil(t, pending[0].Subagent)
	suspended := *pending[0].Subagent
	require.Equal(t, view.Suspended, v.Invocation(suspended).Status())

	// A viewer connected before the next agent run sees it happen.
	events := e.getEvents(t, ctx, info.ID, "", nil)
	res, body := do(t, "POST", e.ts.URL+"/runs/"+info.ID+"/next", `{"answer":"resolved","payload":{"approved":true},"message":"Go ahead."}`, nil)
	require.Equal(t, http.StatusAccepted, res.StatusCode, "body: %s", body)
	var vw viewer
	require.NoError(t, vw.watch(events.Body, func(v *viewer) bool { return idle(v) && len(v.header.Runs) == 2 }))

	v, err = e.svc.Wait(ctx, info.ID)
	require.NoError(t, err)
	runs := v.Runs()
	require.Len(t, runs, 2)
	assert.Equal(t, view.RunInterrupted, runs[0].Status)
	assert.Equal(t, view.RunFinished, runs[1].Status)
	assert.Equal(t, view.Finished, v.Invocation(suspended).Status(), "the suspended researcher was continued and finished")
	assert.Empty(t, v.PendingInterrupts())
	assert.Zero(t, v.ViolationCount())

	inputs := e.agent.Inputs()
	require.Len(t, inputs, 2)
	next := inputs[1]
	require.Len(t, next.Resume, 1)
	assert.Equal(t, pending[0].ID, next.Resume[0].InterruptID)
	assert.Equal(t, event.ResumeResolved, next.Resume[0].Status)
	assert.JSONEq(t, `{"approved":true}`, string(next.Resume[0].Payload))
	assert.Equal(t, inputs[0].ThreadID, next.ThreadID, "the conversation stays on its thread")
	last := next.Messages[len(next.Messages)-1]
	assert.JSONEq(t, `"Go ahead."`, string(last.Content), "the user's message follows the history")
	assert.Greater(t, len(next.Messages), 1, "the history goes back to the agent")

	want, err := marshal(PaneOf(v.Invocation(suspended), v))
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(vw.panes[subKey(suspended)]), "the viewer has the continued invocation's final pane")
}

// TestLegacyStream: GET /runs/{id}/legacy re-emits the agent's stream with
// subagents hidden; a consumer older than subagent support folds it without
// a violation into the same messages, untagged.
func TestLegacyStream(t *testing.T) {
	for _, live := range []bool{true, false} {
		t.Run(map[bool]string{true: "live", false: "replayed"}[live], func(t *testing.T) {
			e := newEnv(t, nil, &agenttest.Options{Delay: 200 * time.Microsecond}, nil)
			info := e.start(t, "")
			ctx := testCtx(t)
			if !live {
				_, err := e.svc.Wait(ctx, info.ID)
				require.NoError(t, err)
			}
			res, body := do(t, "GET", e.ts.URL+info.Legacy, "", nil)
			require.Equal(t, http.StatusOK, res.StatusCode)
			assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
			assert.NotContains(t, string(body), `"type":"SUBAGENT_`, "no lifecycle event reaches the old consumer")

			s := store.New(nil)
			defer s.Close()
			n, traces := 0, 0
			for ev, err := range transport.Read(ctx, bytes.NewReader(body), transport.FormatSSE, nil) {
				require.NoError(t, err)
				_, tagged := ev.SubagentRunID()
				require.False(t, tagged, "event %d carries no subagentRunId", n)
				assert.NoError(t, s.Dispatch(ev), "event %d (%s) is valid without subagents", n, ev.EventType())
				if c, ok := ev.(*event.Custom); ok && (c.Name == "SUBAGENT_ERROR" || c.Name == "SUBAGENT_FINISHED") {
					traces++ // the trace of a subagent's error or result
				} else {
					assert.NotContains(t, string(mustEncode(t, ev)), "subagentRunId", "event %d", n)
				}
				n++
			}
			v, err := e.svc.Wait(ctx, info.ID)
			require.NoError(t, err)
			legacy := s.View()
			lifecycle := 0
			for range v.Invocations() {
				lifecycle++ // at least its SUBAGENT_STARTED and its end
			}
			assert.Positive(t, traces, "a subagent's error or result leaves a trace")
			assert.LessOrEqual(t, n, v.EventCount()-2*lifecycle+traces, "the lifecycle events are left out")
			assert.Zero(t, legacy.InvocationCount(), "no subagent is visible")
			assert.Zero(t, legacy.ViolationCount())
			var want []event.Message
			for m := range v.Messages() {
				m.Subagent = nil
				want = append(want, m)
			}
			assert.Equal(t, want, legacy.MessageList(), "the same messages, untagged")
			assert.JSONEq(t, string(v.State()), string(legacy.State()), "the same state")
		})
	}
}

func mustEncode(t *testing.T, e event.Event) []byte {
	t.Helper()
	b, err := event.Encode(e)
	require.NoError(t, err)
	return b
}

// TestLegacyStreamComments: undecodable frames and a broken stream become
// SSE comments in the legacy stream, which readers skip.
func TestLegacyStreamComments(t *testing.T) {
	frames := []json.RawMessage{
		json.RawMessage(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`),
		json.RawMessage(`{"type":"NOT_A_TYPE"}`),
		json.RawMessage(`{"type":"SUBAGENT_STARTED","subagentRunId":"s1","name":"helper"}`),
		json.RawMessage(`{"type":"STEP_STARTED","stepName":"x","subagentRunId":"s1"}`),
	}
	e := newEnv(t, agenttest.Frames(frames...), &agenttest.Options{Fault: agenttest.CutAfter(len(frames))}, nil)
	info := e.start(t, "")
	_, err := e.svc.Wait(testCtx(t), info.ID)
	require.NoError(t, err)
	res, body := do(t, "GET", e.ts.URL+info.Legacy, "", nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	var types []string
	for ev, err := range transport.ParseSSE(bytes.NewReader(body), nil) {
		require.NoError(t, err)
		var x struct{ Type string }
		require.NoError(t, json.Unmarshal([]byte(ev.Data), &x))
		types = append(types, x.Type)
	}
	assert.Equal(t, []string{"RUN_STARTED", "STEP_STARTED"}, types, "the decoded events, without the lifecycle one")
	assert.Contains(t, string(body), ": agview: ", "the errors are comments")
	assert.Contains(t, string(body), "NOT_A_TYPE")
}

// TestEventsSince: a viewer that reconnects with Last-Event-ID (or ?since)
// gets only what changed after that frame, no snapshot; one with a frame
// from the future gets a snapshot.
func TestEventsSince(t *testing.T) {
	e := newEnv(t, nil, &agenttest.Options{Delay: time.Millisecond}, nil)
	info := e.start(t, "")
	ctx := testCtx(t)

	// Record the frame number of the first write after the first pane
	// appeared, as a browser would.
	first := e.getEvents(t, ctx, info.ID, "", nil)
	var early viewer
	require.NoError(t, early.watch(first.Body, func(v *viewer) bool { return len(v.panes) >= 3 && v.lastID != "" }))
	since, err := strconv.ParseUint(early.lastID, 10, 64)
	require.NoError(t, err)
	_, err = e.svc.Wait(ctx, info.ID)
	require.NoError(t, err)
	latest := e.svc.hub(t, info.ID).latest()
	require.Greater(t, latest.seq, since)

	for name, open := range map[string]func() *http.Response{
		"Last-Event-ID": func() *http.Response {
			return e.getEvents(t, ctx, info.ID, "", http.Header{"Last-Event-Id": {early.lastID}})
		},
		"since": func() *http.Response { return e.getEvents(t, ctx, info.ID, "?since="+early.lastID, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			res := open()
			require.Equal(t, http.StatusOK, res.StatusCode)
			v := viewer{panes: map[string]json.RawMessage{}}
			want := strconv.FormatUint(latest.seq, 10)
			require.NoError(t, v.watch(res.Body, func(v *viewer) bool { return v.lastID == want }))
			assert.Zero(t, v.snapshots, "no snapshot on a resumed stream")
			var changed []string
			for _, p := range latest.panes {
				if p.seq > since {
					changed = append(changed, p.key)
				}
			}
			assert.Len(t, v.panes, len(changed), "exactly the panes that changed since frame %d", since)
			for _, k := range changed {
				assert.Contains(t, v.panes, k)
			}
			assert.False(t, v.header.Active, "the final header")
		})
	}
	t.Run("up to date", func(t *testing.T) {
		// Nothing to send: the headers still come at once.
		res := e.getEvents(t, ctx, info.ID, "?since="+strconv.FormatUint(latest.seq, 10), nil)
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	})
	t.Run("future", func(t *testing.T) {
		res := e.getEvents(t, ctx, info.ID, "?since="+strconv.FormatUint(latest.seq+100, 10), nil)
		var v viewer
		require.NoError(t, v.watch(res.Body, idle))
		assert.Equal(t, 1, v.snapshots, "an unknown frame gets a snapshot")
		assert.Len(t, v.panes, len(latest.panes))
	})
}

// hub returns the hub of run id, for tests that look inside.
func (s *Server) hub(t *testing.T, id string) *hub {
	t.Helper()
	conv, err := s.lookup(id)
	require.NoError(t, err)
	return conv.hub
}

// TestKeepAlive: an idle stream gets comments, which readers skip.
func TestKeepAlive(t *testing.T) {
	e := newEnv(t, nil, nil, &Options{KeepAlive: 5 * time.Millisecond})
	info := e.start(t, "")
	ctx := testCtx(t)
	_, err := e.svc.Wait(ctx, info.ID)
	require.NoError(t, err)
	res := e.getEvents(t, ctx, info.ID, "", nil)
	buf := make([]byte, 0, 64<<10)
	chunk := make([]byte, 4096)
	for !bytes.Contains(buf, []byte(": keep-alive\n\n")) {
		n, err := res.Body.Read(chunk)
		require.NoError(t, err)
		buf = append(buf, chunk[:n]...)
	}
	assert.True(t, bytes.HasPrefix(buf, []byte("event: snapshot\n")), "the stream starts with the snapshot")
}

// TestCloseEndsEverything: Close cancels the agent run in progress (its run
// is marked cancelled), ends the event and legacy streams, and answers
// later requests 503.
func TestCloseEndsEverything(t *testing.T) {
	e := newEnv(t, nil, &agenttest.Options{Delay: 5 * time.Millisecond}, nil)
	info := e.start(t, "")
	ctx := testCtx(t)
	events := e.getEvents(t, ctx, info.ID, "", nil)
	var v viewer
	require.NoError(t, v.watch(events.Body, func(v *viewer) bool { return len(v.panes) >= 2 }), "the run got going")
	conv, err := e.svc.lookup(info.ID)
	require.NoError(t, err)
	legacyRes, err := http.Get(e.ts.URL + info.Legacy)
	require.NoError(t, err)
	defer legacyRes.Body.Close()

	e.svc.Close()
	_, err = io.Copy(io.Discard, events.Body)
	assert.NoError(t, err, "the event stream ended cleanly")
	_, err = io.Copy(io.Discard, legacyRes.Body)
	assert.NoError(t, err, "the legacy stream ended cleanly")
	final := conv.client.Store().View()
	run, ok := final.LastRun()
	require.True(t, ok)
	assert.Equal(t, view.RunCancelled, run.Status)

	res, _ := do(t, "POST", e.ts.URL+"/runs", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	res, _ = do(t, "GET", e.ts.URL+info.Events, "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	e.svc.Close() // idempotent
}

// TestAgentFailures: a failing agent shows in the header (error) and in the
// view (failed run, abandoned invocations).
func TestAgentFailures(t *testing.T) {
	cases := []struct {
		name      string
		fault     agenttest.Fault
		wantError string
		wantRun   view.RunStatus // "" when no run started
	}{
		{"http status", agenttest.Status(http.StatusBadGateway, "upstream down"), "502", ""},
		{"cut mid-run", agenttest.CutAfter(40), "", view.RunFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, &agenttest.Options{Fault: c.fault}, nil)
			info := e.start(t, "")
			ctx := testCtx(t)
			v, err := e.svc.Wait(ctx, info.ID)
			require.NoError(t, err)
			res := e.getEvents(t, ctx, info.ID, "", nil)
			var vw viewer
			require.NoError(t, vw.watch(res.Body, idle))
			assert.NotEmpty(t, vw.header.Error, "the header says why the agent run failed")
			assert.Contains(t, vw.header.Error, c.wantError)
			run, ok := v.LastRun()
			if c.wantRun == "" {
				assert.False(t, ok, "no run started")
				return
			}
			require.True(t, ok)
			assert.Equal(t, c.wantRun, run.Status)
			for inv := range v.Invocations() {
				assert.NotEqual(t, view.Running, inv.Status(), "invocation %s is no longer running", inv.ID())
			}
		})
	}
}

// TestMaxRuns: beyond MaxRuns the oldest idle run is dropped; when none is
// idle a new run is refused.
func TestMaxRuns(t *testing.T) {
	t.Run("drops the oldest idle", func(t *testing.T) {
		e := newEnv(t, nil, nil, &Options{MaxRuns: 2})
		ctx := testCtx(t)
		var ids []string
		for range 3 {
			info := e.start(t, "")
			_, err := e.svc.Wait(ctx, info.ID)
			require.NoError(t, err)
			ids = append(ids, info.ID)
		}
		res, _ := do(t, "GET", e.ts.URL+"/runs/"+ids[0]+"/view", "", nil)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, "the oldest run was dropped")
		for _, id := range ids[1:] {
			res, _ := do(t, "GET", e.ts.URL+"/runs/"+id+"/view", "", nil)
			assert.Equal(t, http.StatusOK, res.StatusCode, "run %s is kept", id)
		}
	})
	t.Run("refuses when none is idle", func(t *testing.T) {
		e := newEnv(t, nil, &agenttest.Options{Delay: time.Hour}, &Options{MaxRuns: 1})
		e.start(t, "")
		res, body := do(t, "POST", e.ts.URL+"/runs", "", nil)
		assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
		assert.Contains(t, string(body), "too many runs")
	})
}

// TestWebSocketAgent: a ws:// agent URL is reached over WebSocket.
func TestWebSocketAgent(t *testing.T) {
	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 2}), nil)
	defer agent.Close()
	svc, err := NewServer(agent.WSURL(), nil)
	require.NoError(t, err)
	defer svc.Close()
	info, err := svc.Start("")
	require.NoError(t, err)
	v, err := svc.Wait(testCtx(t), info.ID)
	require.NoError(t, err)
	want := view.New()
	for _, ev := range agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 2}) {
		want, _ = reducer.Fold(want, ev)
	}
	assert.Equal(t, want.InvocationCount(), v.InvocationCount())
	assert.Equal(t, want.MessageCount(), v.MessageCount())
	assert.Zero(t, v.ViolationCount())
}
