package persist

import (
	"fmt"
	"strconv"
	"testing"
)

var benchSizes = []int{1_000, 100_000, 1_000_000}

func vectorOfSize(n int) Vector[int] {
	var v Vector[int]
	for i := range n {
		v = v.Append(i)
	}
	return v
}

func mapOfSize(n int) (Map[int], []string) {
	var m Map[int]
	keys := make([]string, n)
	for i := range n {
		keys[i] = "key-" + strconv.Itoa(i)
		m = m.Set(keys[i], i)
	}
	return m, keys
}

// BenchmarkVectorAppend measures one Append to a vector of each size, always
// to the same value (so the tail copy path is measured after the first) and
// to a fresh successor (the in-place path).
func BenchmarkVectorAppend(b *testing.B) {
	for _, n := range benchSizes {
		v := vectorOfSize(n)
		b.Run(fmt.Sprintf("n=%d/branch", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = v.Append(1)
			}
		})
		b.Run(fmt.Sprintf("n=%d/stream", n), func(b *testing.B) {
			b.ReportAllocs()
			w := v
			for b.Loop() {
				w = w.Append(1)
			}
		})
	}
}

func BenchmarkVectorSet(b *testing.B) {
	for _, n := range benchSizes {
		v := vectorOfSize(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				v = v.Set(i%n, i)
				i += 7919
			}
		})
	}
}

func BenchmarkVectorAt(b *testing.B) {
	for _, n := range benchSizes {
		v := vectorOfSize(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i, sum := 0, 0
			for b.Loop() {
				sum += v.At(i % n)
				i += 7919
			}
			_ = sum
		})
	}
}

func BenchmarkMapSet(b *testing.B) {
	for _, n := range benchSizes {
		m, keys := mapOfSize(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				_ = m.Set(keys[i%n], i)
				i += 7919
			}
		})
	}
}

func BenchmarkMapGet(b *testing.B) {
	for _, n := range benchSizes {
		m, keys := mapOfSize(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				_, _ = m.Get(keys[i%n])
				i += 7919
			}
		})
	}
}

// BenchmarkTextStream appends a token and joins, as a view does for each
// TEXT_MESSAGE_CONTENT it folds and renders; reported per token.
func BenchmarkTextStream(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("tokens=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var t Text
				for range n {
					t = t.Append("tok ")
					_ = t.String()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/token")
		})
	}
}

// BenchmarkBufMapSetNew adds n new keys to a BufMap, one version after the
// other, as a stream adds its message ids: ns/op is per key.
func BenchmarkBufMapSetNew(b *testing.B) {
	for _, n := range []int{10_000, 200_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			keys := make([]string, n)
			for i := range keys {
				keys[i] = fmt.Sprintf("m-%d", i)
			}
			b.ReportAllocs()
			for b.Loop() {
				var m BufMap[[3]uint32]
				for _, k := range keys {
					m = m.Set(k, [3]uint32{1, 2, 3})
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/key")
		})
	}
}
