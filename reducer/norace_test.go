//go:build !race

package reducer_test

// raceEnabled: see race_test.go.
const raceEnabled = false
