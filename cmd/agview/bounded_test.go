package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiagnosticsBounded: a recording of n refused events (each line "{}",
// E3) prints the first and last diagShown diagnostics and a line counting
// the rest, whatever n: 3 MB of "{}" lines printed 182 MB with verify
// --json. The counts stay whole.
func TestDiagnosticsBounded(t *testing.T) {
	const n = 100_000
	var b bytes.Buffer
	b.WriteString(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n")
	for range n {
		b.WriteString("{}\n")
	}
	b.WriteString(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}` + "\n")
	in := b.Bytes()

	t.Run("verify --json", func(t *testing.T) {
		code, out, stderr := runCLI(t, in, "verify", "--json", "-")
		require.Equal(t, exitRejected, code, stderr)
		t.Logf("%d bytes in, %d out", len(in), len(out))
		assert.Less(t, len(out), 64<<10, "the output does not grow with the diagnostics")
		var rep struct {
			Events            int               `json:"events"`
			RejectAt          int               `json:"rejectAt"`
			Violations        []json.RawMessage `json:"violations"`
			ViolationsOmitted int               `json:"violationsOmitted"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &rep))
		assert.Equal(t, n+2, rep.Events)
		assert.Equal(t, 1, rep.RejectAt)
		assert.Len(t, rep.Violations, 2*diagShown)
		assert.Equal(t, n-2*diagShown, rep.ViolationsOmitted)
		assert.Contains(t, string(rep.Violations[len(rep.Violations)-1]), fmt.Sprintf(`"index": %d`, n), "the last one is kept")
		assert.Contains(t, stderr, fmt.Sprintf("%d of %d events rejected", n, n+2))
	})
	t.Run("verify", func(t *testing.T) {
		code, out, _ := runCLI(t, in, "verify", "-")
		require.Equal(t, exitRejected, code)
		assert.Less(t, len(out), 32<<10)
		assert.Equal(t, 2*diagShown+2, strings.Count(out, "\n"), "the diagnostics shown, the line counting the rest, the verdict")
		assert.Contains(t, out, fmt.Sprintf("… %d more violations not shown (the first and last %d are)\n", n-2*diagShown, diagShown))
		assert.Contains(t, out, fmt.Sprintf("line %d: event %d: E3", n+1, n), "the last one is kept")
		assert.Contains(t, out, fmt.Sprintf("rejected: %d of %d events\n", n, n+2))
	})
	t.Run("replay", func(t *testing.T) {
		code, out, stderr := runCLI(t, in, "replay", "-")
		require.Equal(t, exitRejected, code)
		assert.Contains(t, out, fmt.Sprintf("violations: %d", n))
		assert.Less(t, len(stderr), 32<<10, "standard error does not grow with the diagnostics")
		assert.Contains(t, stderr, fmt.Sprintf("agview replay: standard input: … %d more violations not shown", n-2*diagShown))
		assert.Contains(t, stderr, fmt.Sprintf("%d of %d events rejected", n, n+2))
	})
}
