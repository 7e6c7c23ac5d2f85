//go:build unix && !linux

package journal

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// tryLock takes an exclusive flock on f without waiting; the kernel drops it
// when f is closed or its process dies. A reader probing the lock (locked)
// holds a shared lock for an instant, so a refusal is retried briefly before
// it is reported as errLocked.
func tryLock(f *os.File) error {
	for i := 0; ; i++ {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if i == 20 {
			return errLocked
		}
		time.Sleep(time.Millisecond)
	}
}

// locked reports whether another open of f's file holds its lock, probing
// with a shared lock released at once.
func locked(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return false, syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
