package reducer_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/agview/agview/internal/benchmeter"
	"github.com/agview/agview/view"
)

// Streams that grow one thing without bound (issue 13). Each benchmark
// compares two passes measured in the same run, so the ratio it reports
// does not depend on the machine or on what else runs on it; the passes
// alternate, CPU time is measured (a shared machine inflates wall time),
// and the median ratio is reported.

// toolCallLines is a run of n tool calls (start, one argument delta, end),
// all under one message when shared is set, else each under its own.
func toolCallLines(n int, shared bool) [][]byte {
	lines := [][]byte{[]byte(start)}
	for i := range n {
		parent := "m"
		if !shared {
			parent = fmt.Sprintf("m%d", i)
		}
		lines = append(lines,
			fmt.Appendf(nil, `{"type":"TOOL_CALL_START","toolCallId":"c%d","toolCallName":"f","parentMessageId":%q}`, i, parent),
			fmt.Appendf(nil, `{"type":"TOOL_CALL_ARGS","toolCallId":"c%d","delta":"{}"}`, i),
			fmt.Appendf(nil, `{"type":"TOOL_CALL_END","toolCallId":"c%d"}`, i),
			fmt.Appendf(nil, `{"type":"TOOL_CALL_RESULT","messageId":"r%d","toolCallId":"c%d","content":"ok"}`, i, i))
	}
	return append(lines, []byte(finish))
}

// textLines is a run of n short text messages (start, one delta, end).
func textLines(n int) [][]byte {
	lines := [][]byte{[]byte(start)}
	for i := range n {
		lines = append(lines,
			fmt.Appendf(nil, `{"type":"TEXT_MESSAGE_START","messageId":"m%d","role":"assistant"}`, i),
			fmt.Appendf(nil, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m%d","delta":"hello"}`, i),
			fmt.Appendf(nil, `{"type":"TEXT_MESSAGE_END","messageId":"m%d"}`, i))
	}
	return append(lines, []byte(finish))
}

// cpuOf returns the CPU time fn takes, after a collection.
func cpuOf(fn func()) time.Duration {
	runtime.GC()
	start, ok := benchmeter.CPUTime()
	if !ok {
		t := time.Now()
		fn()
		return time.Since(t)
	}
	fn()
	end, _ := benchmeter.CPUTime()
	return end - start
}

// ratioOf runs a and b alternately and returns the median of cost(a)/cost(b).
func ratioOf(b *testing.B, pa, pb func()) float64 {
	var xs []float64
	for i := 0; b.Loop(); i++ {
		var ta, tb time.Duration
		if i%2 == 0 {
			ta, tb = cpuOf(pa), cpuOf(pb)
		} else {
			tb, ta = cpuOf(pb), cpuOf(pa)
		}
		xs = append(xs, float64(ta)/float64(tb))
	}
	return median(xs)
}

// BenchmarkToolCallsOneMessage folds 20,000 tool calls (with their results)
// held by one message and 20,000 held by a message each, through a Builder
// and a view per event, and reports the cost of the first over the second
// (x-one-message; 1 means a call costs the same whatever the number of calls
// its message holds). Before issue 13 every call copied its message's call
// list: 20,000 calls under one message cost about 13 times as much.
func BenchmarkToolCallsOneMessage(b *testing.B) {
	const n = 20000
	one, sep := toolCallLines(n, true), toolCallLines(n, false)
	for _, fold := range []struct {
		name string
		fn   func(testing.TB, [][]byte) *view.View
	}{{"build", buildLines}, {"fold", foldLines}} {
		b.Run(fold.name, func(b *testing.B) {
			x := ratioOf(b, func() { fold.fn(b, one) }, func() { fold.fn(b, sep) })
			b.ReportMetric(x, "x-one-message")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkManyMessages folds 25,000 and 250,000 short text messages through
// a Builder, and reports the cost per message of the long stream over that
// of the short one (x-per-message-10x; 1 is linear), and the live heap the
// final view of the long stream holds per message (heap-B/message), next to
// the bytes of the message's own content (its id, role and text).
func BenchmarkManyMessages(b *testing.B) {
	const small, large = 25000, 250000
	ls, ll := textLines(small), textLines(large)
	x := ratioOf(b, func() { buildLines(b, ll) }, func() { buildLines(b, ls) }) * small / large
	b.ReportMetric(x, "x-per-message-10x")
	b.ReportMetric(heapPerMessage(b, ll, large), "heap-B/message")
	b.ReportMetric(float64(len("m123456")+len("assistant")+len("hello")), "own-B/message")
	b.ReportMetric(0, "ns/op")
}

// heapPerMessage returns the live heap the view of lines holds, per message.
func heapPerMessage(tb testing.TB, lines [][]byte, n int) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := buildLines(tb, lines)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	runtime.KeepAlive(lines) // collected in between, it would make the view look smaller
	return (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n)
}
