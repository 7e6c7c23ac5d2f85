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

// TestWatchBusyThread: watch --journal on a thread whose run another writer
// holds said "could not connect to URL"; the agent was never asked. Now it
// says the thread is busy and who holds it.
func TestWatchBusyThread(t *testing.T) {
	srv := agenttest.NewServer(agenttest.Events(
		&event.RunStarted{ThreadID: "t", RunID: "r"}, &event.RunFinished{ThreadID: "t", RunID: "r"}), nil)
	defer srv.Close()
	dir := t.TempDir()
	j, err := journal.OpenDir(dir, nil)
	require.NoError(t, err)
	defer j.Close()
	w, err := j.Begin(t.Context(), journal.Lease{Thread: "thread-1", RunID: "run-0", Owner: "elsewhere:42", Since: time.Now()})
	require.NoError(t, err)
	defer w.End(t.Context())

	in := filepath.Join(t.TempDir(), "in.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"threadId":"thread-1","messages":[]}`), 0o644))
	code, _, stderr := runCLI(t, nil, "watch", "--json", "--journal", "file:"+dir, "--input", in, srv.URL())
	assert.Equal(t, exitRejected, code, stderr)
	assert.NotContains(t, stderr, "could not connect")
	assert.Contains(t, stderr, "thread thread-1 is busy")
	assert.Contains(t, stderr, "run-0")
	assert.Contains(t, stderr, "elsewhere:42")
	assert.Empty(t, srv.Inputs(), "the agent was not asked")
}

// TestReplayJSONSyntaxErrorType: replay --json said "type": "" for an event
// that is not valid JSON though its type was readable before the error
// (verify guessed it on its own); now both say it, from the decoder.
func TestReplayJSONSyntaxErrorType(t *testing.T) {
	in := []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n" +
		`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}` + "\n" +
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a` + "\x01" + `b"}` + "\n" +
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}` + "\n")
	code, out, _ := runCLI(t, in, "replay", "--json", "-")
	require.Equal(t, exitRejected, code)
	var form struct {
		Diagnostics []struct {
			Index int    `json:"index"`
			Type  string `json:"type"`
			Rule  string `json:"rule"`
		} `json:"diagnostics"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &form))
	require.NotEmpty(t, form.Diagnostics)
	assert.Equal(t, 2, form.Diagnostics[0].Index)
	assert.Equal(t, "E3", form.Diagnostics[0].Rule)
	assert.Equal(t, "TEXT_MESSAGE_CONTENT", form.Diagnostics[0].Type)

	code, out, _ = runCLI(t, in, "verify", "-")
	require.Equal(t, exitRejected, code)
	assert.Contains(t, out, "line 3: event 2 (TEXT_MESSAGE_CONTENT): E3: ")
}

// TestExplainEndMidRun: explain says what G12 says (E8): a recording that
// ends mid-run is incomplete, accepted, exit 0 in replay; a live connection
// that closes cleanly mid-run is cut (G11), exit 1 in watch.
func TestExplainEndMidRun(t *testing.T) {
	code, g12, _ := runCLI(t, nil, "explain", "G12")
	require.Equal(t, exitOK, code)
	text := strings.Join(strings.Fields(g12), " ")
	for _, want := range []string{
		"A recording that ends mid-run (agview replay, agview verify)",
		"the run reads incomplete and the verdict is accept (exit 0)",
		"A live connection (agview watch, the client) that closes cleanly mid-run",
		"that is G11, the run is cut (failed), its open invocations abandoned, and watch exits 1",
	} {
		assert.Contains(t, text, want)
	}
	code, g11, _ := runCLI(t, nil, "explain", "G11")
	require.Equal(t, exitOK, code)
	assert.Contains(t, strings.Join(strings.Fields(g11), " "), "closes cleanly while a run is running is a break too: the run is cut (failed) and agview watch exits 1")
}
