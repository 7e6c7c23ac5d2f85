package main

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/view"
)

// TestManyViewers: 50 concurrent viewers of one run on loopback, each
// applying the per-invocation updates to its own map, all end with the final
// view of the store. Five of them read nothing until the run has ended:
// the run finishes regardless (the store never waits for a viewer), and they
// still catch up with the final view. TestMain checks for goroutine leaks.
func TestManyViewers(t *testing.T) {
	const viewers, stalled = 50, 5
	e := newEnv(t, nil, &agenttest.Options{Delay: time.Millisecond}, &Options{MaxViewersPerClient: viewers})
	ctx := testCtx(t)
	info := e.start(t, `{"message":"Can our city electrify its buses?"}`)

	ended := make(chan struct{}) // closed once the agent run is over
	results := make([]viewer, viewers)
	errs := make([]error, viewers)
	var wg sync.WaitGroup
	for i := range viewers {
		wg.Go(func() {
			res, err := e.openEvents(ctx, info.ID, "", nil)
			if err != nil {
				errs[i] = err
				return
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK {
				errs[i] = &RequestError{Status: res.StatusCode, Where: "events", Reason: res.Status}
				return
			}
			if i < stalled {
				<-ended
			}
			errs[i] = results[i].watch(res.Body, idle)
		})
	}
	final, err := e.svc.Wait(ctx, info.ID)
	require.NoError(t, err)
	close(ended)
	wg.Wait()

	run, ok := final.LastRun()
	require.True(t, ok)
	require.Equal(t, view.RunInterrupted, run.Status, "the demo swarm ends on an approval interrupt")
	want := finalPanes(t, final)
	wantState, err := marshal(StateOf(final))
	require.NoError(t, err)
	streamed := 0
	for i, v := range results {
		require.NoError(t, errs[i], "viewer %d", i)
		assert.Equal(t, 1, v.snapshots, "viewer %d: one snapshot, on connect", i)
		assert.False(t, v.header.Active, "viewer %d ends on the final header", i)
		require.Len(t, v.panes, len(want), "viewer %d: one pane per invocation and the root", i)
		for key, data := range want {
			assert.JSONEq(t, string(data), string(v.panes[key]), "viewer %d, pane %s", i, key)
		}
		assert.JSONEq(t, string(wantState), string(v.state), "viewer %d: state", i)
		assert.Len(t, v.header.Runs, 1, "viewer %d: runs", i)
		assert.Equal(t, run.Status, v.header.Runs[0].Status, "viewer %d: run status", i)
		if v.events > 1 {
			streamed++
		}
	}
	assert.Greater(t, streamed, viewers/2, "most viewers connected while the run was going and got updates, not just a snapshot")
	assert.Zero(t, final.ViolationCount(), "the demo swarm is valid")
}

// finalPanes returns the JSON of every pane of v, by key, checked against
// the view itself: one pane per invocation plus the root, each with the
// invocation's name, status and parent.
func finalPanes(t *testing.T, v *view.View) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{}
	add := func(inv *view.Invocation) {
		p := PaneOf(inv, v)
		data, err := marshal(p)
		require.NoError(t, err)
		out[p.Key] = data
	}
	add(v.Root())
	for inv := range v.Invocations() {
		add(inv)
	}
	var vj struct {
		Invocations []struct {
			ID     string  `json:"subagentRunId"`
			Name   string  `json:"name"`
			Status string  `json:"status"`
			Parent *string `json:"parentSubagentRunId"`
		} `json:"invocations"`
	}
	data, err := v.MarshalJSON()
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &vj))
	require.Len(t, out, len(vj.Invocations)+1)
	for _, inv := range vj.Invocations {
		var p Pane
		require.NoError(t, json.Unmarshal(out[subKey(inv.ID)], &p), "pane of %s", inv.ID)
		assert.Equal(t, inv.Name, p.Name)
		assert.Equal(t, inv.Status, string(p.Status))
		wantParent := RootKey
		if inv.Parent != nil {
			wantParent = subKey(*inv.Parent)
		}
		require.NotNil(t, p.Parent)
		assert.Equal(t, wantParent, *p.Parent, "parent of %s", inv.ID)
	}
	return out
}
