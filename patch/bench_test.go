package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/benchwork"
)

// stateDoc builds a document shaped like the shared `state` workload
// (../shared/bench/gen -profile state): ten counters, a log of 5 entries and
// an object of items until the document reaches kb KiB.
func stateDoc(kb int) (doc []byte, items int) {
	r := rand.New(rand.NewPCG(1, uint64(kb)))
	var b bytes.Buffer
	b.WriteString(`{"counters":{`)
	for i := range 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"c%d":%d`, i, r.IntN(100))
	}
	b.WriteString(`},"log":[`)
	for i := range 5 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"at":%d,"msg":"entry %d of the log, some words"}`, i, i)
	}
	b.WriteString(`],"items":{`)
	tags := []string{"red", "green", "blue", "urgent", "later", "draft"}
	for b.Len() < kb*1024-120 || items == 0 {
		if items > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%06d":{"id":"k%06d","title":"an item title of some thirty chars","value":%d,"active":%v,"tags":[%q]}`,
			items, items, r.IntN(100000), r.IntN(2) == 0, tags[r.IntN(len(tags))])
		items++
	}
	b.WriteString(`}}`)
	return b.Bytes(), items
}

// stateDeltas returns n STATE_DELTA patches of 1-3 operations, each valid on
// the document stateDoc returns: the operation mix of the shared workload.
func stateDeltas(items, n int) []json.RawMessage {
	r := rand.New(rand.NewPCG(2, uint64(items)))
	out := make([]json.RawMessage, n)
	for i := range out {
		var ops []string
		for range 1 + r.IntN(3) {
			k := fmt.Sprintf("k%06d", r.IntN(items))
			switch x := r.IntN(100); {
			case x < 40:
				ops = append(ops, fmt.Sprintf(`{"op":"replace","path":"/items/%s/value","value":%d}`, k, r.IntN(100000)))
			case x < 60:
				ops = append(ops, fmt.Sprintf(`{"op":"replace","path":"/counters/c%d","value":%d}`, r.IntN(10), r.IntN(1000)))
			case x < 70:
				ops = append(ops, fmt.Sprintf(`{"op":"replace","path":"/items/%s/active","value":%v}`, k, r.IntN(2) == 0))
			case x < 78:
				ops = append(ops, fmt.Sprintf(`{"op":"add","path":"/items/%s/tags/-","value":"blue"}`, k))
			case x < 82:
				// Replace an item by a new one: it moves to the end.
				ops = append(ops, fmt.Sprintf(`{"op":"remove","path":"/items/%s"}`, k),
					fmt.Sprintf(`{"op":"add","path":"/items/%s","value":{"id":"%s","title":"new","value":1,"active":true,"tags":[]}}`, k, k))
			default:
				ops = append(ops, `{"op":"remove","path":"/log/0"}`,
					fmt.Sprintf(`{"op":"add","path":"/log/-","value":{"at":%d,"msg":"a new log entry"}}`, i))
			}
		}
		out[i] = json.RawMessage("[" + strings.Join(ops, ",") + "]")
	}
	return out
}

var benchSizes = []int{1, 100, 1024}

// cpuMeter reports "cpu-ns/op", the process CPU time per iteration (GC
// included), next to the wall-clock ns/op.
type cpuMeter struct {
	start time.Duration
	ok    bool
}

func startCPU() cpuMeter {
	t, ok := processCPU()
	return cpuMeter{t, ok}
}

