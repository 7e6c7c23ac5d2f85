package testnote

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSkipIsSeen: the skip's reason reaches the notes file, where go test
// (which drops a passing package's output) does not hide it, and the test
// is skipped.
func TestSkipIsSeen(t *testing.T) {
	notes := filepath.Join(t.TempDir(), "notes.txt")
	t.Setenv(EnvFile, notes)
	var skipped bool
	t.Run("browser", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Skip(t, "no chromium binary on PATH")
	})
	assert.True(t, skipped)
	b, err := os.ReadFile(notes)
	require.NoError(t, err)
	assert.Equal(t, "TestSkipIsSeen/browser: SKIP no chromium binary on PATH\n", string(b))

	t.Run("note", func(t *testing.T) { Note(t, "ran against nats-server 2.10") })
	b, err = os.ReadFile(notes)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(b), "\n"))
}
