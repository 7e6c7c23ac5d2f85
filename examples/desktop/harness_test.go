package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gioui.org/f32"
	"gioui.org/gpu/headless"
	"gioui.org/io/input"
	"gioui.org/io/key"
	"gioui.org/io/pointer"
	"gioui.org/io/semantic"
	"gioui.org/layout"
	"gioui.org/op"
	"gioui.org/unit"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/store"
	"github.com/agview/agview/view"
)

var update = flag.Bool("update", false, "rewrite the golden images under testdata (and the README's screenshot)")

// requireDesktop makes a missing renderer a failure instead of a skip (CI).
const requireDesktop = "AGVIEW_REQUIRE_DESKTOP"

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// harness drives a UI as a window would, on the test's goroutine (the UI
// goroutine of the test): frames laid out into ops, input through a Gio
// router.
type harness struct {
	t      *testing.T
	u      *UI
	size   image.Point
	ops    op.Ops
	router input.Router
	frames int
}

func newHarness(t *testing.T, u *UI, size image.Point) *harness {
	return &harness{t: t, u: u, size: size}
}

// epoch is every test frame's time: nothing drawn depends on the clock.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// frame lays out one frame and hands its input handlers to the router.
func (h *harness) frame() {
	h.ops.Reset()
	gtx := layout.Context{
		Ops:         &h.ops,
		Metric:      unit.Metric{PxPerDp: 1, PxPerSp: 1},
		Constraints: layout.Exact(h.size),
		Now:         epoch,
		Source:      h.router.Source(),
	}
	h.u.Layout(gtx)
	h.router.Frame(&h.ops)
	h.frames++
}

// find returns where to click the element labelled label: the bounds of
// the nearest clickable node holding a label that is label (or starts with
// it and a space), or of the first editor when label is "".
func (h *harness) find(label string) (image.Rectangle, bool) {
	var walk func(n input.SemanticNode, click image.Rectangle) (image.Rectangle, bool)
	walk = func(n input.SemanticNode, click image.Rectangle) (image.Rectangle, bool) {
		if n.Desc.Gestures&input.ClickGesture != 0 {
			click = n.Desc.Bounds
		}
		switch {
		case label == "" && n.Desc.Class == semantic.Editor:
			return n.Desc.Bounds, true
		case label != "" && (n.Desc.Label == label || strings.HasPrefix(n.Desc.Label, label+" ")):
			if click.Empty() {
				click = n.Desc.Bounds
			}
			return click, true
		}
		for _, c := range n.Children {
			if r, ok := walk(c, click); ok {
				return r, true
			}
		}
		return image.Rectangle{}, false
	}
	for _, n := range h.router.AppendSemantics(nil) {
		if r, ok := walk(n, image.Rectangle{}); ok {
			return r, true
		}
	}
	return image.Rectangle{}, false
}

// click presses and releases the primary button at the middle of what
// find(label) finds, then lays out the frame that handles the click.
func (h *harness) click(label string) {
	h.t.Helper()
	r, ok := h.find(label)
	require.True(h.t, ok, "an element labelled %q on screen", label)
	at := f32.Pt(float32(r.Min.X+r.Max.X)/2, float32(r.Min.Y+r.Max.Y)/2)
	h.router.Queue(
		pointer.Event{Kind: pointer.Press, Source: pointer.Mouse, Buttons: pointer.ButtonPrimary, Position: at},
		pointer.Event{Kind: pointer.Release, Source: pointer.Mouse, Position: at},
	)
	h.frame()
}

// typeLine clicks the message box, types s and presses Return.
func (h *harness) typeLine(s string) {
	h.t.Helper()
	h.click("") // the only editor: the message box
	h.router.Queue(key.EditEvent{Text: s})
	h.frame()
	h.router.Queue(key.Event{Name: key.NameReturn, State: key.Press})
	h.frame()
}

