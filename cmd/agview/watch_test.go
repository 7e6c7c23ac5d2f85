package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
)

// TestWatchJSONMatchesReplay: for a sample of vectors, "watch --json" against
// an agent serving the vector (over SSE and over WebSocket) prints the same
// final view as "replay --json" of the recording, except for how a stream
// that never finished its run ends (live: failed; recorded: incomplete).
func TestWatchJSONMatchesReplay(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	for _, vec := range vecs {
		if !strings.HasPrefix(vec.Name, "15-") && !strings.HasPrefix(vec.Name, "09-") && !strings.HasPrefix(vec.Name, "05-own-text") {
			continue
		}
		t.Run(vec.Name, func(t *testing.T) {
			script, err := agenttest.Vector(mustJSON(t, vec))
			require.NoError(t, err)
			srv := agenttest.NewServer(script, nil)
			defer srv.Close()
			_, want, _ := runCLI(t, nil, "replay", "--json", writeVector(t, vec))
			// watch exits 0 only when the last run finished (or awaits an
			// interrupt's answer) and no event was rejected.
			var form struct {
				Runs []struct {
					Status string `json:"status"`
				} `json:"runs"`
			}
			require.NoError(t, json.Unmarshal([]byte(want), &form))
			wantCode := exitRejected
			if n := len(form.Runs); vec.Accept() && n > 0 && (form.Runs[n-1].Status == "finished" || form.Runs[n-1].Status == "interrupted") {
				wantCode = exitOK
			}
			for _, args := range [][]string{{srv.URL()}, {"--ws", srv.WSURL()}, {"--proto", srv.URL()}} {
				code, got, stderr := runCLI(t, nil, append([]string{"watch", "--json"}, args...)...)
				assert.Equal(t, wantCode, code, "%v: stderr %s", args, stderr)
				if wantCode != exitOK {
					assert.NotEmpty(t, stderr, "a failed run is reported on stderr")
				}
				assert.JSONEq(t, want, got, "%v: watch --json must print what replay --json prints", args)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestWatchFailures(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	var vec *conformance.Vector
	for _, v := range vecs {
		if v.Name == "15-large-supervisor-five-researchers" {
			vec = v
		}
	}
	require.NotNil(t, vec)

	t.Run("cut mid-run", func(t *testing.T) {
		srv := agenttest.NewServer(agenttest.Frames(vec.Events...), &agenttest.Options{Fault: agenttest.CutAfter(40)})
		defer srv.Close()
		code, out, stderr := runCLI(t, nil, "watch", "--json", srv.URL())
		assert.Equal(t, exitRejected, code)
		assert.Contains(t, stderr, "unexpected EOF")
		var form struct {
			Events int `json:"events"`
			Runs   []struct {
				Status string `json:"status"`
			} `json:"runs"`
			Invocations []struct {
				Status string `json:"status"`
			} `json:"invocations"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &form), "the view folded so far is still printed")
		assert.Equal(t, 40, form.Events)
		require.Len(t, form.Runs, 1)
		assert.Equal(t, "failed", form.Runs[0].Status)
		for _, inv := range form.Invocations {
			assert.NotEqual(t, "running", inv.Status, "open invocations are abandoned (G11)")
		}
	})
	t.Run("server error", func(t *testing.T) {
		srv := agenttest.NewServer(agenttest.Frames(vec.Events...), &agenttest.Options{Fault: agenttest.Status(503, "overloaded")})
		defer srv.Close()
		code, _, stderr := runCLI(t, nil, "watch", "--json", srv.URL())
		assert.Equal(t, exitRejected, code)
		assert.Contains(t, stderr, "503")
		assert.Contains(t, stderr, "overloaded")
	})
	t.Run("run error", func(t *testing.T) {
		srv := agenttest.NewServer(agenttest.Frames(
			json.RawMessage(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`),
			json.RawMessage(`{"type":"RUN_ERROR","message":"model exploded"}`),
		), nil)
		defer srv.Close()
		code, _, stderr := runCLI(t, nil, "watch", "--json", srv.URL())
		assert.Equal(t, exitRejected, code)
		assert.Contains(t, stderr, "errored: model exploded")
	})
	t.Run("idle agent", func(t *testing.T) {
		// RUN_STARTED, then silence until the client goes.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		defer srv.Close()
		code, out, stderr := runCLI(t, nil, "watch", "--json", "--idle-timeout", "300ms", srv.URL)
		assert.Equal(t, exitRejected, code)
		assert.Contains(t, stderr, "idle timeout: nothing received for 300ms")
		assert.Contains(t, out, `"status": "failed"`, "the run is marked failed and the view printed")
		code, _, _ = runCLI(t, nil, "watch", "--idle-timeout", "-1s", srv.URL)
		assert.Equal(t, exitUsage, code, "a negative timeout is refused")
	})
	t.Run("progress lines off a terminal", func(t *testing.T) {
		srv := agenttest.NewServer(agenttest.Frames(vec.Events...), nil)
		defer srv.Close()
		code, out, _ := runCLI(t, nil, "watch", srv.URL())
		assert.Equal(t, exitOK, code)
		assert.Contains(t, out, "finished")
		assert.NotContains(t, out, "\x1b[", "no terminal escapes off a terminal")
	})
}

// TestWatchSendsInputAndHeaders: --input is the RunAgentInput sent, and
// every --header goes with the request.
func TestWatchSendsInputAndHeaders(t *testing.T) {
	var gotAuth, gotTrace string
	var gotInput map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotTrace = r.Header.Get("Authorization"), r.Header.Get("X-Trace")
		_ = json.NewDecoder(r.Body).Decode(&gotInput)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"th-9\",\"runId\":\"r-9\"}\n\n" +
			"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"th-9\",\"runId\":\"r-9\"}\n\n"))
	}))
	defer srv.Close()
	in := filepath.Join(t.TempDir(), "input.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"threadId":"th-9","runId":"r-9","messages":[{"id":"u1","role":"user","content":"hi"}]}`), 0o644))
	code, out, stderr := runCLI(t, nil, "watch", "--json", "--input", in, "--header", "Authorization: Bearer x", "--header", "X-Trace:42", srv.URL)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "Bearer x", gotAuth)
	assert.Equal(t, "42", gotTrace)
	assert.Equal(t, "th-9", gotInput["threadId"])
	assert.Len(t, gotInput["messages"], 1)
	assert.Contains(t, out, `"runId": "r-9"`)

	for _, bad := range [][]string{
		{"watch"},
		{"watch", "--header", "novalue", srv.URL},
		{"watch", "--input", filepath.Join(t.TempDir(), "missing.json"), srv.URL},
	} {
		code, _, _ := runCLI(t, nil, bad...)
		assert.Equal(t, exitUsage, code, "%v", bad)
	}
}

