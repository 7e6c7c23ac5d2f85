//go:build race

package reducer_test

// raceEnabled: the race detector's instrumentation allocates, so tests that
// count allocations bound them apart under it.
const raceEnabled = true
