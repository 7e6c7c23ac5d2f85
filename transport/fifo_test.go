//go:build unix

package transport_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/transport"
)

// TestReadFileCancelInterruptsBlockedRead reads a named pipe whose writer
// goes quiet: canceling the context must end the blocked read.
func TestReadFileCancelInterruptsBlockedRead(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "events.pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	writerReady := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0) // blocks until the reader opens
		if err != nil {
			close(writerReady)
			return
		}
		w.WriteString(sample[0] + "\n")
		writerReady <- w
	}()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got int
	var fatal error
	for _, err := range transport.ReadFile(ctx, path, transport.FormatJSONL, nil) {
		if err != nil {
			fatal = err
			break
		}
		got++
		// Cancel while the next read is (most likely) blocked: the writer
		// stays open and silent. Should the cancellation win the race, the
		// check before the read ends the stream the same way.
		go cancel()
	}
	w := <-writerReady
	require.NotNil(t, w)
	defer w.Close()
	assert.Equal(t, 1, got)
	require.ErrorIs(t, fatal, transport.KindCanceled)
	assert.ErrorIs(t, fatal, context.Canceled)
}
