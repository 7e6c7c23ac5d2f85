package threads

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
)

// readStream applies the pane stream at url to vw until done says so.
func readStream(t *testing.T, f *fixture, owner, path string, vw *viewer, done func(*viewer) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", f.ts.URL+path, nil)
	req.Header.Set("X-Owner", owner)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 16<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			vw.apply(t, name, []byte(line[len("data: "):]))
			if done(vw) {
				return
			}
		}
	}
	t.Fatalf("the stream ended before the awaited frame (a minute at most): %v", sc.Err())
}

func idle(vw *viewer) bool {
	var h Header
	return json.Unmarshal(vw.run, &h) == nil && !h.Active && len(h.Runs) > 0 && len(h.PendingInterrupts) > 0 == (h.Status == "interrupted")
}

// A viewer that watched two runs live holds what a new viewer's snapshot
// shows, and a service started anew on the same journal shows the same.
func TestStreamOverRuns(t *testing.T) {
	f := newFixture(t, &Options{FlushInterval: -1}, &agenttest.Options{Delay: time.Millisecond})
	status, body := f.do(t, "alice", "POST", "/threads", `{"message":"first"}`)
	require.Equal(t, http.StatusCreated, status, body)
	var info ThreadInfo
	require.NoError(t, json.Unmarshal([]byte(body), &info))
	var live viewer
	readStream(t, f, "alice", info.Events, &live, idle)
	f.wait(t, info.ID)

	status, body = f.do(t, "alice", "POST", info.Runs, `{"message":"second","payload":{"approved":true}}`)
	require.Equal(t, http.StatusAccepted, status, body)
	readStream(t, f, "alice", info.Events, &live, func(vw *viewer) bool {
		var h Header
		return json.Unmarshal(vw.run, &h) == nil && !h.Active && len(h.Runs) == 2
	})
	f.wait(t, info.ID)
	var fresh viewer
	readStream(t, f, "alice", info.Events, &fresh, func(*viewer) bool { return true })
	assert.JSONEq(t, fresh.canonical(t), live.canonical(t))

	// A restart: a new service on the same journal folds the same thread.
	svc2, err := New(f.j, f.agent.URL(), &Options{Identify: byHeader})
	require.NoError(t, err)
	defer svc2.Close()
	f2 := &fixture{svc: svc2, j: f.j, ts: f.ts, agent: f.agent}
	f.ts.Config.Handler = svc2
	var restarted viewer
	readStream(t, f2, "alice", info.Events, &restarted, func(*viewer) bool { return true })
	var h1, h2 Header
	require.NoError(t, json.Unmarshal(fresh.run, &h1))
	require.NoError(t, json.Unmarshal(restarted.run, &h2))
	assert.Equal(t, h1.Runs, h2.Runs, "run statuses survive a restart")
	assert.Equal(t, len(fresh.panes), len(restarted.panes))
	status, body = f.do(t, "alice", "GET", "/threads", "")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"created":"`)
	assert.NotContains(t, body, `"status":""`)
}

// A thousand viewers of one streaming run, on one core, each end at the
// latest frame: none falls behind for good.
func TestThousandViewersOneCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	before, _ := bigThread(t, 200)
	h := newHub("th", before, DefaultRingBytes, nopLog())
	const viewers, tokens = 1000, 200
	var wg sync.WaitGroup
	var at sync.Map // viewer -> the last frame it wrote
	behind := make(chan uint64, viewers)
	for range viewers {
		tb, leave := h.join()
		wg.Go(func() {
			defer leave()
			me := new(int)
			last := uint64(0)
			for {
				evs, seq := h.since(last)
				n := 0
				for _, e := range evs {
					n += len(e) // a write to a fast socket
				}
				last = seq
				at.Store(me, seq)
				select {
				case <-tb.bell:
				case <-h.done:
					behind <- last
					return
				}
			}
		})
	}
	v := before
	start := time.Now()
	for i := range tokens {
		v = foldOne(t, v, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"live","delta":" t`+string(rune('a'+i%26))+`"}`)
		h.update(v)
		time.Sleep(time.Millisecond) // the pace of a fast model: a token a millisecond
	}
	took := time.Since(start)
	h.mu.Lock()
	final := h.seq
	h.mu.Unlock()
	require.Eventually(t, func() bool {
		n := 0
		at.Range(func(_, seq any) bool {
			if seq.(uint64) == final {
				n++
			}
			return true
		})
		return n == viewers
	}, 10*time.Second, 5*time.Millisecond, "every viewer reaches the latest frame")
	h.close()
	wg.Wait()
	close(behind)
	for last := range behind {
		assert.Equal(t, final, last, "a viewer ended behind the latest frame")
	}
	t.Logf("%d viewers, %d tokens in %v on one core", viewers, tokens, took)
}

// The legacy stream replays a finished thread without subagents, and ends.
func TestLegacyStream(t *testing.T) {
	f := newFixture(t, nil, nil)
	info := f.start(t, "alice")
	status, body := f.do(t, "alice", "GET", info.Legacy, "")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"type":"RUN_STARTED"`)
	assert.False(t, strings.Contains(body, `"type":"SUBAGENT_`), "no SUBAGENT_ event in the legacy stream")
}

// Stop cancels the run in progress: the thread reads cancelled, and a stop
// with no run in progress is a 409.
func TestStop(t *testing.T) {
	f := newFixture(t, nil, &agenttest.Options{Delay: 20 * time.Millisecond})
	status, body := f.do(t, "alice", "POST", "/threads", `{}`)
	require.Equal(t, http.StatusCreated, status, body)
	var info ThreadInfo
	require.NoError(t, json.Unmarshal([]byte(body), &info))
	var started viewer
	readStream(t, f, "alice", info.Events, &started, func(vw *viewer) bool {
		var h Header
		return json.Unmarshal(vw.run, &h) == nil && h.Status == "running"
	})
	status, body = f.do(t, "alice", "POST", info.Stop, "")
	require.Equal(t, http.StatusAccepted, status, body)
	f.wait(t, info.ID)
	// The hub publishes the run's last view on its own goroutine: a viewer
	// that connects right after the run ended may see the view before it
	// first, then the last one.
	var vw viewer
	readStream(t, f, "alice", info.Events, &vw, func(vw *viewer) bool {
		var h Header
		return json.Unmarshal(vw.run, &h) == nil && h.Status != "running"
	})
	var h Header
	require.NoError(t, json.Unmarshal(vw.run, &h))
	assert.Equal(t, "cancelled", string(h.Status))
	assert.Equal(t, "The run was stopped.", h.Error)
	status, _ = f.do(t, "alice", "POST", info.Stop, "")
	assert.Equal(t, http.StatusConflict, status)
}
