package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStreamEndsWatchAndReplay: a stream whose end G18 tolerates (junk after
// the run ended, a last event without its blank line or line ending) reads
// the same in watch and replay: the run finished, exit 0, and one G18
// warning saying what was tolerated; a stream whose last event is cut
// inside its JSON still does not.
func TestStreamEndsWatchAndReplay(t *testing.T) {
	const head = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
		"data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}\n\n" +
		"data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n"
	const finished = "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}"
	for _, tc := range []struct {
		name, in, note string
	}{
		{"junk after the run ended", head + finished + "\n\ngarbage", "holds no data; ignored"},
		{"comment after the run ended", head + finished + "\n\n: bye", "holds no data; ignored"},
		{"stray data after the run ended", head + finished + "\n\ndata", "its data is empty; ignored"},
		{"NULs after the run ended", head + finished + "\n\n\x00\x00", "holds no data; ignored"},
		{"last event without its blank line", head + finished + "\n", "has no blank line after it; dispatched"},
		{"last event without its line ending", head + finished, "has no line ending; dispatched"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte(tc.in))
			}))
			defer srv.Close()
			code, watched, stderr := runCLI(t, nil, "watch", "--json", srv.URL)
			assert.Equal(t, exitOK, code, "watch: %s", stderr)
			code, replayed, stderr := runCLI(t, []byte(tc.in), "replay", "--json", "--format", "sse", "-")
			assert.Equal(t, exitOK, code, "replay: %s", stderr)
			for what, out := range map[string]string{"watch": watched, "replay": replayed} {
				var form struct {
					Runs []struct {
						Status string `json:"status"`
					} `json:"runs"`
					Diagnostics []struct {
						Kind, Rule, Message string
					} `json:"diagnostics"`
				}
				require.NoError(t, json.Unmarshal([]byte(out), &form), "%s prints the view", what)
				require.Len(t, form.Runs, 1, what)
				assert.Equal(t, "finished", form.Runs[0].Status, what)
				require.Len(t, form.Diagnostics, 1, "%s: one warning: %+v", what, form.Diagnostics)
				assert.Equal(t, "warning", form.Diagnostics[0].Kind, what)
				assert.Equal(t, "G18", form.Diagnostics[0].Rule, what)
				assert.Contains(t, form.Diagnostics[0].Message, tc.note, what)
			}
			code, out, _ := runCLI(t, []byte(tc.in), "verify", "--format", "sse", "-")
			assert.Equal(t, exitOK, code, "verify: %s", out)
			assert.Contains(t, out, "G18", "verify lists the warning")
		})
	}
	t.Run("last event cut inside its JSON", func(t *testing.T) {
		in := head + "data: {\"type\":\"RUN_FINISHED\",\"threadId\""
		code, _, stderr := runCLI(t, []byte(in), "replay", "--json", "--format", "sse", "-")
		assert.Equal(t, exitUsage, code, "a truncated stream is unusable input: %s", stderr)
		assert.Contains(t, stderr, "stream ended inside an event")
	})
}
