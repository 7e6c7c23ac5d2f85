//go:build !unix

package patch

import "time"

// processCPU is not available here; benchmarks then report wall time only.
func processCPU() (time.Duration, bool) { return 0, false }
