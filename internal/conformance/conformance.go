// Package conformance loads the AG-UI conformance vectors kept in the
// module's testdata/conformance folder, for the tests of every package that
// must run them (event, reducer, transport, cmd/agview): the event vectors
// (Load) and the client history vectors (LoadClient: what the reference
// client holds and sends next when it starts from a history), with the
// comparisons their README prescribes (CheckFinal, CheckInput).
//
// # Concurrency
//
// Load returns fresh values on every call; they may be shared read-only.
package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Vector is one conformance vector: a wire event stream and what a consumer
// must make of it (testdata/conformance/README.md).
type Vector struct {
	// Name is the file name without ".json"; its prefix is the category.
	Name string `json:"name"`
	// Rule says what the vector tests.
	Rule string `json:"rule"`
	// Events is the stream, one raw wire JSON value per event.
	Events []json.RawMessage `json:"events"`
	// Expect is the expected outcome.
	Expect Expect `json:"expect"`
	// Deviation, when set, says why agview differs from the reference client.
	Deviation string `json:"deviation,omitempty"`
}

// Expect is a vector's expected outcome.
type Expect struct {
	// Verdict is "accept" or "reject".
	Verdict string `json:"verdict"`
	// RejectAt is the index of the first rejected event, or nil.
	RejectAt *int `json:"rejectAt"`
	// Rule is the rule id the rejection is about, where the vector names one.
	Rule string `json:"rule,omitempty"`
	// ErrorStage is "schema", "chunks" or "verify" when the vector says at
	// which stage the reference rejects the event.
	ErrorStage string `json:"errorStage,omitempty"`
	// ErrorPath is the path of the offending field for schema rejections,
	// with "/" between segments and no leading slash (e.g. "outcome/interruptIds").
	ErrorPath string `json:"errorPath,omitempty"`
	// Messages, State and PendingInterrupts are the final values for accepted
	// streams (JSON null for rejected ones).
	Messages          json.RawMessage `json:"messages"`
	State             json.RawMessage `json:"state"`
	PendingInterrupts json.RawMessage `json:"pendingInterrupts"`
}

// Accept reports whether the vector's verdict is "accept".
func (v *Vector) Accept() bool { return v.Expect.Verdict == "accept" }

// Dir returns the absolute path of testdata/conformance/vectors in this module.
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("conformance: cannot locate the module")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "conformance", "vectors")
}

// SharedDir returns the shared conformance folder beside the module
// (../shared/conformance/vectors) and whether it exists. A clone of the
// repository elsewhere has none.
func SharedDir() (string, bool) {
	d := filepath.Join(Dir(), "..", "..", "..", "..", "shared", "conformance", "vectors")
	st, err := os.Stat(d)
	return d, err == nil && st.IsDir()
}

// Load reads every vector, sorted by name.
func Load() ([]*Vector, error) {
	return LoadDir(Dir())
}

// LoadDir reads every *.json vector in dir, sorted by name.
func LoadDir(dir string) ([]*Vector, error) {
	return loadDir(dir, "vectors", func(v *Vector) (*string, error) { return &v.Name, nil })
}

// loadDir reads every *.json file in dir as a T, sorted by name. named
// returns where a T keeps its name (filled from the file name when the file
// gives none) and refuses a T that is not what the folder should hold.
func loadDir[T any](dir, what string, named func(*T) (*string, error)) ([]*T, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	type entry struct {
		v    *T
		name string
	}
	var read []entry
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("conformance: %w", err)
		}
		v := new(T)
		if err := json.Unmarshal(b, v); err != nil {
			return nil, fmt.Errorf("conformance: %s: %w", p, err)
		}
		name, err := named(v)
		if err != nil {
			return nil, fmt.Errorf("conformance: %s: %w", p, err)
		}
		if *name == "" {
			*name = strings.TrimSuffix(e.Name(), ".json")
		}
		read = append(read, entry{v, *name})
	}
	if len(read) == 0 {
		return nil, fmt.Errorf("conformance: no %s in %s", what, dir)
	}
	sort.SliceStable(read, func(i, j int) bool { return read[i].name < read[j].name })
	out := make([]*T, len(read))
	for i, e := range read {
		out[i] = e.v
	}
	return out, nil
}

// JSONL returns the vector's events as JSON Lines, one event per line.
func (v *Vector) JSONL() []byte {
	var b []byte
	for _, e := range v.Events {
		b = append(b, compact(e)...)
		b = append(b, '\n')
	}
	return b
}

func compact(raw json.RawMessage) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}
