package main

import (
	"fmt"
	"image"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
)

// screenshotPath is the README's screenshot, rewritten by -update.
const screenshotPath = "../../docs/desktop.png"

// TestRender draws the window offscreen at two sizes, mid-stream, at the
// interrupt, and after a click in the tree brought the suspended
// researcher's pane to the top, and compares each frame with its golden
// image. The last at 1280×800 is the README's screenshot.
func TestRender(t *testing.T) {
	all := len(agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 1}))
	sizes := []image.Point{{1280, 800}, {800, 600}}
	cases := []struct {
		name   string
		events int
		act    func(h *harness)
	}{
		{"streaming", all * 2 / 5, nil}, // researchers mid-sentence, tool calls open
		{"interrupt", -1, nil},          // the run ended on the approval interrupt
		{"selected", -1, func(h *harness) {
			it := h.u.shown.PendingInterrupts()[0]
			h.click(h.u.panes[*it.Subagent].title())
			require.Equal(h.t, *it.Subagent, h.u.order[h.u.paneList.Position.First].id, "the pane clicked in the tree is at the top")
			h.frame()
		}},
	}
	for _, c := range cases {
		for _, size := range sizes {
			name := fmt.Sprintf("%s-%dx%d", c.name, size.X, size.Y)
			t.Run(name, func(t *testing.T) {
				u, _ := scripted(t, c.events)
				h := newHarness(t, u, size)
				h.frame()
				if c.act != nil {
					c.act(h)
				}
				img := h.screenshot()
				compare(t, img, filepath.Join("testdata", name+".png"))
				if *update && c.name == "selected" && size.X == 1280 {
					writePNG(t, screenshotPath, img)
				}
			})
		}
	}
}

// TestStateTreeClicks closes and opens nodes of the state tree with clicks.
func TestStateTreeClicks(t *testing.T) {
	u, _ := scripted(t, -1)
	h := newHarness(t, u, image.Pt(1280, 800))
	h.frame()
	open := len(u.state.rows)
	require.Greater(t, open, 2, "the state's top-level keys are shown")
	require.Equal(t, "", u.state.rows[0].path, "the first row is the document")

	h.click("▼ state")
	assert.Len(t, u.state.rows, 1, "closed: only the document's row")
	h.frame()
	h.click("► state")
	assert.Len(t, u.state.rows, open, "open again")

	var nested string
	for _, r := range u.state.rows {
		if line, container := summary(r.value); container && r.depth == 1 {
			nested = "► " + r.key + " " + line
			break
		}
	}
	require.NotEmpty(t, nested, "the demo's state has an object or array at the top level")
	h.click(nested)
	assert.Greater(t, len(u.state.rows), open, "a nested node opens")
}
