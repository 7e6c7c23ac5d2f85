package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/store"
)

// run runs cmd on a goroutine and returns its message, failing the test if
// it does not come before the test's deadline.
func run(t *testing.T, cmd tea.Cmd) <-chan tea.Msg {
	t.Helper()
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	return ch
}

func receive(t *testing.T, ctx context.Context, ch <-chan tea.Msg) tea.Msg {
	t.Helper()
	select {
	case msg := <-ch:
		return msg
	case <-ctx.Done():
		require.FailNow(t, "no message before the test's deadline")
		return nil
	}
}

// TestFrameLoop checks the model's own frames: the first one at once, the
// next when the store publishes a view, no sooner than a frame interval.
func TestFrameLoop(t *testing.T) {
	t.Parallel()
	s := store.New(nil)
	defer s.Close()
	m := New(s, &Options{FPS: 50})
	defer m.stop()
	ctx := deadline(t)

	msg := m.Init()()
	f, ok := msg.(frameMsg)
	require.True(t, ok, "Init's command sends a frame, got %T", msg)
	assert.Same(t, s.View(), f.View, "the first frame is the store's view")
	_, cmd := m.Update(msg)
	require.NotNil(t, cmd, "a frame from the loop schedules the next")

	start := time.Now()
	ch := run(t, cmd)
	require.NoError(t, s.Dispatch(&event.RunStarted{ThreadID: "th", RunID: "r1"}))
	msg = receive(t, ctx, ch)
	f, ok = msg.(frameMsg)
	require.True(t, ok, "the next frame comes when the store changes, got %T", msg)
	assert.Same(t, s.View(), f.View, "the next frame carries the latest view")
	assert.GreaterOrEqual(t, time.Since(start), m.interval, "no sooner than one frame interval")
	_, cmd = m.Update(msg)
	assert.Contains(t, screen(m), "run r1", "the frame is on screen")

	// The run is running: the spinner animates without any change.
	msg = receive(t, ctx, run(t, cmd))
	f, ok = msg.(frameMsg)
	require.True(t, ok, "a running run animates, got %T", msg)
	assert.Same(t, s.View(), f.View)
	_, cmd = m.Update(msg)

	// stop ends a pending wait at once, with no message.
	ch = run(t, cmd)
	m.stop()
	assert.Nil(t, receive(t, ctx, ch), "after stop the loop sends nothing")
}

// TestFrameRateCap streams the eight-researcher swarm into a store as fast
// as a ticker allows and runs the model's frame loop: it must take far
// fewer frames than events, at most FPS a second, and end on the final view.
func TestFrameRateCap(t *testing.T) {
	t.Parallel()
	evs := events(t, "swarm-7")
	s := store.New(nil)
	defer s.Close()
	const fps = 20
	m := New(s, &Options{FPS: fps})
	defer m.stop()
	ctx := deadline(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 60})

	go func() {
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for _, e := range evs {
			<-tick.C
			_ = s.Dispatch(e)
		}
	}()
	start := time.Now()
	frames := 0
	cmd := m.Init()
	for m.v.EventCount() < len(evs) {
		msg := receive(t, ctx, run(t, cmd))
		require.IsType(t, frameMsg{}, msg)
		frames++
		_, cmd = m.Update(msg)
	}
	elapsed := time.Since(start)
	t.Logf("%d events, %d frames in %v", len(evs), frames, elapsed)
	assert.LessOrEqual(t, frames, int(elapsed/m.interval)+2, "at most %d frames a second", fps)
	// Not len(evs)/10: on a loaded machine the feeding goroutine's ticks come
	// late and the events spread over more frames; the cap above is what
	// holds whatever the load.
	assert.Less(t, frames, len(evs), "a frame per many events, never one per event")
	assert.Contains(t, screen(m), fmt.Sprintf("%d events", len(evs)), "the last frame shows the final view")
}
