// Package benchwork provides the shared benchmark workloads to the tests and
// benchmarks of every agview package. It is for tests and benchmarks only:
// no library or command code may import it.
//
// The workloads come from the project's generator, ../shared/bench/gen beside
// the module root (see its README): deterministic AG-UI event streams of the
// profiles chat, swarm and state, each with a manifest of what a correct
// consumer ends with. [Stream] runs the generator once per workload, with
// seed [Seed] and JSONL framing, and caches its output under testdata/bench/
// at the module root (which git ignores), so later calls and later test runs
// reuse the files. A clone of the repository alone has no ../shared: Stream
// then skips the calling test or benchmark, and [Generator] lets a caller
// that has a fallback workload choose it instead.
//
// Two workloads are generated here instead, so they need no ../shared, and
// cached the same way: [Thread], one run in which a subagent sends many short
// messages, and [ThreadRuns], many runs on one thread, each starting with a
// RUN_STARTED whose input repeats the whole history, as a client continuing
// the conversation sends it.
//
// [Lines] and [Frames] read a generated stream back, one event per element.
//
// # Concurrency
//
// All functions may be called from any goroutine. Stream generates a missing
// workload under a package mutex, so parallel tests of one binary generate it
// once. Several test binaries (go test ./... runs packages in parallel) may
// generate the same workload at the same time: each writes to temporary files
// named with its process id and renames them into place, the stream first and
// the manifest last, so a reader never sees a partial file, and a workload
// whose manifest exists is complete. The generator is deterministic, so the
// binaries write the same bytes.
package benchwork

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Seed is the generator seed of every workload: the same profile, size and
// flags always give the same bytes.
const Seed = 1

// reserved are the generator flags Stream sets itself; extra flags must not
// repeat them (with one or two leading dashes).
var reserved = map[string]bool{
	"profile": true, "events": true, "seed": true, "format": true, "o": true, "manifest": true, "q": true,
}

// mu serialises the generation of missing workloads within the process.
var mu sync.Mutex

// ModuleRoot returns the root folder of the agview module (the folder of its
// go.mod), or "" when it cannot be found. It is found from this package's
// source path, or, in a binary built with -trimpath, by walking up from the
// working directory, which go test sets to the tested package's folder.
func ModuleRoot() string {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		return filepath.Dir(filepath.Dir(filepath.Dir(file)))
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Generator returns the folder of the workload generator
// (../shared/bench/gen beside the module root) and whether it is there.
func Generator() (dir string, ok bool) {
	root := ModuleRoot()
	if root == "" {
		return "", false
	}
	dir = filepath.Join(root, "..", "shared", "bench", "gen")
	if _, err := os.Stat(filepath.Join(dir, "main.go")); err != nil {
		return dir, false
	}
	return dir, true
}

// Stream returns the paths of a generated workload, a JSONL stream and its
// manifest: testdata/bench/<name>.jsonl and <name>.manifest.json at the module
// root, where name is the profile, the number of events and the extra flags,
// as in "chat-10000" or "state-2000-state-kb100" (for extra "-state-kb",
// "100"). It runs the generator when the manifest is missing, with -profile
// profile -events events -seed [Seed] -format jsonl and extra, which are flag
// and value pairs such as "-state-kb", "100" or "-k", "4".
//
// Stream skips tb when the generator is absent, and fails tb when the
// arguments are malformed (an odd number of extra elements, a flag Stream sets
// itself, characters unsafe in a file name) or the generator fails.
func Stream(tb testing.TB, profile string, events int, extra ...string) (stream, manifest string) {
	tb.Helper()
	gen, ok := Generator()
	if !ok {
		gen = ""
	}
	return cache{gen: gen, dir: filepath.Join(ModuleRoot(), "testdata", "bench")}.stream(tb, profile, events, extra)
}

// Lines returns the non-empty lines of the file at path, without their line
// ends; a line of blanks only counts as empty. Each line is its own copy,
// clipped to its length, so a caller may keep, change or append to one
// without touching another. It fails tb when the file cannot be read.
func Lines(tb testing.TB, path string) [][]byte {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("benchwork: reading lines: %v", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var out [][]byte
	for {
		l, err := r.ReadBytes('\n') // a new slice on every call
		l = bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r"))
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l[:len(l):len(l)])
		}
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			tb.Fatalf("benchwork: reading lines of %s: %v", path, err)
		}
	}
}

