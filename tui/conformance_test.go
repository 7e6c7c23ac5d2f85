package tui

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestConformanceVectors renders the view of every conformance vector (the
// shared protocol corner cases: legacy events, rejected streams, odd
// payloads), after every event, then in every mode at a narrow and a wide
// size: each screen must fill the terminal exactly.
func TestConformanceVectors(t *testing.T) {
	t.Parallel()
	vecs, err := conformance.Load()
	require.NoError(t, err)
	require.NotEmpty(t, vecs)
	for _, vec := range vecs {
		t.Run(vec.Name, func(t *testing.T) {
			t.Parallel()
			v := view.New()
			live := model(t, 60, 16, v)
			for _, raw := range vec.Events {
				v, _ = reducer.FoldJSON(v, raw)
				live.Update(Frame{View: v})
				requireGeometry(t, live, 60, 16)
			}
			v = reducer.End(v, nil)
			for _, ks := range [][]string{nil, {"a"}, {"end", "enter"}, {"s"}, {"s", "end", "enter"}, {"d"}} {
				for _, size := range [][2]int{{24, 10}, {100, 30}} {
					m := model(t, size[0], size[1], v)
					keys(m, ks...)
					requireGeometry(t, m, size[0], size[1])
				}
			}
		})
	}
}
