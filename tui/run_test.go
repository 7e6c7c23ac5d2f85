package tui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/store"
)

// syncBuffer is a bytes.Buffer safe for the program's writer goroutine and
// the test.
type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	bell chan struct{} // rung by every write
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{bell: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.bell <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRun runs the program on in-memory input and output: q ends it with
// nil, a cancelled context with the context's error; either way every
// goroutine Run started has ended, and the run's summary is left after the
// screen is restored.
func TestRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cases := []struct {
		name string
		end  func(cancel context.CancelFunc, keys io.Writer)
		want error
	}{
		{"q quits", func(_ context.CancelFunc, keys io.Writer) { _, _ = io.WriteString(keys, "q") }, nil},
		{"ctrl+c quits", func(_ context.CancelFunc, keys io.Writer) { _, _ = io.WriteString(keys, "\x03") }, nil},
		{"context cancelled", func(cancel context.CancelFunc, _ io.Writer) { cancel() }, context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := store.New(&store.Options{Initial: swarm(t, "swarm-1", -1)})
			defer s.Close()
			in, keys := io.Pipe()
			defer in.Close()
			out := newSyncBuffer()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- Run(ctx, s, &Options{Title: "run-test", Input: in, Output: out}) }()

			// Wait until the view is drawn, then end the program.
			want := fmt.Sprintf("%d events", s.View().EventCount())
			waitCtx := deadline(t)
			for !strings.Contains(ansi.Strip(out.String()), want) {
				select {
				case err := <-done:
					require.FailNow(t, "Run ended early", "%v", err)
				case <-waitCtx.Done():
					require.FailNow(t, "the view never appeared", "output: %q", out.String())
				case <-out.bell:
				}
			}
			tc.end(cancel, keys)
			select {
			case err := <-done:
				assert.ErrorIs(t, err, tc.want)
				if tc.want == nil {
					assert.NoError(t, err)
				}
			case <-waitCtx.Done():
				require.FailNow(t, "Run did not return")
			}
			keys.Close()
			raw := out.String()
			summary := Summary(s.View())
			assert.True(t, strings.HasSuffix(raw, summary+"\n"), "the summary ends the output: %q", raw[max(0, len(raw)-300):])
			assert.Less(t, strings.LastIndex(raw, "\x1b[?1049l"), strings.LastIndex(raw, summary),
				"the summary comes after the alternate screen is left, so it stays in the terminal")
			screen := ansi.Strip(raw)
			assert.Contains(t, screen, "run-test", "the title is drawn")
			assert.Contains(t, screen, "researcher", "the panes are drawn")
		})
	}
}

// TestRunConversation answers the demo's interrupt through the program:
// the key reaches the model, the Conversation runs on the model's
// goroutine and feeds the store, the frame loop shows the run it started,
// and when the user quits the summary names both runs.
func TestRunConversation(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	interrupted, _, _ := conversationViews(t)
	s := store.New(&store.Options{Initial: interrupted})
	defer s.Close()
	var got []Turn
	conv := ConversationFunc(func(ctx context.Context, turn Turn) error {
		got = append(got, turn)
		for _, e := range agenttest.SwarmResumeEvents(&agenttest.SwarmConfig{Seed: 1}, true) {
			if err := s.Dispatch(e); err != nil {
				return err
			}
		}
		return ctx.Err()
	})
	in, keys := io.Pipe()
	defer in.Close()
	out := newSyncBuffer()
	done := make(chan error, 1)
	go func() {
		done <- Run(t.Context(), s, &Options{Title: "talk", Input: in, Output: out, Conversation: conv})
	}()

	waitCtx := deadline(t)
	waitFor := func(what string) {
		t.Helper()
		for !strings.Contains(ansi.Strip(out.String()), what) {
			select {
			case err := <-done:
				require.FailNow(t, "Run ended early", "%v", err)
			case <-waitCtx.Done():
				require.FailNow(t, "never shown: "+what, "output: %q", out.String())
			case <-out.bell:
			}
		}
	}
	waitFor("y approve")
	_, _ = io.WriteString(keys, "y")
	waitFor("run 2 of 2")
	_, _ = io.WriteString(keys, "q")
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-waitCtx.Done():
		require.FailNow(t, "Run did not return")
	}
	keys.Close()
	require.Len(t, got, 1)
	assert.Equal(t, event.ResumeResolved, got[0].Answers[0].Status)
	assert.True(t, strings.HasSuffix(out.String(), Summary(s.View())+"\n"))
	assert.Contains(t, Summary(s.View()), "finished (2 runs)")
}
