package threads

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/journal"
)

// byHeader identifies the owner by the X-Owner header; "" is refused.
func byHeader(r *http.Request) (string, error) {
	if o := r.Header.Get("X-Owner"); o != "" {
		return o, nil
	}
	return "", errors.New("no X-Owner")
}

type fixture struct {
	svc   *Service
	j     journal.Journal
	ts    *httptest.Server
	agent *agenttest.Server
}

func newFixture(t *testing.T, opts *Options, agentOpts *agenttest.Options) *fixture {
	t.Helper()
	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), agentOpts)
	t.Cleanup(agent.Close)
	j := journal.NewMemory("")
	t.Cleanup(func() { _ = j.Close() })
	if opts == nil {
		opts = &Options{}
	}
	if opts.Identify == nil {
		opts.Identify = byHeader
	}
	svc, err := New(j, agent.URL(), opts)
	require.NoError(t, err)
	ts := httptest.NewServer(svc)
	t.Cleanup(ts.Close)
	t.Cleanup(svc.Close)
	return &fixture{svc: svc, j: j, ts: ts, agent: agent}
}

// do sends a request as owner and returns the status and body.
func (f *fixture) do(t *testing.T, owner, method, path, body string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" || method == http.MethodPost {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, f.ts.URL+path, r)
	require.NoError(t, err)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	if owner != "" {
		req.Header.Set("X-Owner", owner)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	require.NoError(t, err)
	return res.StatusCode, string(data)
}

// start starts a thread of owner and waits until its run ended.
func (f *fixture) start(t *testing.T, owner string) ThreadInfo {
	t.Helper()
	status, body := f.do(t, owner, http.MethodPost, "/threads", `{"message":"hi"}`)
	require.Equal(t, http.StatusCreated, status, body)
	var info ThreadInfo
	require.NoError(t, json.Unmarshal([]byte(body), &info))
	f.wait(t, info.ID)
	return info
}

// wait waits until no run of thread id is active.
func (f *fixture) wait(t *testing.T, id string) {
	t.Helper()
	require.Eventually(t, func() bool {
		st, err := f.j.Stat(context.Background(), id)
		return err == nil && st.Active == nil
	}, 10*time.Second, 5*time.Millisecond)
}

// Every route, as its owner, as another owner, without identity, and with
// ids that must not reach the journal.
func TestRoutes(t *testing.T) {
	f := newFixture(t, nil, nil)
	alice := f.start(t, "alice")
	long := strings.Repeat("a", MaxIDBytes+1)
	for _, tc := range []struct {
		name, owner, method, path, body string
		status                          int
		want                            string // in the body
	}{
		{"page", "alice", "GET", "/", "", 200, "<html"},
		{"page of a thread", "alice", "GET", alice.Page, "", 200, "<html"},
		{"page of another's thread", "bob", "GET", alice.Page, "", 404, "No such thread"},
		{"list", "alice", "GET", "/threads", "", 200, alice.ID},
		{"list of another", "bob", "GET", "/threads", "", 200, `"threads":[]`},
		{"list without identity", "", "GET", "/threads", "", 401, `"code":"unauthorized"`},
		{"list bad limit", "alice", "GET", "/threads?limit=0", "", 400, "limit"},
		{"view", "alice", "GET", alice.View, "", 200, `"runs"`},
		{"view of another's", "bob", "GET", alice.View, "", 404, `"code":"not_found"`},
		{"events of another's", "bob", "GET", alice.Events, "", 404, "not_found"},
		{"legacy of another's", "bob", "GET", alice.Legacy, "", 404, "not_found"},
		{"continue another's", "bob", "POST", alice.Runs, `{"message":"x"}`, 404, "not_found"},
		{"stop another's", "bob", "POST", alice.Stop, `{}`, 404, "not_found"},
		{"delete another's", "bob", "DELETE", alice.Self, "", 404, "not_found"},
		{"stop an idle thread", "alice", "POST", alice.Stop, `{}`, 409, "not_running"},
		{"unknown thread", "alice", "GET", "/threads/nope/view", "", 404, "not_found"},
		{"id too long", "alice", "GET", "/threads/" + long + "/view", "", 400, "bad_request"},
		{"id of 100 KB", "alice", "POST", "/threads/" + strings.Repeat("b", 100<<10) + "/runs", `{}`, 400, "got 102400 bytes"},
		{"id with a bad character", "alice", "GET", "/threads/a%20b/view", "", 400, "bad_request"},
		{"dot id", "alice", "POST", "/threads/../runs", `{}`, 404, ""},
		{"start with a bad body", "alice", "POST", "/threads", `{"msg":1}`, 400, "unknown field"},
		{"start with two values", "alice", "POST", "/threads", `{} {}`, 400, "more than one"},
		{"continue with a bad answer", "alice", "POST", alice.Runs, `{"answer":"maybe"}`, 400, "answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := f.do(t, tc.owner, tc.method, tc.path, tc.body)
			assert.Equal(t, tc.status, status, body)
			assert.Contains(t, body, tc.want)
			if status >= 400 {
				assert.Less(t, len(body), 512, "a refusal is bounded, whatever the request")
			}
		})
	}
}

