package model

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDiagLog appends diagnostics one by one, keeping every version, and
// checks each against a slice: all of them up to 2×DiagsKept, then the
// first DiagsKept and the last DiagsKept, the others counted as omitted;
// an older version reads as it did.
func TestDiagLog(t *testing.T) {
	require.Equal(t, 1000, DiagsKept, "view/doc.go and View.Diagnostics document 1,000 at each end")
	var l *DiagLog
	require.Zero(t, l.Len())
	require.Zero(t, l.Omitted())
	require.Empty(t, slices.Collect(l.All()))
	var all []Diag
	versions := map[int]*DiagLog{}
	check := func(l *DiagLog, n int) {
		t.Helper()
		want := all[:n]
		omitted := 0
		if n > 2*DiagsKept {
			omitted = n - 2*DiagsKept
			want = append(slices.Clone(all[:DiagsKept]), all[n-DiagsKept:n]...)
		}
		require.Equal(t, len(want), l.Len(), "%d appended: Len", n)
		require.Equal(t, omitted, l.Omitted(), "%d appended: Omitted", n)
		require.Equal(t, want, slices.Collect(l.All()), "%d appended: All", n)
	}
	for i := range 5*DiagsKept + 7 {
		d := Diag{Index: i, Rule: "R1"}
		all = append(all, d)
		l = l.Append(d)
		if i%997 == 0 || i >= 2*DiagsKept-2 && i <= 2*DiagsKept+1 || i%DiagsKept == DiagsKept-1 {
			check(l, i+1)
			versions[i+1] = l
		}
	}
	check(l, len(all))
	for n, v := range versions {
		check(v, n)
	}
}
