package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/transport"
)

var update = flag.Bool("update", false, "rewrite the golden files and the screenshot under testdata")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if binDir != "" {
			os.RemoveAll(binDir)
		}
	}))
}

// testCtx returns a context that ends with the test or after a generous
// deadline, whichever comes first, so that a hang fails instead of stalling.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// env is a service in front of a demo agent, both on loopback.
type env struct {
	agent *agenttest.Server
	svc   *Server
	ts    *httptest.Server
}

// newEnv starts script (the service's demo agent, the swarm of seed 1, when
// nil) behind a service
// configured with opts. Cleanup closes the service first (ending its
// streams), then the HTTP server, then the agent.
func newEnv(t *testing.T, script agenttest.Script, agentOpts *agenttest.Options, opts *Options) *env {
	t.Helper()
	if script == nil {
		script = demoAgent(&agenttest.SwarmConfig{Seed: 1})
	}
	e := &env{agent: agenttest.NewServer(script, agentOpts)}
	t.Cleanup(e.agent.Close)
	svc, err := NewServer(e.agent.URL(), opts)
	require.NoError(t, err)
	e.svc = svc
	e.ts = httptest.NewServer(svc)
	t.Cleanup(e.ts.Close)
	t.Cleanup(svc.Close)
	return e
}

// start POSTs /runs and returns the new run.
func (e *env) start(t *testing.T, body string) ThreadInfo {
	t.Helper()
	res, err := http.Post(e.ts.URL+"/threads", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusCreated, res.StatusCode, "POST /threads answers 201")
	var info ThreadInfo
	require.NoError(t, json.NewDecoder(res.Body).Decode(&info))
	assert.Equal(t, info.Page, res.Header.Get("Location"))
	return info
}

// viewer is what a browser tab keeps: the latest JSON of every pane, the
// header and the state, applied from the events stream.
type viewer struct {
	panes     map[string]json.RawMessage
	header    Header
	rawHeader json.RawMessage
	state     json.RawMessage
	snapshots int
	events    int
	lastID    string
}

// apply folds one SSE event into the viewer.
func (v *viewer) apply(ev transport.SSEEvent) error {
	v.events++
	if ev.ID != "" {
		v.lastID = ev.ID
	}
	switch ev.Event {
	case EventSnapshot:
		var s struct {
			Run   json.RawMessage   `json:"run"`
			State json.RawMessage   `json:"state"`
			Panes []json.RawMessage `json:"panes"`
		}
		if err := json.Unmarshal([]byte(ev.Data), &s); err != nil {
			return err
		}
		v.snapshots++
		v.panes = map[string]json.RawMessage{}
		for _, p := range s.Panes {
			if err := v.setPane(p); err != nil {
				return err
			}
		}
		v.state = s.State
		return v.setHeader(s.Run)
	case EventPane:
		return v.setPane(json.RawMessage(ev.Data))
	case EventState:
		v.state = json.RawMessage(ev.Data)
	case EventRun:
		return v.setHeader(json.RawMessage(ev.Data))
	}
	return nil
}

// setPane stores a pane's JSON under its key. A pane's JSON starts with
// its key (Pane's first field), so only that string is decoded.
func (v *viewer) setPane(data json.RawMessage) error {
	rest, ok := bytes.CutPrefix(data, []byte(`{"key":`))
	if !ok {
		return fmt.Errorf("a pane that does not start with its key: %.40s", data)
	}
	var key string
	if err := json.NewDecoder(bytes.NewReader(rest)).Decode(&key); err != nil {
		return err
	}
	if v.panes == nil {
		v.panes = map[string]json.RawMessage{}
	}
	v.panes[key] = data
	return nil
}

func (v *viewer) setHeader(data json.RawMessage) error {
	v.rawHeader = data
	return json.Unmarshal(data, &v.header)
}

