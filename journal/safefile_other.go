//go:build !unix

package journal

import (
	"errors"
	"io/fs"
)

// openFlags: no O_NOFOLLOW here; the file journal needs Unix file locks
// anyway (tryLock).
const openFlags = 0

func isLinkRefusal(err error) bool { return false }

func checkDirOwner(fi fs.FileInfo) error {
	if !fi.IsDir() {
		return errors.New("not a directory")
	}
	return nil
}
