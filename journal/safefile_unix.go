//go:build unix

package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openFlags are added to every open of a journal file: a symbolic link in
// place of the file is refused (ELOOP) instead of followed, and a FIFO or a
// device opens without waiting for a peer, so that the check that it is a
// regular file (openFile) comes before any read can block.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// isLinkRefusal reports whether err is O_NOFOLLOW's refusal of a symbolic
// link (ELOOP on Linux and macOS, EMLINK on FreeBSD, EFTYPE on NetBSD).
func isLinkRefusal(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}

// checkDirOwner refuses a journal directory that another user owns or that
// others may write in: whoever can create files in it could plant links or
// FIFOs under the names the journal opens, or read its threads.
func checkDirOwner(fi fs.FileInfo) error {
	if !fi.IsDir() {
		return errors.New("not a directory")
	}
	if m := fi.Mode().Perm(); m&0o022 != 0 {
		return fmt.Errorf("writable by its group or by others (mode %04o): make it 0700", m)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("owned by uid %d, not by this process's uid %d", st.Uid, uid)
	}
	return nil
}
