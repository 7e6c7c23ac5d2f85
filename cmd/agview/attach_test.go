package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
)

// TestWatchJournalThenAttach records runs with "watch --journal" and shows
// them with "attach": the same final view, the same exit status, and a file
// that "replay" reads.
func TestWatchJournalThenAttach(t *testing.T) {
	swarm := agenttest.Swarm(&agenttest.SwarmConfig{Seed: 2})
	for _, tc := range []struct {
		name   string
		script agenttest.Script
		opts   *agenttest.Options
		code   int
	}{
		{"swarm", swarm, nil, exitOK},
		{"cut mid-run", swarm, &agenttest.Options{Fault: agenttest.CutAfter(40)}, exitRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := agenttest.NewServer(tc.script, tc.opts)
			defer srv.Close()
			dir := t.TempDir()
			dsn := "file:" + dir
			in := filepath.Join(t.TempDir(), "in.json")
			require.NoError(t, os.WriteFile(in, []byte(`{"threadId":"thread-1","runId":"run-1","messages":[]}`), 0o644))

			code, watched, stderr := runCLI(t, nil, "watch", "--json", "--journal", dsn, "--input", in, srv.URL())
			require.Equal(t, tc.code, code, "watch: %s", stderr)
			assert.Contains(t, stderr, "agview attach "+dsn+" thread-1", "watch says how to attach")

			code, attached, stderr := runCLI(t, nil, "attach", "--json", dsn, "thread-1")
			assert.Equal(t, tc.code, code, "attach: %s", stderr)
			assert.JSONEq(t, watched, attached, "attach --json prints what watch --json printed")

			code, lines, stderr := runCLI(t, nil, "attach", dsn, "thread-1")
			assert.Equal(t, tc.code, code, "attach (lines): %s", stderr)
			assert.NotEmpty(t, lines, "progress lines off a terminal")

			code, list, _ := runCLI(t, nil, "attach", dsn)
			assert.Equal(t, exitOK, code)
			assert.Regexp(t, `(?m)^thread-1\s+\d+\s+-$`, list, "the thread is listed, with no active run")

			d, err := journal.OpenDir(dir, nil)
			require.NoError(t, err)
			defer d.Close()
			code, replayed, stderr := runCLI(t, nil, "replay", "--json", d.File("thread-1"))
			assert.Equal(t, exitOK, code, "replay of the journal file: %s", stderr)
			assert.JSONEq(t, watched, replayed, "replay of the journal file prints the recorder's view")
		})
	}
}

// TestAttachCutRun shows a thread whose writer died mid-run: the run reads
// as cut, and attach exits 1.
func TestAttachCutRun(t *testing.T) {
	dir := t.TempDir()
	d, err := journal.OpenDir(dir, nil)
	require.NoError(t, err)
	defer d.Close()
	w, err := d.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r1"})
	require.NoError(t, err)
	recs := []journal.Record{{Kind: journal.KindInput, Data: json.RawMessage(`{"threadId":"t1","runId":"r1"}`)}}
	for _, e := range agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 1})[:30] {
		b, err := event.Encode(e)
		require.NoError(t, err)
		recs = append(recs, journal.Record{Kind: journal.KindEvent, Data: b})
	}
	_, err = w.Append(t.Context(), recs...)
	require.NoError(t, err)
	require.NoError(t, w.End(t.Context())) // gone without an end record

	code, out, stderr := runCLI(t, nil, "attach", "--json", "file:"+dir, "t1")
	assert.Equal(t, exitRejected, code)
	assert.Contains(t, stderr, "failed")
	var form struct {
		Runs []struct {
			Status string `json:"status"`
			Error  struct {
				Message string `json:"message"`
			} `json:"error"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &form))
	require.Len(t, form.Runs, 1)
	assert.Equal(t, "failed", form.Runs[0].Status)
	assert.True(t, strings.Contains(form.Runs[0].Error.Message, "run cut"), "error %q", form.Runs[0].Error.Message)
}

func TestAttachBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"attach"},
		{"attach", "postgres://x", "t"},
		{"attach", "file:/dev/null/x", "t"},
		{"attach", "a", "b", "c"},
		{"watch", "--journal", "bogus:", "http://127.0.0.1:1/"},
	} {
		code, _, stderr := runCLI(t, nil, args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, stderr)
		assert.NotEmpty(t, stderr, "%v", args)
	}
}

func TestAttachStop(t *testing.T) {
	dir := t.TempDir()
	d, err := journal.OpenDir(dir, &journal.DirOptions{Poll: 5 * time.Millisecond})
	require.NoError(t, err)
	defer d.Close()
	code, _, stderr := runCLI(t, nil, "attach", "--stop", "file:"+dir, "t1")
	assert.Equal(t, exitRejected, code, "no run to stop")
	assert.Contains(t, stderr, "no run is active")

	w, err := d.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r1", Owner: "replica-1"})
	require.NoError(t, err)
	defer w.End(t.Context())
	code, out, stderr := runCLI(t, nil, "attach", "--stop", "file:"+dir, "t1")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "asked run r1 of thread t1 (by replica-1) to stop\n", out)
	select {
	case <-w.Stopped():
	case <-time.After(10 * time.Second):
		t.Fatal("the writer was not asked to stop")
	}
}