// Frames returns the lines of a JSONL stream at path as wire frames, one
// event each, as [Lines] reads them.
func Frames(tb testing.TB, path string) []json.RawMessage {
	tb.Helper()
	lines := Lines(tb, path)
	out := make([]json.RawMessage, len(lines))
	for i, l := range lines {
		out[i] = l
	}
	return out
}

// cache is where Stream finds the generator (gen, "" when absent) and writes
// the workloads (dir).
type cache struct {
	gen, dir string
}

// stream is Stream for the generator and folder of c.
func (c cache) stream(tb testing.TB, profile string, events int, extra []string) (stream, manifest string) {
	tb.Helper()
	base, err := name(profile, events, extra)
	if err != nil {
		tb.Fatalf("benchwork: %v", err)
	}
	if c.gen == "" {
		tb.Skipf("benchwork: no workload generator at ../shared/bench/gen beside the module root "+
			"(a clone of the repository alone has none): cannot generate the %s workload", base)
	}
	stream = filepath.Join(c.dir, base+".jsonl")
	manifest = filepath.Join(c.dir, base+".manifest.json")
	mu.Lock()
	defer mu.Unlock()
	if _, err := os.Stat(manifest); err == nil {
		return stream, manifest
	}
	args := append([]string{"-profile", profile, "-events", strconv.Itoa(events), "-seed", strconv.Itoa(Seed),
		"-format", "jsonl"}, extra...)
	if err := generate(tb.Context(), c.gen, stream, manifest, args); err != nil {
		tb.Fatalf("benchwork: generating the %s workload: %v", base, err)
	}
	return stream, manifest
}

// generate runs the generator in folder gen with args, writing to temporary
// files beside stream and manifest that it then renames to them, the
// manifest last. It removes the temporary files when it fails.
func generate(ctx context.Context, gen, stream, manifest string, args []string) error {
	if err := os.MkdirAll(filepath.Dir(stream), 0o755); err != nil {
		return err
	}
	suffix := "." + strconv.Itoa(os.Getpid()) + ".tmp"
	tmpStream, tmpManifest := stream+suffix, manifest+suffix
	defer os.Remove(tmpStream)
	defer os.Remove(tmpManifest)
	cmd := exec.CommandContext(ctx, "go", append([]string{"run", ".", "-q", "-o", tmpStream, "-manifest", tmpManifest}, args...)...)
	cmd.Dir = gen
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go run %s %s: %w\n%s", gen, strings.Join(args, " "), err, out)
	}
	if err := os.Rename(tmpStream, stream); err != nil {
		return err
	}
	return os.Rename(tmpManifest, manifest)
}

// name returns the file name, without extension, of a workload: the profile,
// the number of events, then each extra flag (with its leading dashes) and
// its value, as in "state-2000-state-kb100". It reports malformed arguments.
func name(profile string, events int, extra []string) (string, error) {
	if !safe(profile) {
		return "", fmt.Errorf("profile %q: want letters, digits, '.', '_' or '-'", profile)
	}
	if events <= 0 {
		return "", fmt.Errorf("%s workload of %d events: want a positive number", profile, events)
	}
	if len(extra)%2 != 0 {
		return "", fmt.Errorf("extra flags %q: want flag and value pairs", extra)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s-%d", profile, events)
	for i := 0; i < len(extra); i += 2 {
		flag, value := extra[i], extra[i+1]
		bare := strings.TrimPrefix(strings.TrimPrefix(flag, "-"), "-")
		switch {
		case !strings.HasPrefix(flag, "-") || !safe(bare):
			return "", fmt.Errorf("extra flag %q: want a dash, then letters, digits, '.', '_' or '-'", flag)
		case reserved[bare]:
			return "", fmt.Errorf("extra flag %q: benchwork sets it itself", flag)
		case !safe(value):
			return "", fmt.Errorf("value %q of extra flag %q: want letters, digits, '.', '_' or '-'", value, flag)
		}
		b.WriteString(flag + value)
	}
	return b.String(), nil
}

// safe reports whether s is non-empty and holds only characters that are
// safe in a file name on every platform (no separator, no space).
func safe(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
