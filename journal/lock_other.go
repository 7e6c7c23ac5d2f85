//go:build !unix

package journal

import (
	"errors"
	"os"
)

var errNoLocks = errors.New("the file journal needs Unix file locks")

func tryLock(f *os.File) error        { return errNoLocks }
func locked(f *os.File) (bool, error) { return false, errNoLocks }