// TestDemoJSON: the demo is deterministic; its final view is a golden file.
func TestDemoJSON(t *testing.T) {
	code, out, stderr := runCLI(t, nil, "demo", "--json")
	require.Equal(t, exitOK, code, stderr)
	golden(t, "demo.json.golden", out)
	code, out, _ = runCLI(t, nil, "demo")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "errored")
	assert.Contains(t, out, "suspended")
	code, _, _ = runCLI(t, nil, "demo", "extra")
	assert.Equal(t, exitUsage, code)
}

// TestWatchInputWithoutIDs: an --input file without runId (or threadId)
// was refused ("/runId: required field is missing"), although the client
// mints both. Now it is sent with fresh ids; a bad file still names the
// byte of the file where it is wrong.
func TestWatchInputWithoutIDs(t *testing.T) {
	srv := agenttest.NewServer(agenttest.Events(
		&event.RunStarted{ThreadID: "t", RunID: "r"}, &event.RunFinished{ThreadID: "t", RunID: "r"}), nil)
	defer srv.Close()
	dir := t.TempDir()
	for _, tc := range []struct{ name, file, thread string }{
		{"no runId", `{"threadId":"thread-7","messages":[]}`, "thread-7"},
		{"no ids", `{"messages":[{"id":"u1","role":"user","content":"hi"}]}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "in.json")
			require.NoError(t, os.WriteFile(path, []byte(tc.file), 0o644))
			code, _, stderr := runCLI(t, nil, "watch", "--json", "--input", path, srv.URL())
			require.Equal(t, exitOK, code, stderr)
			ins := srv.Inputs()
			got := ins[len(ins)-1]
			assert.NotEmpty(t, got.RunID, "a run id is minted")
			assert.NotEmpty(t, got.ThreadID, "a thread id is minted")
			if tc.thread != "" {
				assert.Equal(t, tc.thread, got.ThreadID, "the file's thread is kept")
			}
		})
	}
	path := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"messages":[{"id":"u1","role":"user","content":"hi","subagentRunId":null}]}`), 0o644))
	code, _, stderr := runCLI(t, nil, "watch", "--json", "--input", path, srv.URL())
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "message 'u1' /messages/0/subagentRunId")
	assert.Contains(t, stderr, "(byte 69)", "the byte in the file, not in what was decoded")
}
