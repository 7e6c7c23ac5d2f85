package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
)

// The client vectors' fixed names (testdata/conformance/README.md, "Client
// history vectors"): the thread the client holds, the run it starts, the run
// id of the next input, and the payload every pending interrupt is resolved
// with in nextInputResumed.
const (
	ClientThreadID  = "conformance-thread"
	ClientRunID     = "conformance-run"
	ClientNextRunID = "next-run"
	ClientPayload   = `{"approved":true}`
)

// ClientVector is one client history vector: an accepted vector's stream
// replayed by the reference client starting from a fixed history, and what
// the client holds afterwards and sends next.
type ClientVector struct {
	// Name is the file name without ".json" (the vector's in vectors/).
	Name string `json:"name"`
	// History is the client's messages before the run: the input's messages.
	History json.RawMessage `json:"history"`
	// Events is the stream, one raw wire JSON value per event.
	Events []json.RawMessage `json:"events"`
	// Expect is what the client holds and sends.
	Expect ClientExpect `json:"expect"`
}

// ClientExpect is a client vector's expected outcome.
type ClientExpect struct {
	// Messages, State and PendingInterrupts are the client's view after the
	// stream.
	Messages          json.RawMessage `json:"messages"`
	State             json.RawMessage `json:"state"`
	PendingInterrupts json.RawMessage `json:"pendingInterrupts"`
	// SentInput holds the messages of the input the client sent.
	SentInput struct {
		Messages json.RawMessage `json:"messages"`
	} `json:"sentInput"`
	// NextInput is the RunAgentInput the client builds for the next run
	// (run id ClientNextRunID), no interrupt answered.
	NextInput json.RawMessage `json:"nextInput"`
	// NextInputResumed is NextInput with every pending interrupt resolved
	// with ClientPayload; JSON null when none is pending.
	NextInputResumed json.RawMessage `json:"nextInputResumed"`
}

// Resumed reports whether the vector leaves interrupts pending, so that
// NextInputResumed is an input.
func (v *ClientVector) Resumed() bool {
	return len(v.Expect.NextInputResumed) > 0 && string(v.Expect.NextInputResumed) != "null"
}

// Input returns the RunAgentInput a client starts the vector's run with:
// thread ClientThreadID, run ClientRunID, the history, state {}.
func (v *ClientVector) Input() json.RawMessage {
	b, err := json.Marshal(map[string]any{
		"threadId": ClientThreadID, "runId": ClientRunID, "messages": v.History, "state": json.RawMessage(`{}`),
	})
	if err != nil {
		panic(err) // every member is valid JSON read from the file
	}
	return b
}

// ClientDir returns the absolute path of testdata/conformance/client in this
// module.
func ClientDir() string { return filepath.Join(Dir(), "..", "client") }

// SharedClientDir returns ../shared/conformance/client beside the module and
// whether it exists.
func SharedClientDir() (string, bool) {
	d, ok := SharedDir()
	if !ok {
		return "", false
	}
	d = filepath.Join(d, "..", "client")
	st, err := os.Stat(d)
	return d, err == nil && st.IsDir()
}

// LoadClient reads every client vector, sorted by name.
func LoadClient() ([]*ClientVector, error) { return LoadClientDir(ClientDir()) }

// LoadClientDir reads every *.json client vector in dir, sorted by name.
func LoadClientDir(dir string) ([]*ClientVector, error) {
	return loadDir(dir, "client vectors", func(v *ClientVector) (*string, error) {
		if len(v.History) == 0 || v.Events == nil || len(v.Expect.NextInput) == 0 {
			return nil, errors.New("not a client vector (history, events and expect.nextInput are required)")
		}
		return &v.Name, nil
	})
}

// CheckFinal compares the client's final messages, state and pending
// interrupts (each as JSON) with the vector's expectation, as Vector's
// CheckFinal does.
func (v *ClientVector) CheckFinal(messages, state, pendingInterrupts json.RawMessage) []string {
	e := &v.Expect
	return checkFinal(e.Messages, e.State, e.PendingInterrupts, messages, state, pendingInterrupts)
}

// CheckInput compares a RunAgentInput a client built (as JSON) with want
// (NextInput or NextInputResumed): every member as a JSON value, key order
// aside and absent keys absent, its messages as CheckFinal compares them.
func CheckInput(what string, want, got json.RawMessage) []string {
	var w, g map[string]json.RawMessage
	if err := json.Unmarshal(want, &w); err != nil {
		return []string{fmt.Sprintf("expected %s does not decode as an object: %v", what, err)}
	}
	if err := json.Unmarshal(got, &g); err != nil {
		return []string{fmt.Sprintf("%s does not decode as an object: %v", what, err)}
	}
	var diffs []string
	keys := map[string]bool{}
	for k := range w {
		keys[k] = true
	}
	for k := range g {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		wv, inW := w[k]
		gv, inG := g[k]
		switch {
		case !inW:
			diffs = append(diffs, fmt.Sprintf("%s.%s: unexpected key (got %s)", what, k, gv))
		case !inG:
			diffs = append(diffs, fmt.Sprintf("%s.%s: missing (want %s)", what, k, wv))
		case k == "messages":
			diffs = append(diffs, compareMessages(what+".messages", wv, gv)...)
		default:
			diffs = append(diffs, compareValue(what+"."+k, wv, gv)...)
		}
	}
	return diffs
}

// compareMessages compares two message lists as JSON values, a message
// whose expected id is a <minted-uuid-N> placeholder by everything but its
// id (one placeholder standing for one id).
func compareMessages(what string, wantJSON, gotJSON json.RawMessage) []string {
	var diffs []string
	var want, got []map[string]any
	if err := json.Unmarshal(wantJSON, &want); err != nil {
		return []string{fmt.Sprintf("expected %s do not decode: %v", what, err)}
	}
	if err := json.Unmarshal(gotJSON, &got); err != nil {
		return []string{fmt.Sprintf("%s do not decode as an array of objects: %v", what, err)}
	}
	seen := map[string]any{}
	for i := range want {
		id, _ := want[i]["id"].(string)
		if !minted.MatchString(id) || i >= len(got) {
			continue
		}
		if prev, ok := seen[id]; ok && prev != got[i]["id"] {
			diffs = append(diffs, fmt.Sprintf("%s[%d]: placeholder %s stands for %v and %v", what, i, id, prev, got[i]["id"]))
		}
		seen[id] = got[i]["id"]
		got[i]["id"] = id
	}
	if want == nil {
		want = []map[string]any{}
	}
	if got == nil {
		got = []map[string]any{}
	}
	if !reflect.DeepEqual(want, got) {
		diffs = append(diffs, fmt.Sprintf("%s:\n  want %s\n  got  %s", what, mustJSON(want), mustJSON(got)))
	}
	return diffs
}