// screenshot renders the last frame's ops with Gio's offscreen GPU
// renderer. Without one (no EGL) the test is skipped, or fails when
// AGVIEW_REQUIRE_DESKTOP=1.
func (h *harness) screenshot() *image.RGBA {
	h.t.Helper()
	win, err := headless.NewWindow(h.size.X, h.size.Y)
	if err != nil {
		if os.Getenv(requireDesktop) == "1" {
			h.t.Fatalf("%s=1 but Gio's headless renderer failed: %v (apt-get install libegl1 libgl1-mesa-dri)", requireDesktop, err)
		}
		h.t.Skipf("no offscreen renderer (%v): install Mesa's EGL (libegl1, libgl1-mesa-dri) to run the rendering tests (%s=1 makes this a failure)", err, requireDesktop)
	}
	defer win.Release()
	require.NoError(h.t, win.Frame(&h.ops))
	img := image.NewRGBA(image.Rectangle{Max: h.size})
	require.NoError(h.t, win.Screenshot(img))
	return img
}

// scripted is a UI fed by a store that holds the demo swarm (seed 1) cut
// after n of its events (all of them when n < 0): deterministic, whatever
// the machine's speed.
func scripted(t *testing.T, n int) (*UI, *store.Store) {
	t.Helper()
	cfg := &agenttest.SwarmConfig{Seed: 1, ThreadID: "desktop-thread", RunID: "run-1"}
	s := store.New(nil)
	t.Cleanup(s.Close)
	require.NoError(t, s.Input(agenttest.SwarmInput(cfg)))
	events := agenttest.SwarmEvents(cfg)
	if n >= 0 {
		events = events[:n]
	}
	for _, e := range events {
		require.NoError(t, s.Dispatch(e))
	}
	u := newUI(newTheme(), newSender(t.Context(), nil, func() {}))
	t.Cleanup(u.watch(s, func() {}))
	require.NoError(t, s.Settle(testCtx(t)))
	return u, s
}

// compare checks img against the golden PNG at path: at most maxDiff of
// the pixels may differ, each channel by more than tolerance, so that
// another Mesa's anti-aliasing passes while a moved or missing element
// fails. -update rewrites the file.
func compare(t *testing.T, img *image.RGBA, path string) {
	t.Helper()
	const tolerance, maxDiff = 64, 0.0005
	if *update {
		writePNG(t, path, img)
		return
	}
	f, err := os.Open(path)
	require.NoError(t, err, "the golden image (go test -update writes it)")
	defer f.Close()
	want, err := png.Decode(f)
	require.NoError(t, err)
	require.Equal(t, want.Bounds(), img.Bounds(), "size of %s", path)
	diff := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			wr, wg, wb, _ := want.At(x, y).RGBA()
			g := img.RGBAAt(x, y)
			if far(wr>>8, g.R, tolerance) || far(wg>>8, g.G, tolerance) || far(wb>>8, g.B, tolerance) {
				diff++
			}
		}
	}
	if frac := float64(diff) / float64(b.Dx()*b.Dy()); frac > maxDiff {
		got := filepath.Join(t.TempDir(), filepath.Base(path))
		writePNG(t, got, img)
		keep := filepath.Join(os.TempDir(), "agview-desktop-"+filepath.Base(path))
		writePNG(t, keep, img)
		t.Errorf("%s: %.2f%% of the pixels differ (at most %.2f%% may): the frame drawn is %s", path, 100*frac, 100*maxDiff, keep)
	}
}

func far(a uint32, b uint8, tol int) bool {
	d := int(a) - int(b)
	return d > tol || d < -tol
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(f, img))
	require.NoError(t, f.Close())
}

// paneText is the text of the pane of invocation id as drawn (its blocks).
func paneText(u *UI, id string) string {
	p := u.panes[id]
	if p == nil {
		return ""
	}
	var b strings.Builder
	for _, bl := range p.blocks {
		fmt.Fprintf(&b, "%s: %s\n", bl.label, bl.text)
	}
	return b.String()
}

// lastRun is the status of v's last run, "" before the first.
func lastRun(v *view.View) view.RunStatus {
	r, _ := v.LastRun()
	return r.Status
}
