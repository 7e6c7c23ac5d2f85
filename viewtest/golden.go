package viewtest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agview/agview/view"
)

var update = flag.Bool("update", false, "rewrite the golden files of viewtest.Golden")

// Option changes how a view is normalised.
type Option func(*normalizer)

// AgentIDs also replaces the ids an agent mints (message, tool call,
// subagent run and interrupt ids) by placeholders <id-N>, numbered in order
// of first appearance, for agents that mint them at random.
func AgentIDs() Option { return func(n *normalizer) { n.agentIDs = true } }

// KeepRunIDs keeps thread and run ids as they are, for tests that fix them.
func KeepRunIDs() Option { return func(n *normalizer) { n.keepRuns = true } }

// Normalize returns v's JSON form (as "agview replay --json" prints it,
// indented) with what changes from run to run replaced by placeholders:
// thread ids by <thread-N>, run ids by <run-N>, ids the client minted for
// legacy THINKING events by <minted-N>, "timestamp" members by
// "<timestamp>", and with AgentIDs every other id by <id-N>, each numbered
// in order of first appearance. An id is replaced wherever it appears as a
// whole string or as an object key (a state keyed by subagent id), and
// inside diagnostic messages where quoted ('id'). A placeholder already in
// the form is kept as it is, and no id takes its name: normalising a
// normalised form (a golden file) gives it back unchanged.
func Normalize(v *view.View, opts ...Option) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return NormalizeJSON(b, opts...)
}

// NormalizeJSON is Normalize on a view's JSON form, e.g. the output of
// "agview replay --json".
func NormalizeJSON(form []byte, opts ...Option) ([]byte, error) {
	var doc any
	d := json.NewDecoder(bytes.NewReader(form))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("viewtest: not a view's JSON form: %w", err)
	}
	n := &normalizer{ids: map[string]string{}, counts: map[string]int{}}
	for _, o := range opts {
		o(n)
	}
	n.reserve(doc)
	n.collect(doc, "")
	doc = n.replace(doc, "")
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

type normalizer struct {
	agentIDs, keepRuns bool
	ids                map[string]string // id → placeholder
	counts             map[string]int    // kind → ids seen
	quoted             *strings.Replacer
}

// idKind says which kind of id a member named key holds, "" for none.
func (n *normalizer) idKind(key, path string) string {
	switch key {
	case "threadId":
		if !n.keepRuns {
			return "thread"
		}
	case "runId", "parentRunId":
		if !n.keepRuns {
			return "run"
		}
	case "id", "messageId", "subagentRunId", "parentSubagentRunId", "parentToolCallId", "parentMessageId",
		"toolCallId", "interruptId", "children", "messageIds", "toolCallIds", "interruptIds":
		if strings.HasPrefix(path, "/diagnostics") {
			return ""
		}
		return "id"
	}
	return ""
}

var minted = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// placeholder matches the placeholders Normalize writes.
var placeholder = regexp.MustCompile(`^<(?:thread|run|minted|id)-[1-9][0-9]*>$`)

// reserve keeps the placeholders doc already holds (a golden file is
// normalised again when it differs) as they are: each stands for itself,
// and no id is given its name, so that normalising a normalised document
// changes nothing and numbers nothing anew.
func (n *normalizer) reserve(x any) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			n.reserveString(k)
			n.reserve(v)
		}
	case []any:
		for _, e := range x {
			n.reserve(e)
		}
	case string:
		n.reserveString(x)
	}
}

func (n *normalizer) reserveString(s string) {
	if placeholder.MatchString(s) {
		n.ids[s] = s
	}
}

func (n *normalizer) see(kind, id string) {
	if id == "" {
		return
	}
	if _, ok := n.ids[id]; ok {
		return
	}
	if kind == "id" {
		switch {
		case minted.MatchString(id):
			kind = "minted"
		case !n.agentIDs:
			return
		}
	}
	for {
		n.counts[kind]++
		p := "<" + kind + "-" + strconv.Itoa(n.counts[kind]) + ">"
		if _, taken := n.ids[p]; !taken {
			n.ids[id] = p
			return
		}
	}
}

// collect walks doc in order and numbers the ids it finds.
func (n *normalizer) collect(x any, path string) {
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			p := path + "/" + k
			if kind := n.idKind(k, path); kind != "" {
				switch v := x[k].(type) {
				case string:
					n.see(kind, v)
				case []any:
					for _, e := range v {
						if s, ok := e.(string); ok {
							n.see(kind, s)
						}
					}
				}
			}
			n.collect(x[k], p)
		}
	case []any:
		for i, e := range x {
			n.collect(e, path+"/"+strconv.Itoa(i))
		}
	}
}

// sortedKeys returns the keys in the order encoding/json writes them, which
// is the view's documented order only for structs; a decoded map has none,
// so numbering follows sorted keys within an object and array order across
// objects: stable for the same view.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (n *normalizer) replace(x any, path string) any {
	switch x := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			if k == "timestamp" {
				out[k] = "<timestamp>"
				continue
			}
			v = n.replace(v, path+"/"+k)
			if p, ok := n.ids[k]; ok {
				// A document keyed by id (a state holding one entry per
				// subagent, as the demo swarm's does).
				k = p
			}
			out[k] = v
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = n.replace(e, path+"/"+strconv.Itoa(i))
		}
		return x
	case string:
		if p, ok := n.ids[x]; ok {
			return p
		}
		if strings.HasPrefix(path, "/diagnostics/") && strings.HasSuffix(path, "/message") {
			return n.quotedReplacer().Replace(x)
		}
		return x
	}
	return x
}

// quotedReplacer replaces 'id' by 'placeholder' in diagnostic messages.
func (n *normalizer) quotedReplacer() *strings.Replacer {
	if n.quoted == nil {
		var pairs []string
		for id, p := range n.ids {
			pairs = append(pairs, "'"+id+"'", "'"+p+"'")
		}
		n.quoted = strings.NewReplacer(pairs...)
	}
	return n.quoted
}

// Golden compares v, normalised (Normalize with opts), with the golden file
// testdata/NAME (relative to the test's package directory), normalised the
// same way, and fails t with at most a few readable differences when they
// differ. The file may be what "agview replay --json" printed for a
// recording. Run the test with -update to write the file instead.
func Golden(t testing.TB, v *view.View, name string, opts ...Option) {
	t.Helper()
	got, err := Normalize(v, opts...)
	if err != nil {
		t.Fatalf("viewtest: %v", err)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("viewtest: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("viewtest: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("viewtest: golden file %s: %v (run the test with -update to write it)", path, err)
	}
	if bytes.Equal(want, got) {
		return
	}
	// The file may have been written by hand or by "agview replay --json":
	// normalise it the same way, so that only what differs counts.
	if nw, err := NormalizeJSON(want, opts...); err == nil {
		want = nw
	}
	diffs, err := Diff(want, got)
	if err != nil {
		t.Fatalf("viewtest: golden file %s: %v", path, err)
	}
	if len(diffs) == 0 {
		return // the same document, written differently
	}
	t.Errorf("viewtest: the view differs from %s (run with -update to accept it):\n%s", path, FormatDiffs(diffs, 5))
}

// Updating reports whether the test binary runs with -update.
func Updating() bool { return *update }

// SetUpdate sets what -update says, for tests of code that writes golden
// files.
func SetUpdate(on bool) { *update = on }
