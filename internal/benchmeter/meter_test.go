package benchmeter

import (
	"testing"
	"time"
)

func TestCPUTimeAdvances(t *testing.T) {
	a, ok := CPUTime()
	if !ok {
		t.Skip("no CPU time on this platform")
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		x := 0
		for i := range 1_000_000 {
			x += i
		}
		_ = x
		if b, _ := CPUTime(); b > a {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("CPU time did not advance while the test was busy")
		}
	}
}

func BenchmarkMeter(b *testing.B) {
	m := Start()
	s := make([][]byte, 0, b.N)
	for b.Loop() {
		s = append(s, make([]byte, 8))
	}
	if rate := m.Report(b, 1); rate <= 0 {
		b.Fatalf("rate %v, want > 0", rate)
	}
}
