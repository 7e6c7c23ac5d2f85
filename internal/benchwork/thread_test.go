package benchwork

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestThreadRuns folds the thread-runs workload of several sizes through a
// Builder, as the benchmarks do, and checks that every run's input is what
// client.NextInput would send from the view folded so far plus the run's
// user message (so the history is the view's MessageList exactly), that
// nothing is refused or warned about, and that the view ends with
// ThreadRunsMessages messages, each run's user message among them.
func TestThreadRuns(t *testing.T) {
	t.Parallel()
	cases := []struct{ runs, perRun int }{
		{runs: 1, perRun: 1},
		{runs: 2, perRun: 9},   // no tool call
		{runs: 3, perRun: 10},  // one tool call per run, the run's last message
		{runs: 4, perRun: 25},  // two per run, not at the run's end
		{runs: 6, perRun: 100}, // a history of several hundred messages
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%dx%d", c.runs, c.perRun), func(t *testing.T) {
			t.Parallel()
			var buf, again bytes.Buffer
			require.NoError(t, WriteThreadRuns(&buf, c.runs, c.perRun))
			require.NoError(t, WriteThreadRuns(&again, c.runs, c.perRun))
			require.Equal(t, buf.Bytes(), again.Bytes(), "the workload is deterministic")

			bl := reducer.NewBuilder(view.New())
			runs := 0
			lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
			for i, l := range lines {
				e, err := event.Decode(l)
				require.NoError(t, err, "line %d", i+1)
				if rs, ok := e.(*event.RunStarted); ok {
					runs++
					checkRunInput(t, bl.View(), rs, runs, c.perRun)
				}
				require.NoError(t, bl.FoldJSON(l), "line %d", i+1)
			}
			v := bl.View()
			assert.Equal(t, c.runs, runs)
			assert.Empty(t, v.Diagnostics())
			assert.Equal(t, ThreadRunsMessages(c.runs, c.perRun), v.MessageCount())
			for k := 1; k <= c.runs; k++ {
				m, ok := v.Message(fmt.Sprintf("u-%d", k))
				if assert.True(t, ok, "user message of run %d", k) {
					assert.Equal(t, event.RoleUser, m.Role)
				}
			}
		})
	}
}

// checkRunInput checks the input of run k against the view folded before
// its RUN_STARTED, naming the first message that differs.
func checkRunInput(t *testing.T, before *view.View, rs *event.RunStarted, k, perRun int) {
	t.Helper()
	require.NotNil(t, rs.Input, "run %d has no input", k)
	got := *rs.Input
	require.Len(t, got.Messages, ThreadRunsMessages(k-1, perRun)+1, "run %d's history and user message", k)
	user := got.Messages[len(got.Messages)-1]
	assert.Equal(t, fmt.Sprintf("u-%d", k), user.ID)
	assert.Equal(t, event.RoleUser, user.Role)
	want := *client.NextInput(before, &client.InputOptions{
		ThreadID: "thread-1", RunID: fmt.Sprintf("run-%d", k), Messages: []event.Message{user},
	})
	for i, m := range before.MessageList() {
		require.Equal(t, m, got.Messages[i], "run %d's history, message %d", k, i)
	}
	// The decoder gives nil for an empty list, which NextInput never sends.
	assert.Empty(t, got.Tools)
	assert.Empty(t, got.Context)
	got.Tools, got.Context = want.Tools, want.Context
	got.Messages, want.Messages = nil, nil
	assert.Equal(t, want, got, "run %d's input besides its messages", k)
}

// TestThreadRunsCached checks that ThreadRuns writes WriteThreadRuns's bytes
// and reuses the file.
func TestThreadRunsCached(t *testing.T) {
	t.Parallel()
	path := ThreadRuns(t, 2, 3)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	var want bytes.Buffer
	require.NoError(t, WriteThreadRuns(&want, 2, 3))
	assert.True(t, bytes.Equal(want.Bytes(), got), "%s differs from what WriteThreadRuns writes: a file cached before the generator changed? Delete it", path)
	assert.Equal(t, path, ThreadRuns(t, 2, 3))
}

// TestGeneratedStale checks that a cached workload whose start is not what
// its generator writes now is written again, and a current one is reused.
func TestGeneratedStale(t *testing.T) {
	name := "stale-test-" + strconv.Itoa(os.Getpid()) + ".jsonl"
	path := filepath.Join(ModuleRoot(), "testdata", "bench", name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755), "a fresh clone has no testdata/bench yet")
	t.Cleanup(func() { os.Remove(path) })
	for _, size := range []int{100, 3 * freshPrefix} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			gen := func(b byte) func(io.Writer) error {
				return func(w io.Writer) error {
					bw := bufio.NewWriter(w)
					for range size {
						bw.WriteByte(b)
					}
					return bw.Flush()
				}
			}
			calls := 0
			counted := func(b byte) func(io.Writer) error {
				return func(w io.Writer) error {
					if _, full := w.(*os.File); full {
						calls++
					}
					return gen(b)(w)
				}
			}
			require.NoError(t, os.WriteFile(path, bytes.Repeat([]byte{'a'}, size), 0o644))
			assert.Equal(t, path, generated(t, name, counted('a')))
			assert.Equal(t, 0, calls, "a current file is reused")

			assert.Equal(t, path, generated(t, name, counted('b')))
			assert.Equal(t, 1, calls, "a stale file is written again")
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, bytes.Repeat([]byte{'b'}, size), got)

			if size < freshPrefix {
				// A workload shorter than the prefix is compared whole.
				require.NoError(t, os.WriteFile(path, bytes.Repeat([]byte{'b'}, size-1), 0o644))
				generated(t, name, counted('b'))
				assert.Equal(t, 2, calls, "a truncated file is written again")
			}
		})
	}
}

// TestSnapshotRuns folds the snapshot-runs workload through a Builder and
// checks that every MESSAGES_SNAPSHOT restates the view's MessageList
// exactly, plus the run's user message, that nothing is refused or warned
// about, and that the view ends with ThreadRunsMessages messages.
func TestSnapshotRuns(t *testing.T) {
	t.Parallel()
	const runs, perRun = 4, 20
	var buf bytes.Buffer
	require.NoError(t, WriteSnapshotRuns(&buf, runs, perRun))
	b := reducer.NewBuilder(view.New())
	snapshots := 0
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		e, err := event.Decode(sc.Bytes())
		require.NoError(t, err)
		if s, ok := e.(*event.MessagesSnapshot); ok {
			snapshots++
			held := b.View().MessageList()
			require.Len(t, s.Messages, len(held)+1)
			assert.Equal(t, held, s.Messages[:len(held)], "snapshot %d restates the history", snapshots)
			assert.Equal(t, "u-"+strconv.Itoa(snapshots), s.Messages[len(held)].ID)
		}
		require.NoError(t, b.Fold(e))
	}
	require.NoError(t, sc.Err())
	v := b.End(nil)
	assert.Equal(t, runs, snapshots)
	assert.Empty(t, v.Diagnostics())
	assert.Equal(t, ThreadRunsMessages(runs, perRun), v.MessageCount())
}
