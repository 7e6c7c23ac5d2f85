//go:build unix

package main

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives f, a new file, the owner and group of old, the file it
// replaces, when they differ from f's (as root, or to a group the caller
// is in); it fails, and the old file stays, when that is not allowed.
func keepOwner(f *os.File, old fs.FileInfo) error {
	want, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	have, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || (have.Uid == want.Uid && have.Gid == want.Gid) {
		return nil
	}
	if err := f.Chown(int(want.Uid), int(want.Gid)); err != nil {
		return fmt.Errorf("cannot keep the file's owner %d:%d, so not replacing it: %w", want.Uid, want.Gid, err)
	}
	return nil
}