func (m cpuMeter) report(b *testing.B) {
	t, ok := processCPU()
	if m.ok && ok && b.N > 0 {
		b.ReportMetric(float64(t-m.start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkApply measures one STATE_DELTA (1-3 operations) on a state of
// 1 KiB, 100 KiB and 1 MiB: the patch is decoded and applied, and the new
// document built; nothing is encoded.
func BenchmarkApply(b *testing.B) {
	for _, kb := range benchSizes {
		raw, items := stateDoc(kb)
		doc, err := New(raw)
		require.NoError(b, err)
		deltas := stateDeltas(items, 1024)
		b.Run(fmt.Sprintf("state=%dKB", kb), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			cpu := startCPU()
			for b.Loop() {
				if _, _, err := Apply(doc, deltas[i%len(deltas)], nil); err != nil {
					b.Fatal(err)
				}
				i++
			}
			cpu.report(b)
		})
	}
}

// BenchmarkApplyEvanphx is the same work done with evanphx/json-patch/v5 on
// the document's bytes, the alternative the package was measured against.
func BenchmarkApplyEvanphx(b *testing.B) {
	for _, kb := range benchSizes {
		raw, items := stateDoc(kb)
		deltas := stateDeltas(items, 1024)
		b.Run(fmt.Sprintf("state=%dKB", kb), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			cpu := startCPU()
			for b.Loop() {
				if _, err := evanphxApply(raw, deltas[i%len(deltas)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			cpu.report(b)
		})
	}
}

// BenchmarkNew measures parsing a state of each size (a STATE_SNAPSHOT).
func BenchmarkNew(b *testing.B) {
	for _, kb := range benchSizes {
		raw, _ := stateDoc(kb)
		b.Run(fmt.Sprintf("state=%dKB", kb), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			cpu := startCPU()
			for b.Loop() {
				if _, err := New(raw); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b)
		})
	}
}

// BenchmarkJSON measures encoding a freshly patched state (the first JSON
// call on a new Document; later calls are a copy).
func BenchmarkJSON(b *testing.B) {
	for _, kb := range benchSizes {
		raw, items := stateDoc(kb)
		doc, err := New(raw)
		require.NoError(b, err)
		delta := stateDeltas(items, 1)[0]
		b.Run(fmt.Sprintf("state=%dKB", kb), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			cpu := startCPU()
			for b.Loop() {
				d, _, err := Apply(doc, delta, nil)
				if err != nil {
					b.Fatal(err)
				}
				_ = d.JSON()
			}
			cpu.report(b)
		})
	}
}

// ---------------------------------------------------------------------------
// The shared `state` workload

// stateEvent is the part of a workload event the state fold needs.
type stateEvent struct {
	Type     string          `json:"type"`
	Snapshot json.RawMessage `json:"snapshot"`
	Delta    json.RawMessage `json:"delta"`
}

type stateManifest struct {
	StateLen int    `json:"stateLen"`
	StateFNV uint32 `json:"stateFnv"`
}

// genStateWorkload returns the snapshot, the deltas and the manifest of the
// shared `state` workload of kb KB and the given number of events (see
// internal/benchwork, which generates it once into testdata/bench/). It skips
// when the generator is absent.
func genStateWorkload(tb testing.TB, kb, events int) (Document, []json.RawMessage, stateManifest) {
	tb.Helper()
	stream, manifest := benchwork.Stream(tb, "state", events, "-state-kb", fmt.Sprint(kb))
	var snap Document
	var deltas []json.RawMessage
	for i, line := range benchwork.Lines(tb, stream) {
		var e stateEvent
		require.NoError(tb, json.Unmarshal(line, &e), "event %d", i+1)
		switch e.Type {
		case "STATE_SNAPSHOT":
			var err error
			snap, err = New(e.Snapshot)
			require.NoError(tb, err)
		case "STATE_DELTA":
			deltas = append(deltas, e.Delta)
		}
	}
	raw, err := os.ReadFile(manifest)
	require.NoError(tb, err)
	var m stateManifest
	require.NoError(tb, json.Unmarshal(raw, &m))
	return snap, deltas, m
}

// TestStateWorkload folds the shared `state` workload and checks the final
// state byte for byte (length and FNV-1a hash of its encoding, which the
// generator computes as JSON.stringify would print it: member order matters).
func TestStateWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the workload generator")
	}
	t.Parallel()
	for _, kb := range []int{1, 100} {
		t.Run(fmt.Sprintf("state=%dKB", kb), func(t *testing.T) {
			doc, deltas, m := genStateWorkload(t, kb, 3000)
			require.NotEmpty(t, deltas)
			for i, d := range deltas {
				var err error
				doc, _, err = Apply(doc, d, nil)
				require.NoError(t, err, "delta %d", i)
			}
			enc := doc.JSON()
			h := fnv.New32a()
			h.Write(enc)
			assert.Equal(t, m.StateLen, len(enc), "final state length")
			assert.Equal(t, m.StateFNV, h.Sum32(), "final state hash")
		})
	}
}

// BenchmarkStateWorkload folds the shared `state` workload's deltas one after
// the other: ns/op is the cost of one delta on a state of each size.
func BenchmarkStateWorkload(b *testing.B) {
	for _, kb := range benchSizes {
		b.Run(fmt.Sprintf("state=%dKB", kb), func(b *testing.B) {
			snap, deltas, _ := genStateWorkload(b, kb, 10003)
			b.ReportAllocs()
			doc, i := snap, 0
			cpu := startCPU()
			for b.Loop() {
				var err error
				if doc, _, err = Apply(doc, deltas[i], nil); err != nil {
					b.Fatal(err)
				}
				if i++; i == len(deltas) {
					doc, i = snap, 0
				}
			}
			cpu.report(b)
		})
	}
}

// BenchmarkApplyLongList measures a delta that appends to a list in the
// state and drops its first element (a bounded log), for lists of 100, 10 000
// and 100 000 elements: the cost must not grow with the list.
func BenchmarkApplyLongList(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"at":%d,"msg":"entry"}`, i)
		}
		doc := MustNew(`{"log":[` + strings.Join(parts, ",") + `]}`)
		delta := json.RawMessage(`[{"op":"remove","path":"/log/0"},{"op":"add","path":"/log/-","value":{"at":0,"msg":"new entry"}}]`)
		b.Run(fmt.Sprintf("len=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cur := doc
			cpu := startCPU()
			for b.Loop() {
				var err error
				if cur, _, err = Apply(cur, delta, nil); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b)
		})
	}
}
