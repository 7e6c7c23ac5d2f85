package client_test

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/view"
)

const killChildEnv = "AGVIEW_CLIENT_KILL_CHILD"

// TestAttachAfterKill runs a recording client in a child process (the test
// binary re-executed), attaches to its thread from this one, and kills the
// child with SIGKILL mid-run: the attachment, and one made afterwards, show
// the thread up to the last complete event, with the run cut.
func TestAttachAfterKill(t *testing.T) {
	if dir := os.Getenv(killChildEnv); dir != "" {
		j, err := journal.OpenDir(dir, nil)
		if err != nil {
			os.Exit(3)
		}
		srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 9, Rounds: 50}), &agenttest.Options{Delay: time.Millisecond})
		c := client.New(srv.URL(), client.WithJournal(j, nil))
		_, _ = c.Run(context.Background(), &event.RunAgentInput{ThreadID: "t1", RunID: "r1"})
		os.Exit(4) // not reached: killed first
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestAttachAfterKill$")
	cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	j, err := journal.OpenDir(dir, &journal.DirOptions{Poll: 5 * time.Millisecond})
	require.NoError(t, err)
	defer j.Close()
	require.Eventually(t, func() bool {
		st, err := j.Stat(ctx, "t1")
		return err == nil && st.Active != nil && st.Last > 200
	}, 30*time.Second, 10*time.Millisecond, "the child records its run")
	live, err := client.Attach(ctx, j, "t1", &client.AttachOptions{Poll: 20 * time.Millisecond})
	require.NoError(t, err)
	defer live.Store().Close()
	defer live.Stop()
	assert.Equal(t, view.RunRunning, lastRunStatus(live.Store().View()), "running while the child lives")

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	v, err := live.Store().Wait(ctx, func(v *view.View) bool { return lastRunStatus(v) != view.RunRunning })
	require.NoError(t, err)
	assert.Equal(t, view.RunFailed, lastRunStatus(v), "the killed run reads as cut")

	var events int
	for r, err := range j.Read(ctx, "t1", 1) {
		require.NoError(t, err)
		if r.Kind == journal.KindEvent {
			events++
		}
	}
	assert.Equal(t, events, v.EventCount(), "every complete event is in the view")
	after := attachIdle(t, j, "t1")
	assert.Equal(t, viewJSON(t, v), viewJSON(t, after), "a viewer attaching after the kill sees the same")
}

func lastRunStatus(v *view.View) view.RunStatus {
	r, _ := v.LastRun()
	return r.Status
}
