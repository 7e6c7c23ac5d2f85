//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckNextFileSpecial: a pipe (what --next /dev/stdout is in a shell
// pipeline) or a device is refused without being opened: reading a pipe
// waits for a writer forever, and renaming the next input onto a device
// replaces it (as root, "--next /dev/null" replaced /dev/null).
func TestCheckNextFileSpecial(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, p := range []string{fifo, os.DevNull} {
		done := make(chan error, 1)
		go func() {
			_, err := checkNextFile(p)
			done <- err
		}()
		select {
		case err := <-done:
			require.Error(t, err, p)
			assert.Contains(t, err.Error(), "not a regular file")
			assert.Contains(t, err.Error(), p)
		case <-time.After(10 * time.Second):
			t.Fatalf("checkNextFile(%s) blocks", p)
		}
	}
}
