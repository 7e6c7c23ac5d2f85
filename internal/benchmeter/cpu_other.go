//go:build !unix

package benchmeter

import "time"

// CPUTime is not available on this platform; Meter then reports wall time
// only.
func CPUTime() (time.Duration, bool) { return 0, false }
