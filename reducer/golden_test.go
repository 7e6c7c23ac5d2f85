package reducer_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGoldenViews compares the JSON form of the final view of each large
// conformance vector (15-large-*) with testdata/golden/<name>.json. Run with
// -update to rewrite the files after an intended change, and review the diff.
func TestGoldenViews(t *testing.T) {
	vecs, err := conformance.Load()
	require.NoError(t, err)
	n := 0
	for _, vec := range vecs {
		if !strings.HasPrefix(vec.Name, "15-large-") {
			continue
		}
		n++
		t.Run(vec.Name, func(t *testing.T) {
			v, _ := foldVector(t, vec)
			v = reducer.End(v, nil)
			raw, err := json.Marshal(v)
			require.NoError(t, err)
			var got bytes.Buffer
			require.NoError(t, json.Indent(&got, raw, "", "  "))
			got.WriteByte('\n')
			path := filepath.Join("testdata", "golden", vec.Name+".json")
			if *update {
				require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "missing golden file; run go test -run TestGoldenViews -update")
			assert.Equal(t, string(want), got.String(), "view JSON of %s differs from %s", vec.Name, path)
		})
	}
	assert.Equal(t, 5, n, "the suite has five large vectors")
}
