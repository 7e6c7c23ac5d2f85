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

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
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

// TestWatchNextKeepsModeAndOwner: --next replaced the file with a 0644 one
// owned by the caller, whatever it was (a 0600 file holding a private
// conversation became world-readable). Now the file is replaced atomically
// (a new inode, no temporary file left), keeping its mode and its owner; a
// new file is 0600.
func TestWatchNextKeepsModeAndOwner(t *testing.T) {
	srv := agenttest.NewServer(agenttest.Events(
		&event.RunStarted{ThreadID: "t", RunID: "r"}, &event.RunFinished{ThreadID: "t", RunID: "r"}), nil)
	defer srv.Close()
	syscall.Umask(0o022)
	root := os.Geteuid() == 0
	for _, tc := range []struct {
		name   string
		exists bool
		mode   os.FileMode
		owner  int // a uid:gid to give the file first (as root only), 0 for none
		want   os.FileMode
	}{
		{name: "new file", want: 0o600},
		{name: "private", exists: true, mode: 0o600, want: 0o600},
		{name: "group readable", exists: true, mode: 0o640, want: 0o640},
		{name: "world readable", exists: true, mode: 0o644, want: 0o644},
		{name: "another owner", exists: true, mode: 0o600, owner: 4242, want: 0o600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.owner != 0 && !root {
				t.Skip("giving a file to another user takes root")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "next.json")
			var ino uint64
			if tc.exists {
				require.NoError(t, os.WriteFile(path, []byte(`{"threadId":"old","runId":"r0","messages":[]}`), 0o600))
				require.NoError(t, os.Chmod(path, tc.mode))
				if tc.owner != 0 {
					require.NoError(t, os.Chown(path, tc.owner, tc.owner))
				}
				fi, err := os.Stat(path)
				require.NoError(t, err)
				ino = fi.Sys().(*syscall.Stat_t).Ino
			}
			code, _, stderr := runCLI(t, nil, "watch", "--json", "--next", path, srv.URL())
			require.Equal(t, exitOK, code, stderr)
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, tc.want, fi.Mode().Perm(), "mode")
			st := fi.Sys().(*syscall.Stat_t)
			if tc.owner != 0 {
				assert.Equal(t, uint32(tc.owner), st.Uid, "owner")
				assert.Equal(t, uint32(tc.owner), st.Gid, "group")
			} else {
				assert.Equal(t, uint32(os.Geteuid()), st.Uid, "owner")
			}
			if tc.exists {
				assert.NotEqual(t, ino, st.Ino, "replaced by a rename, not rewritten in place")
			}
			in, err := readInput(path)
			require.NoError(t, err, "the file holds the next input")
			ins := srv.Inputs()
			assert.Equal(t, ins[len(ins)-1].ThreadID, in.ThreadID, "it continues the thread")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file is left")
		})
	}
}
