//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/journal/natsjournal"
	"github.com/agview/agview/threads"
	"github.com/agview/agview/view"
)

// slowScript is an agent whose every run streams one message of n deltas,
// with ids of its run's own, so that runs of one thread never collide.
func slowScript(n int) agenttest.Script {
	return agenttest.ScriptFunc(func(in *event.RunAgentInput) iter.Seq[json.RawMessage] {
		msg := "msg-" + in.RunID
		evs := []event.Event{
			&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID},
			&event.TextMessageStart{MessageID: msg, Role: event.Ptr(event.RoleAssistant)},
		}
		for i := range n {
			evs = append(evs, &event.TextMessageContent{MessageID: msg, Delta: fmt.Sprintf("word%d ", i)})
		}
		evs = append(evs, &event.TextMessageEnd{MessageID: msg}, &event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		return agenttest.Events(evs...).Frames(in)
	})
}

// viewJSON is the part of GET /threads/{id}/view the tests read.
type viewJSON struct {
	Events int `json:"events"`
	Runs   []struct {
		RunID  string         `json:"runId"`
		Status view.RunStatus `json:"status"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	} `json:"runs"`
	Messages []json.RawMessage `json:"messages"`
}

// getView returns a process's GET /threads/{id}/view.
func (p *proc) getView(t *testing.T, ctx context.Context, id string) viewJSON {
	t.Helper()
	res := p.do(t, ctx, http.MethodGet, "/threads/"+id+"/view", "", "")
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusOK, res.StatusCode, "GET view: %s", body)
	var v viewJSON
	require.NoError(t, json.Unmarshal(body, &v))
	return v
}

// watchUntil opens a process's event stream of thread id and reads it until
// stop holds; it returns the viewer.
func (p *proc) watchUntil(t *testing.T, ctx context.Context, id string, stop func(*viewer) bool) *viewer {
	t.Helper()
	res := p.do(t, ctx, http.MethodGet, "/threads/"+id+"/events", "", "")
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	var v viewer
	require.NoError(t, v.watch(res.Body, stop))
	return &v
}

// kill ends the process with SIGKILL: no deferred function, no flush.
func (p *proc) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	<-p.done
}

// rootText returns the text the parent's pane shows so far.
func rootText(v *viewer) string {
	root := v.panes[threads.RootKey]
	if root == nil {
		return ""
	}
	var b strings.Builder
	for _, it := range root.Items {
		b.WriteString(it.Text)
	}
	return b.String()
}

// TestEmbeddedJournalAfterKill: the BFF on the file journal, killed with
// SIGKILL in the middle of a run, restarted on the same directory: it
// shows every thread, the one that had finished as it was, and the one that
// was cut up to its last complete event, its run cut (failed, not running,
// not finished).
func TestEmbeddedJournalAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx := testCtx(t)
	dir := t.TempDir()
	agent := agenttest.NewServer(slowScript(400), &agenttest.Options{Delay: 5 * time.Millisecond})
	t.Cleanup(agent.Close)
	a := startBFF(t, "-agent", agent.URL(), "-journal", "file:"+dir)

	var done, cut threads.ThreadInfo
	a.post(t, ctx, "/threads", `{"message":"the first"}`, http.StatusCreated, &done)
	a.waitIdle(t, ctx, done.ID)
	before := a.getView(t, ctx, done.ID)
	a.post(t, ctx, "/threads", `{"message":"the second"}`, http.StatusCreated, &cut)
	a.watchUntil(t, ctx, cut.ID, func(v *viewer) bool { return strings.Count(rootText(v), "word") >= 50 })
	a.kill(t)

	b := startBFF(t, "-agent", agent.URL(), "-journal", "file:"+dir)
	ids := map[string]bool{}
	for _, info := range b.threads(t, ctx) {
		ids[info.ID] = true
	}
	assert.True(t, ids[done.ID] && ids[cut.ID], "the restarted service lists both threads: %v", ids)
	assert.Equal(t, before, b.getView(t, ctx, done.ID), "the finished thread reads as it was")

	b.getView(t, ctx, cut.ID) // the service folds a thread when it is first asked for
	info := b.waitIdle(t, ctx, cut.ID)
	assert.Equal(t, string(view.RunFailed), info.Status, "the cut run is failed: not running, not finished")
	v := b.getView(t, ctx, cut.ID)
	require.Len(t, v.Runs, 1)
	assert.Equal(t, view.RunFailed, v.Runs[0].Status)
	require.NotNil(t, v.Runs[0].Error)
	assert.Contains(t, v.Runs[0].Error.Message, "cut")

	// Up to the last complete event: the file's complete event lines.
	data, err := os.ReadFile(filepath.Join(dir, cut.ID+".jsonl"))
	require.NoError(t, err)
	complete := 0
	for line := range strings.Lines(string(data)) {
		if strings.HasSuffix(line, "\n") && !strings.Contains(line, `"type":"`+journal.InputType+`"`) && !strings.Contains(line, `"type":"`+journal.EndType+`"`) {
			complete++
		}
	}
	assert.Equal(t, complete, v.Events, "the view holds every complete event the journal kept")
	assert.Greater(t, v.Events, 50, "what was received before the kill is kept")
}

// natsServer starts a real nats-server process, built from
// github.com/nats-io/nats-server/v2 (a tool of this module), with JetStream
// on and its store in a temporary directory; it returns its URL.
func natsServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "nats-server")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2").CombinedOutput()
	require.NoError(t, err, "go build nats-server: %s", out)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", t.TempDir())
	var log syncBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("nats-server log:\n%s", log.String())
		}
	})
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("nats-server never listened: %v\n%s", err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReplicasOnNATS: two BFF processes on one real nats-server serve one
// thread to browsers connected to either. A second writer on the thread is
// refused (409); a stop asked of the replica that does not run the run
// stops it; and when the replica running a run is killed with SIGKILL, the
// other's view holds everything the journal received before the kill and
// marks the run cut within the lease TTL.
func TestReplicasOnNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts nats-server and two services")
	}
	const ttl = 3 * time.Second
	ctx := testCtx(t)
	url := natsServer(t)
	agent := agenttest.NewServer(slowScript(600), &agenttest.Options{Delay: 10 * time.Millisecond})
	t.Cleanup(agent.Close)
	flags := []string{"-agent", agent.URL(), "-journal", url, "-lease-ttl", ttl.String()}
	a := startBFF(t, append(flags, "-name", "replica-a")...)
	b := startBFF(t, append(flags, "-name", "replica-b")...)

	// Run 1 on A, watched from B; B may not write to the thread meanwhile,
	// and stops it for A.
	var info threads.ThreadInfo
	a.post(t, ctx, "/threads", `{"message":"hello"}`, http.StatusCreated, &info)
	// Another owner gets 404 for the thread on every route of every replica.
	mallory := testCookie(t, "mallory")
	for _, p := range []*proc{a, b} {
		for _, r := range []struct{ method, path string }{
			{"GET", info.Page}, {"GET", info.View}, {"GET", info.Events}, {"GET", info.Legacy},
			{"POST", info.Runs}, {"POST", info.Stop}, {"DELETE", info.Self},
		} {
			res := p.do(t, ctx, r.method, r.path, mallory, "")
			res.Body.Close()
			assert.Equal(t, http.StatusNotFound, res.StatusCode, "another owner: %s %s", r.method, r.path)
		}
	}
	seen := b.watchUntil(t, ctx, info.ID, func(v *viewer) bool { return strings.Count(rootText(v), "word") >= 20 })
	assert.Contains(t, rootText(seen), "word0 word1 ", "B streams the run A runs")
	b.post(t, ctx, info.Runs, `{"message":"me too"}`, http.StatusConflict, nil)
	b.post(t, ctx, info.Stop, ``, http.StatusAccepted, nil)
	stopped := a.waitIdle(t, ctx, info.ID)
	assert.Equal(t, string(view.RunCancelled), stopped.Status, "A cancelled its run at B's request")

	// Run 2 on A, watched from B, then A is killed.
	a.post(t, ctx, info.Runs, `{"message":"go on"}`, http.StatusAccepted, nil)
	b.watchUntil(t, ctx, info.ID, func(v *viewer) bool {
		return len(v.header.Runs) == 2 && strings.Count(rootText(v), "word") >= 20+50
	})
	a.kill(t)
	killed := time.Now()
	final := b.waitIdle(t, ctx, info.ID)
	within := time.Since(killed)
	t.Logf("the killed replica's run read as cut on the other after %v (lease TTL %v)", within.Round(time.Millisecond), ttl)
	// The lease lapses at most ttl after its last refresh; the watcher asks
	// every DefaultCutPoll; the rest is slack for a loaded machine.
	assert.Less(t, within, ttl+client.DefaultAttachPoll+3*time.Second, "cut within the lease TTL (and the watcher's poll)")
	assert.Equal(t, string(view.RunFailed), final.Status, "the run is cut: failed, neither running nor finished")

	// B's view holds every event the journal has, which is everything A
	// received before it died.
	j, err := natsjournal.Dial(ctx, url, &natsjournal.Options{LeaseTTL: ttl})
	require.NoError(t, err)
	defer j.Close()
	events := 0
	for rec, err := range j.Read(ctx, info.ID, 1) {
		require.NoError(t, err)
		if rec.Kind == journal.KindEvent {
			events++
		}
	}
	v := b.getView(t, ctx, info.ID)
	assert.Equal(t, events, v.Events, "B's view holds every event journalled before the kill")
	require.Len(t, v.Runs, 2)
	assert.Equal(t, view.RunCancelled, v.Runs[0].Status)
	assert.Equal(t, view.RunFailed, v.Runs[1].Status)
	assert.Greater(t, v.Events, 70)

	// The thread goes on, on B.
	b.post(t, ctx, info.Runs, `{"message":"once more"}`, http.StatusAccepted, nil)
	last := b.waitIdle(t, ctx, info.ID)
	assert.Equal(t, string(view.RunFinished), last.Status)
}
