package threads

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// A killed run's error, however long its chain, is one sentence that fits.
func TestSentence(t *testing.T) {
	chain := "journal: follow thread \"t\": " + strings.Repeat("transport: read: connection reset by peer: ", 30) + "EOF"
	for _, tc := range []struct{ name, in, want string }{
		{"cut", `run r1 was cut: journal: attach thread "t": run cut: its writer went away without ending it: run r1`, "The run was cut off: the service running it went away before it ended."},
		{"stopped", "context canceled", "The run was stopped."},
		{"chain", chain, "Journal: EOF."},
		{"short", "agent crashed", "Agent crashed."},
		{"empty", "", "The run failed."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := sentence(tc.in)
			assert.Equal(t, tc.want, got)
			assert.LessOrEqual(t, len(got), 170)
		})
	}
}

// A diagnostic whose event type was not readable has no "type": the page
// never shows "event 217 ():"; the header keeps the first and last ones and
// counts the rest.
func TestHeaderDiagnostics(t *testing.T) {
	v := view.New()
	v, _ = reducer.FoldJSON(v, []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`))
	for i := range 120 {
		v, _ = reducer.FoldJSON(v, []byte(fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"nope%d","delta":"x"}`, i)))
	}
	v, _ = reducer.FoldJSON(v, []byte(`{"no type at all`))
	h := headerOf("t", v)
	require.Len(t, h.Diagnostics, MaxHeaderDiagnostics)
	assert.Equal(t, len(v.Diagnostics())-MaxHeaderDiagnostics, h.DiagnosticsOmitted)
	last := h.Diagnostics[len(h.Diagnostics)-1]
	data, err := json.Marshal(last)
	require.NoError(t, err)
	assert.NotContains(t, string(data), `"type"`, "an unreadable event has no type on the wire: %s", data)
	assert.Equal(t, h.Diagnostics[0].Index, v.Diagnostics()[0].Index, "the first ones are kept")
}
