//go:build unix

package benchmeter

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user and system, all threads, the garbage
// collector included) the process has used, and whether it could tell.
func CPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
