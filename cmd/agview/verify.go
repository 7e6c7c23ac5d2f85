package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agview/agview/view"
)

const verifyHelp = `Runs every event of a recorded stream through the reducer and reports each
rejected event as "event I (TYPE): RULE: message", then a summary. Warnings
(unknown event types, patches that could not be applied, a stream that ends
mid-run) are listed apart and do not fail verification.

Exit status: 0 every event accepted, 1 any event rejected, 2 unusable input.

Examples:
  agview verify run.jsonl
  agview verify --json recording.sse | jq .rejectAt
  curl -sN -X POST -H 'Accept: text/event-stream' -d @input.json $AGENT | agview verify -
`

func runVerify(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "verify", "[--json] [--format F] FILE|-", verifyHelp)
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	var format formatFlag
	fs.Var(&format, "format", "input format: auto, jsonl, sse or json (a JSON array)")
	pos, code, done := parseCommand(e, fs, args)
	if done {
		return code
	}
	path, ok := fileArg(e, "verify", pos)
	if !ok {
		return exitUsage
	}
	v, err := foldFile(ctx, e, path, format.f)
	if err != nil {
		fmt.Fprintf(e.stderr, "agview verify: %v\n", err)
		return exitUsage
	}
	rep := newVerifyReport(v)
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(e.stderr, "agview verify: %v\n", err)
			return exitUsage
		}
	} else {
		rep.writeText(e.stdout)
	}
	if rep.Verdict == "reject" {
		first := rep.Violations[0]
		fmt.Fprintf(e.stderr, "agview verify: %s: %d of %d events rejected; first: event %d (%s): %s\n",
			displayName(path), len(rep.Violations), rep.Events, first.Index, first.Type, first.Rule)
		return exitRejected
	}
	return exitOK
}

func displayName(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}

// verifyReport is the JSON form of "agview verify --json" (a stable contract).
type verifyReport struct {
	Verdict    string       `json:"verdict"` // "accept" or "reject"
	Events     int          `json:"events"`
	RejectAt   *int         `json:"rejectAt"`
	Rule       string       `json:"rule"`
	Error      string       `json:"error"`
	Violations []diagnostic `json:"violations"`
	Warnings   []diagnostic `json:"warnings"`
}

type diagnostic struct {
	Index   int    `json:"index"`
	Type    string `json:"type"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

func newVerifyReport(v *view.View) *verifyReport {
	rep := &verifyReport{Verdict: "accept", Events: v.EventCount(), Violations: []diagnostic{}, Warnings: []diagnostic{}}
	for _, d := range v.Diagnostics() {
		x := diagnostic{Index: d.Index, Type: string(d.Type), Rule: d.Rule, Message: d.Message}
		if d.Kind == view.DiagViolation {
			rep.Violations = append(rep.Violations, x)
		} else {
			rep.Warnings = append(rep.Warnings, x)
		}
	}
	if len(rep.Violations) > 0 {
		first := rep.Violations[0]
		rep.Verdict = "reject"
		rep.RejectAt = &first.Index
		rep.Rule = first.Rule
		rep.Error = first.Message
	}
	return rep
}

func (d diagnostic) String() string {
	if d.Type == "" {
		// A diagnostic about the stream as a whole (it ended mid-run).
		return fmt.Sprintf("end of stream after %d events: %s: %s", d.Index, d.Rule, d.Message)
	}
	// The line names the type: a message that starts with it (a decoding
	// error or warning, "STATE_DELTA /delta/0/path: …") goes on from its
	// pointer.
	msg := d.Message
	if rest, ok := strings.CutPrefix(msg, d.Type+" /"); ok {
		msg = "/" + rest
	}
	return fmt.Sprintf("event %d (%s): %s: %s", d.Index, d.Type, d.Rule, msg)
}

func (r *verifyReport) writeText(w io.Writer) {
	for _, d := range r.Violations {
		fmt.Fprintln(w, d)
	}
	if r.Verdict == "accept" {
		fmt.Fprintf(w, "ok: %d events\n", r.Events)
	} else {
		fmt.Fprintf(w, "rejected: %d of %d events\n", len(r.Violations), r.Events)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(w, "warnings (%d):\n", len(r.Warnings))
		for _, d := range r.Warnings {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
}
