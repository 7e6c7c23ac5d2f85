package event

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// benchGen is the shared workload generator (../shared/bench/gen beside the
// module root; see its README).
var benchGen = filepath.Join("..", "..", "shared", "bench", "gen")

// workload is one stream the benchmark decodes.
type workload struct {
	name string
	args []string
}

var workloads = []workload{
	{"chat", []string{"-profile", "chat", "-events", "20000", "-seed", "1"}},
	{"swarm", []string{"-profile", "swarm", "-events", "20000", "-seed", "1"}},
	{"state", []string{"-profile", "state", "-events", "10000", "-state-kb", "100", "-seed", "1"}},
}

// loadWorkload returns the lines of a generated workload, generating it into
// a cache under the temporary directory keyed by the generator's source.
func loadWorkload(b *testing.B, w workload) [][]byte {
	b.Helper()
	if st, err := os.Stat(benchGen); err != nil || !st.IsDir() {
		b.Skipf("no %s beside the module: the workloads cannot be generated", benchGen)
	}
	h := sha256.New()
	srcs, err := filepath.Glob(filepath.Join(benchGen, "*.go"))
	if err != nil || len(srcs) == 0 {
		b.Fatalf("no generator sources in %s", benchGen)
	}
	for _, s := range srcs {
		src, err := os.ReadFile(s)
		if err != nil {
			b.Fatal(err)
		}
		h.Write(src)
	}
	dir := filepath.Join(os.TempDir(), "agview-bench", hex.EncodeToString(h.Sum(nil))[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	name := w.name
	for _, a := range w.args {
		name += "_" + a
	}
	path := filepath.Join(dir, name+".jsonl")
	if _, err := os.Stat(path); err != nil {
		abs, err := filepath.Abs(path)
		if err != nil {
			b.Fatal(err)
		}
		tmp := abs + ".tmp" + strconv.Itoa(os.Getpid())
		cmd := exec.Command("go", append([]string{"run", ".", "-format", "jsonl", "-q", "-o", tmp}, w.args...)...)
		cmd.Dir = benchGen
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("generating %s: %v\n%s", w.name, err, out)
		}
		if err := os.Rename(tmp, abs); err != nil {
			b.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			lines = append(lines, l)
		}
	}
	return lines
}

// envelope is what the floor decodes: the type alone, with stock encoding/json.
type envelope struct {
	Type string `json:"type"`
}

var sink any

// BenchmarkDecode decodes each shared workload (chat, swarm, state) with
// Decode, and with the "envelope floor" (stock encoding/json decoding only
// "type" and keeping the event as an owned json.RawMessage) in the same run.
// Each reports ns/event, MB/s and allocs/event; decode also reports x-floor,
// its time per event over the floor's.
func BenchmarkDecode(b *testing.B) {
	for _, w := range workloads {
		lines := loadWorkload(b, w)
		size := 0
		for _, l := range lines {
			size += len(l) + 1
		}
		var floor float64
		b.Run(w.name+"/floor", func(b *testing.B) {
			floor = measure(b, lines, size, func(l []byte) error {
				var env envelope
				if err := json.Unmarshal(l, &env); err != nil {
					return err
				}
				sink = json.RawMessage(bytes.Clone(l))
				return nil
			})
		})
		b.Run(w.name+"/decode", func(b *testing.B) {
			ns := measure(b, lines, size, func(l []byte) error {
				e, err := Decode(l)
				sink = e
				return err
			})
			if floor > 0 {
				b.ReportMetric(ns/floor, "x-floor")
			}
		})
	}
}

// measure decodes every line b.N times and reports per-event figures; it
// returns ns/event.
func measure(b *testing.B, lines [][]byte, size int, decode func([]byte) error) float64 {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for b.Loop() {
		for _, l := range lines {
			if err := decode(l); err != nil {
				b.Fatalf("%v: %s", err, l)
			}
		}
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	events := float64(b.N) * float64(len(lines))
	ns := float64(elapsed.Nanoseconds()) / events
	b.ReportMetric(ns, "ns/event")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/events, "allocs/event")
	return ns
}
