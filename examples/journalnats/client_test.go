package journalnats_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/examples/journalnats"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/view"
)

func viewJSON(t *testing.T, v *view.View) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func lastStatus(v *view.View) view.RunStatus {
	r, _ := v.LastRun()
	return r.Status
}

// TestTwoReplicas records a run through one replica's connection and
// watches it live from another's: the same view.
func TestTwoReplicas(t *testing.T) {
	srv := journalnats.Start(t, t.TempDir())
	o := unique(0)
	r1 := dial(t, srv.URL(), o)
	defer r1.Close()
	r2 := dial(t, srv.URL(), o)
	defer r2.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	a, err := client.Attach(ctx, r2, "thread-demo", &client.AttachOptions{Poll: 50 * time.Millisecond})
	require.NoError(t, err)
	defer a.Store().Close()
	defer a.Stop()

	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 5}), &agenttest.Options{Delay: 50 * time.Microsecond})
	defer agent.Close()
	c := client.New(agent.URL(), client.WithJournal(r1, func(err error) { t.Errorf("journal: %v", err) }))
	defer c.Close()
	want, err := c.Run(ctx, &event.RunAgentInput{ThreadID: "thread-demo", RunID: "r1"})
	require.NoError(t, err)
	got, err := a.Store().Wait(ctx, func(v *view.View) bool { return v.Ended() })
	require.NoError(t, err)
	assert.Equal(t, viewJSON(t, want), viewJSON(t, got), "the other replica's view is the recorder's")

	// A run on the same thread from the other replica while one is active
	// is refused.
	w, err := r1.Begin(ctx, journal.Lease{Thread: "thread-demo", RunID: "r2"})
	require.NoError(t, err)
	c2 := client.New(agent.URL(), client.WithJournal(r2, nil))
	defer c2.Close()
	_, err = c2.Run(ctx, client.NextInput(got, nil))
	require.ErrorIs(t, err, journal.ErrBusy, "two writers on one thread")
	require.NoError(t, w.End(ctx))
}

// TestReplicaKilledMidRun kills the recording replica mid-run (its
// connection closes: no more records, no lease refresh): the other replica
// keeps everything received before, and marks the run cut within the lease
// TTL.
func TestReplicaKilledMidRun(t *testing.T) {
	srv := journalnats.Start(t, t.TempDir())
	const ttl = time.Second
	o := unique(ttl)
	r1 := dial(t, srv.URL(), o)
	r2 := dial(t, srv.URL(), o)
	defer r2.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 5, Rounds: 60}), &agenttest.Options{Delay: time.Millisecond})
	defer agent.Close()
	c := client.New(agent.URL(), client.WithJournal(r1, func(error) {}))
	defer c.Close()
	runCtx, stopRun := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = c.Run(runCtx, &event.RunAgentInput{ThreadID: "t1", RunID: "r1"}) })
	defer wg.Wait()
	defer stopRun()

	a, err := client.Attach(ctx, r2, "t1", &client.AttachOptions{Poll: 50 * time.Millisecond})
	require.NoError(t, err)
	defer a.Store().Close()
	defer a.Stop()
	_, err = a.Store().Wait(ctx, func(v *view.View) bool { return v.EventCount() >= 100 })
	require.NoError(t, err)

	st, err := r2.Stat(ctx, "t1")
	require.NoError(t, err)
	require.NotNil(t, st.Active, "the run is still active when its replica dies")
	require.NoError(t, r1.Close()) // the replica dies
	killed := time.Now()
	v, err := a.Store().Wait(ctx, func(v *view.View) bool { return lastStatus(v) != view.RunRunning })
	require.NoError(t, err)
	assert.Less(t, time.Since(killed), ttl+time.Second, "cut within the TTL and a poll")
	assert.Equal(t, view.RunFailed, lastStatus(v), "the run reads as cut: not running, not finished")
	run, _ := v.LastRun()
	require.NotNil(t, run.Error, "a cut run has an error")
	assert.Contains(t, run.Error.Message, "run cut")

	st, err = r2.Stat(ctx, "t1")
	require.NoError(t, err)
	var events int
	for r, err := range r2.Read(ctx, "t1", 1) {
		require.NoError(t, err)
		if r.Kind == journal.KindEvent {
			events++
		}
	}
	assert.Equal(t, events, v.EventCount(), "the view holds every event journaled before the kill (%d records)", st.Last)
	for inv := range v.Invocations() {
		assert.NotEqual(t, view.Running, inv.Status(), "no invocation left running: %s", inv.ID())
	}
}

// TestServerRestartMidRun restarts the NATS server while a run streams:
// appends fail with ErrUnavailable while it is away, the recorder's view is
// unharmed, and once it is back the records are stored, so that a follower
// ends with exactly the recorder's view.
func TestServerRestartMidRun(t *testing.T) {
	srv := journalnats.Start(t, t.TempDir())
	o := unique(30 * time.Second)
	r1 := dial(t, srv.URL(), o)
	defer r1.Close()
	r2 := dial(t, srv.URL(), o)
	defer r2.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	a, err := client.Attach(ctx, r2, "t1", &client.AttachOptions{Poll: 50 * time.Millisecond})
	require.NoError(t, err)
	defer a.Store().Close()
	defer a.Stop()

	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 7}), &agenttest.Options{Delay: 2 * time.Millisecond})
	defer agent.Close()
	var failed appendFailures
	c := client.New(agent.URL(), client.WithJournal(r1, failed.add))
	defer c.Close()
	unavailable := func() bool { return len(failed.list()) > 0 }
	var want *view.View
	var runErr error
	var wg sync.WaitGroup
	wg.Go(func() { want, runErr = c.Run(ctx, &event.RunAgentInput{ThreadID: "t1", RunID: "r1"}) })

	_, err = a.Store().Wait(ctx, func(v *view.View) bool { return v.EventCount() >= 50 })
	require.NoError(t, err)
	srv.Stop()
	require.Eventually(t, unavailable, 30*time.Second, 10*time.Millisecond, "an append fails while the server is away")
	require.NoError(t, srv.Restart())
	wg.Wait()
	require.NoError(t, runErr, "the recorder's run is unharmed")
	assert.NotEqual(t, view.RunRunning, lastStatus(want))
	st, err := r2.Stat(ctx, "t1")
	t.Logf("stat %+v err %v; recorder events %d; follower events %d; failures %v", st, err, want.EventCount(), a.Store().View().EventCount(), failed.list())

	for _, err := range failed.list() {
		assert.True(t, errors.Is(err, journal.ErrUnavailable), "a typed error: %v", err)
	}
	got, err := a.Store().Wait(ctx, func(v *view.View) bool { return v.Ended() })
	require.NoError(t, err)
	assert.Equal(t, viewJSON(t, want), viewJSON(t, got), "no event lost or duplicated")
}

// appendFailures collects the errors client.WithJournal reports, from the
// client's goroutines.
type appendFailures struct {
	mu   sync.Mutex
	errs []error
}

func (f *appendFailures) add(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, err)
}

func (f *appendFailures) list() []error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.errs)
}
