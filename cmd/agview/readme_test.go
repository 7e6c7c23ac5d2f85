package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEProducerWarnings: the output of verify the README's "For
// producer authors" section shows is what verify prints for
// testdata/producer-warnings.sse.
func TestREADMEProducerWarnings(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	const cmd = "$ agview verify producer-warnings.sse\n"
	_, block, ok := strings.Cut(string(readme), cmd)
	require.True(t, ok, "the README shows %q", cmd)
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)

	dir := t.TempDir()
	in, err := os.ReadFile(filepath.Join("testdata", "producer-warnings.sse"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "producer-warnings.sse"), in, 0o644))
	t.Chdir(dir)
	code, out, _ := runCLI(t, nil, "verify", "producer-warnings.sse")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, block, out, "the README shows verify's output as it is")
}
