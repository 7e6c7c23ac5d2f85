package main

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLineTable checks the runs of a lineTable against the plain list of
// lines they stand for, on the spacings recordings have (one event per
// line, SSE's few lines per event, blank lines and journal lines between)
// and on random ones.
func TestLineTable(t *testing.T) {
	steps := func(pattern ...int) func(i int) int {
		return func(i int) int { return pattern[i%len(pattern)] }
	}
	cases := []struct {
		name string
		n    int
		step func(i int) int
		runs int // the most runs the table may hold; 0: no bound
	}{
		{"empty", 0, steps(1), 0},
		{"one", 1, steps(1), 1},
		{"jsonl", 100_000, steps(1), 1},
		{"sse", 100_000, steps(3), 1},
		{"blank line every 10", 1000, steps(1, 1, 1, 1, 1, 1, 1, 1, 1, 2), 0},
		{"alternating", 1000, steps(1, 2), 0},
		{"random", 5000, func(int) int { return 1 + rand.IntN(4) }, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var tab lineTable
			var want []int
			line := 1 + rand.IntN(5)
			for i := range tc.n {
				want = append(want, line)
				tab.add(line)
				line += tc.step(i)
			}
			if tc.runs > 0 {
				assert.LessOrEqual(t, len(tab.runs), tc.runs)
			}
			for i, l := range want {
				require.Equal(t, l, tab.at(i), "event %d", i)
			}
			assert.Zero(t, tab.at(-1))
			assert.Zero(t, tab.at(tc.n))
		})
	}
}
