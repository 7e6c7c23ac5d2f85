//go:build race

package main

// raceEnabled: under the race detector sync.Pool drops what it is given at
// random, so encoding/json allocates afresh where it would reuse a buffer.
const raceEnabled = true
