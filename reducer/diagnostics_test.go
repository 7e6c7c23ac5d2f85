package reducer_test

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestDiagnosticsBounded folds 200,000 refused events: the view keeps the
// first 1,000 and the last 1,000 diagnostics, counts the others as omitted
// (in DiagnosticsOmitted and in its JSON form), counts every violation, and
// holds a heap of a bounded size, not one that grows with the refusals.
// (Not parallel: it measures the heap.)
func TestDiagnosticsBounded(t *testing.T) {
	const n = 200_000
	line := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"nobody-opened-this","delta":"x"}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b := reducer.NewBuilder(view.New())
	require.NoError(t, b.FoldJSON([]byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)))
	for range n {
		require.Error(t, b.FoldJSON(line))
	}
	v := b.View()
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(v)
	t.Logf("the view holds %d bytes after %d refusals", held, n)
	assert.Less(t, held, int64(4<<20), "the view's heap grows with the refused events")

	assert.Equal(t, n, v.ViolationCount(), "every violation is counted")
	ds := v.Diagnostics()
	require.Len(t, ds, 2000)
	assert.Equal(t, n-2000, v.DiagnosticsOmitted())
	assert.Equal(t, 1, ds[0].Index, "the first refused event is kept")
	assert.Equal(t, 1000, ds[999].Index)
	assert.Equal(t, n-999, ds[1000].Index, "the last 1,000 are kept")
	assert.Equal(t, n, ds[1999].Index)

	var form struct {
		Diagnostics []json.RawMessage `json:"diagnostics"`
		Omitted     *int              `json:"diagnosticsOmitted"`
	}
	require.NoError(t, json.Unmarshal([]byte(marshal(t, v)), &form))
	assert.Len(t, form.Diagnostics, 2000)
	require.NotNil(t, form.Omitted)
	assert.Equal(t, n-2000, *form.Omitted)
}

// TestDiagnosticsAllKept: up to 2,000 diagnostics are all kept, and the
// JSON form then has no diagnosticsOmitted key.
func TestDiagnosticsAllKept(t *testing.T) {
	t.Parallel()
	b := reducer.NewBuilder(view.New())
	line := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"nobody-opened-this","delta":"x"}`)
	for range 2000 {
		require.Error(t, b.FoldJSON(line))
	}
	v := b.View()
	assert.Len(t, v.Diagnostics(), 2000)
	assert.Zero(t, v.DiagnosticsOmitted())
	assert.NotContains(t, marshal(t, v), "diagnosticsOmitted")
	require.Error(t, b.FoldJSON(line))
	v = b.View()
	assert.Len(t, v.Diagnostics(), 2000)
	assert.Equal(t, 1, v.DiagnosticsOmitted())
	assert.Contains(t, marshal(t, v), `],"diagnosticsOmitted":1}`)
}
