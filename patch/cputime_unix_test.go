//go:build unix

package patch

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) this process has used, so
// benchmarks can report CPU cost per operation, which a machine shared with
// other work does not inflate as it does wall time.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