// watch reads the events stream of body into v until stop says so after an
// event, or the stream ends.
func (v *viewer) watch(body io.Reader, stop func(*viewer) bool) error {
	for ev, err := range transport.ParseSSE(body, &transport.Options{MaxEventBytes: 64 << 20}) { // snapshots of large states
		if err != nil {
			return err
		}
		if err := v.apply(ev); err != nil {
			return err
		}
		if stop(v) {
			return nil
		}
	}
	return io.ErrUnexpectedEOF
}

// idle stops a viewer once the header says no agent run is in progress.
func idle(v *viewer) bool { return v.rawHeader != nil && !v.header.Active }

// getEvents opens the events stream of run id with the given query and
// headers; the body is closed when the test ends.
func (e *env) getEvents(t *testing.T, ctx context.Context, id, query string, header http.Header) *http.Response {
	t.Helper()
	res, err := e.openEvents(ctx, id, query, header)
	require.NoError(t, err)
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// openEvents is getEvents for another goroutine than the test's: the caller
// closes the body.
func (e *env) openEvents(ctx context.Context, id, query string, header http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.ts.URL+"/threads/"+id+"/events"+query, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	return http.DefaultClient.Do(req)
}

// TestRunMain runs the program: it listens, serves the page, and exits 0
// when its context ends; bad flags exit 2.
func TestRunMain(t *testing.T) {
	t.Run("bad flags", func(t *testing.T) {
		for _, args := range [][]string{{"-nope"}, {"extra"}, {"-agent", "ftp://x"}} {
			var stderr strings.Builder
			assert.Equal(t, exitUsage, run(t.Context(), args, io.Discard, &stderr), "args %q", args)
			assert.NotEmpty(t, stderr.String(), "args %q: an explanation on stderr", args)
		}
	})
	t.Run("help", func(t *testing.T) {
		var stderr strings.Builder
		assert.Equal(t, exitOK, run(t.Context(), []string{"-h"}, io.Discard, &stderr))
		assert.Contains(t, stderr.String(), "-agent")
	})
	t.Run("bad journal", func(t *testing.T) {
		var stderr strings.Builder
		assert.Equal(t, exitUsage, run(t.Context(), []string{"-journal", "postgres://x", "-addr", "127.0.0.1:0"}, io.Discard, &stderr))
		assert.Contains(t, stderr.String(), "names no journal")
	})
	t.Run("default journal", func(t *testing.T) {
		t.Setenv("XDG_DATA_HOME", "/data/home")
		if runtime.GOOS == "linux" {
			assert.Equal(t, "file:/data/home/agview/bff/threads", defaultJournal(), "the per-user data directory")
		}
	})
	t.Run("serves", func(t *testing.T) {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(testCtx(t))
		defer cancel()
		out, w := io.Pipe()
		code := make(chan int, 1)
		go func() {
			code <- run(ctx, []string{"-addr", "127.0.0.1:0", "-delay", "0", "-journal", "file:" + dir}, w, io.Discard)
			w.Close()
		}()
		line, err := bufio.NewReader(out).ReadString('\n')
		require.NoError(t, err)
		url, _, ok := strings.Cut(strings.TrimPrefix(line, "agview BFF on "), " ")
		require.True(t, ok, "first line names the URL: %q", line)

		res, err := http.Post(url+"threads", "application/json", strings.NewReader(`{}`))
		require.NoError(t, err)
		var info ThreadInfo
		require.NoError(t, json.NewDecoder(res.Body).Decode(&info))
		res.Body.Close()
		require.Equal(t, http.StatusCreated, res.StatusCode)

		// Watch the run to its end, then stop the program while the stream
		// is still open: it must end it and exit cleanly.
		req, err := http.NewRequestWithContext(testCtx(t), http.MethodGet, url+"threads/"+info.ID+"/events", nil)
		require.NoError(t, err)
		res, err = http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var v viewer
		require.NoError(t, v.watch(res.Body, idle))
		assert.Len(t, v.panes, 6, "the demo swarm of seed 1: the parent agent and 5 subagents")

		cancel()
		assert.Equal(t, exitOK, <-code)
		_, err = io.Copy(io.Discard, res.Body)
		assert.NoError(t, err, "the stream ends cleanly when the program stops")
	})
}
