package main

import (
	"image"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// swarmViews returns every view of the demo swarm's first run (seed 1),
// one per event, as a fast stream hands them to the UI.
func swarmViews(b *testing.B) []*view.View {
	cfg := &agenttest.SwarmConfig{Seed: 1, ThreadID: "desktop-thread", RunID: "run-1"}
	v, err := reducer.Input(view.New(), agenttest.SwarmInput(cfg))
	require.NoError(b, err)
	events := agenttest.SwarmEvents(cfg)
	views := make([]*view.View, 0, len(events))
	for _, e := range events {
		v, err = reducer.Fold(v, e)
		require.NoError(b, err)
		views = append(views, v)
	}
	return views
}

// BenchmarkFrame measures a frame (ops only, no GPU) at 1280×800 after one
// more event of the stream, and how many panes it rebuilt (those
// ChangedSince names). The feed hands over the latest view however fast
// the stream is, so this bounds the frames a second the UI asks for, not
// the events a second it keeps up with.
func BenchmarkFrame(b *testing.B) {
	views := swarmViews(b)
	u := newUI(newTheme(), nil)
	h := &harness{u: u, size: image.Pt(1280, 800)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%len(views) == 0 {
			u.shown = nil // a new pass of the stream
		}
		u.feed.latest.Store(views[i%len(views)])
		h.frame()
		i++
	}
	b.ReportMetric(float64(u.rebuilt)/float64(i), "panes/frame")
}