// Each limit, reached, is a typed refusal with its status; the others go on.
func TestLimits(t *testing.T) {
	t.Run("threads per owner", func(t *testing.T) {
		f := newFixture(t, &Options{MaxThreadsPerOwner: 2}, nil)
		f.start(t, "alice")
		f.start(t, "alice")
		status, body := f.do(t, "alice", "POST", "/threads", `{}`)
		assert.Equal(t, http.StatusTooManyRequests, status)
		assert.Contains(t, body, `"code":"too_many_threads"`)
		f.start(t, "bob") // another owner is not counted against alice
	})
	t.Run("runs per owner", func(t *testing.T) {
		f := newFixture(t, &Options{MaxRunsPerOwner: 1}, &agenttest.Options{Delay: 20 * time.Millisecond})
		status, body := f.do(t, "alice", "POST", "/threads", `{}`)
		require.Equal(t, http.StatusCreated, status, body)
		status, body = f.do(t, "alice", "POST", "/threads", `{}`)
		assert.Equal(t, http.StatusTooManyRequests, status)
		assert.Contains(t, body, `"code":"too_many_runs"`)
		status, body = f.do(t, "bob", "POST", "/threads", `{}`)
		assert.Equal(t, http.StatusCreated, status, body)
	})
	t.Run("viewers per owner", func(t *testing.T) {
		f := newFixture(t, &Options{MaxViewersPerOwner: 1}, nil)
		info := f.start(t, "alice")
		req, _ := http.NewRequestWithContext(t.Context(), "GET", f.ts.URL+info.Events, nil)
		req.Header.Set("X-Owner", "alice")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		status, body := f.do(t, "alice", "GET", info.Events, "")
		assert.Equal(t, http.StatusTooManyRequests, status)
		assert.Contains(t, body, `"code":"too_many_viewers"`)
	})
	t.Run("body size", func(t *testing.T) {
		f := newFixture(t, &Options{MaxBodyBytes: 100}, nil)
		status, body := f.do(t, "alice", "POST", "/threads", `{"message":"`+strings.Repeat("x", 200)+`"}`)
		assert.Equal(t, http.StatusRequestEntityTooLarge, status)
		assert.Contains(t, body, "larger than 100 bytes")
	})
	t.Run("body not JSON", func(t *testing.T) {
		f := newFixture(t, nil, nil)
		req, _ := http.NewRequestWithContext(t.Context(), "POST", f.ts.URL+"/threads", strings.NewReader("message=hi"))
		req.Header.Set("X-Owner", "alice")
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode)
	})
	t.Run("body time", func(t *testing.T) {
		f := newFixture(t, &Options{BodyTimeout: 100 * time.Millisecond}, nil)
		pr, pw := io.Pipe()
		defer pw.Close()
		req, _ := http.NewRequestWithContext(t.Context(), "POST", f.ts.URL+"/threads", pr)
		req.Header.Set("X-Owner", "alice")
		req.Header.Set("Content-Type", "application/json")
		go func() { _, _ = pw.Write([]byte(`{"mess`)) }() // and never more
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		assert.Equal(t, http.StatusRequestTimeout, res.StatusCode, string(data))
	})
	t.Run("delete", func(t *testing.T) {
		f := newFixture(t, nil, nil)
		info := f.start(t, "alice")
		status, _ := f.do(t, "alice", "DELETE", info.Self, "")
		assert.Equal(t, http.StatusNoContent, status)
		status, _ = f.do(t, "alice", "GET", info.View, "")
		assert.Equal(t, http.StatusNotFound, status)
		ids, err := f.j.Threads(t.Context())
		require.NoError(t, err)
		assert.NotContains(t, ids, info.ID)
	})
	t.Run("delete while running", func(t *testing.T) {
		f := newFixture(t, nil, &agenttest.Options{Delay: 20 * time.Millisecond})
		status, body := f.do(t, "alice", "POST", "/threads", `{}`)
		require.Equal(t, http.StatusCreated, status)
		var info ThreadInfo
		require.NoError(t, json.Unmarshal([]byte(body), &info))
		status, body = f.do(t, "alice", "DELETE", info.Self, "")
		assert.Equal(t, http.StatusConflict, status)
		assert.Contains(t, body, "stop it")
	})
	t.Run("idle expiry", func(t *testing.T) {
		f := newFixture(t, &Options{IdleExpiry: 50 * time.Millisecond, ExpiryCheck: 20 * time.Millisecond}, nil)
		info := f.start(t, "alice")
		require.Eventually(t, func() bool {
			ids, err := f.j.Threads(context.Background())
			return err == nil && len(ids) == 0
		}, 5*time.Second, 10*time.Millisecond)
		status, _ := f.do(t, "alice", "GET", info.View, "")
		assert.Equal(t, http.StatusNotFound, status)
	})
	t.Run("refused events", func(t *testing.T) {
		frames := []json.RawMessage{json.RawMessage(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)}
		for range 5000 {
			frames = append(frames, json.RawMessage(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"nope","delta":"x"}`))
		}
		agent := agenttest.NewServer(agenttest.Frames(frames...), &agenttest.Options{Delay: 100 * time.Microsecond})
		t.Cleanup(agent.Close)
		j := journal.NewMemory("")
		t.Cleanup(func() { _ = j.Close() })
		svc, err := New(j, agent.URL(), &Options{Identify: byHeader, MaxRefused: 20})
		require.NoError(t, err)
		t.Cleanup(svc.Close)
		info, err := svc.Start(t.Context(), "alice", "")
		require.NoError(t, err)
		f := &fixture{svc: svc, j: j}
		f.wait(t, info.ID)
		st, err := j.Stat(t.Context(), info.ID)
		require.NoError(t, err)
		assert.Less(t, st.Last, uint64(2000), "the run was stopped long before its 5000 refused events")
	})
	t.Run("threads in memory", func(t *testing.T) {
		f := newFixture(t, &Options{MaxLoaded: 1}, nil)
		a, b := f.start(t, "alice"), f.start(t, "alice")
		f.svc.mu.Lock()
		loaded := len(f.svc.threads)
		f.svc.mu.Unlock()
		assert.Equal(t, 1, loaded, "the least recently used thread is let go")
		for _, info := range []ThreadInfo{a, b} {
			status, body := f.do(t, "alice", "GET", info.View, "")
			assert.Equal(t, http.StatusOK, status, body)
			assert.Contains(t, body, `"interrupted"`, "folded again from the journal")
		}
	})
	t.Run("list pages", func(t *testing.T) {
		f := newFixture(t, nil, nil)
		var want []string
		for range 5 {
			want = append([]string{f.start(t, "alice").ID}, want...)
		}
		f.start(t, "bob")
		var got []string
		next := ""
		for range 10 {
			status, body := f.do(t, "alice", "GET", "/threads?limit=2&after="+next, "")
			require.Equal(t, http.StatusOK, status, body)
			var l ThreadList
			require.NoError(t, json.Unmarshal([]byte(body), &l))
			for _, th := range l.Threads {
				got = append(got, th.ID)
				assert.NotZero(t, th.Created)
				assert.Equal(t, "interrupted", th.Status)
			}
			if next = l.Next; next == "" {
				break
			}
		}
		assert.ElementsMatch(t, want, got)
	})
}
