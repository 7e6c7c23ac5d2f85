package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/agview/agview/internal/termsafe"
	"github.com/agview/agview/view"
)

const verifyHelp = `Runs every event of a recorded stream through the reducer and reports each
rejected event as "line L: event I (TYPE): RULE: message", then a summary.
Warnings (unknown event types, patches that could not be applied, a stream
that ends mid-run) are listed apart and do not fail verification. "agview
explain RULE" explains a rule.

Events are counted from 0 (event I is the stream's I+1-th event), lines from 1
as an editor counts them; lines are named for line-based recordings (JSONL,
SSE text). With --json, "rejectAt" and each diagnostic's "index" are the
0-based event index, and "line" the 1-based line where known.

A protobuf recording (the body of an application/vnd.ag-ui.event+proto
answer, which the reference server sends whenever the request's Accept admits
it) is detected, or named with --format proto; it is checked as JSON is.

A recording with no event, or with events but no run, is unusable input.

Exit status: 0 every event accepted, 1 any event rejected, 2 unusable input
(with --json, {"verdict":"error","error":"..."}).

Examples:
  agview verify run.jsonl
  agview verify --json recording.sse | jq .rejectAt
  curl -sN -X POST -H 'Accept: text/event-stream' -d @input.json "$AGENT" | agview verify -
  curl -sN -X POST -H 'Accept: application/vnd.ag-ui.event+proto' -d @input.json "$AGENT" | agview verify -
`

func runVerify(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "verify", "[--json] [--format F] [--max-event-bytes N] FILE|-", verifyHelp)
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	var format formatFlag
	fs.Var(&format, "format", formatUsage)
	maxBytes := maxEventBytes(fs)
	pos, code, done := parseCommand(e, fs, args)
	if done {
		return code
	}
	path, err := fileArg("verify", pos)
	if err != nil {
		return e.fail("verify", *asJSON, err)
	}
	rec := &recording{path: path, format: format.f, maxEventBytes: *maxBytes}
	if err := e.useVector("verify", rec); err != nil {
		return e.fail("verify", *asJSON, err)
	}
	f, err := foldFile(ctx, e, rec)
	if err != nil {
		return e.fail("verify", *asJSON, err)
	}
	rep := newVerifyReport(f)
	if *asJSON {
		if err := printJSON(e.stdout, rep); err != nil {
			e.errorf("agview verify: %v", err)
			return exitUsage
		}
	} else {
		rep.writeText(e.stdout)
	}
	if rep.Verdict == "reject" {
		first := rep.Violations[0]
		e.errorf("agview verify: %s: %d of %d events rejected; first: %s: %s",
			rec.name(), rep.rejected, rep.Events, first.place(), first.Rule)
		return exitRejected
	}
	return exitOK
}

func displayName(path string) string {
	if path == "-" {
		return "standard input"
	}
	return termsafe.Escape(path)
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
	// ViolationsOmitted and WarningsOmitted count the diagnostics left out
	// between the first and the last diagShown of each list (left out of
	// the JSON when none are).
	ViolationsOmitted int `json:"violationsOmitted,omitempty"`
	WarningsOmitted   int `json:"warningsOmitted,omitempty"`
	// rejected is the number of events rejected, omitted ones included.
	rejected int
}

// diagShown is how many diagnostics of each kind (violations, warnings)
// the output shows at the start and again at the end: a recording of a
// million refused events prints 2·diagShown lines and one counting the
// rest, not a million (3 MB of "{}" lines printed 182 MB with verify
// --json).
const diagShown = 50

// diagList keeps the first diagShown and the last diagShown diagnostics
// added to it, and counts the others.
type diagList struct {
	head    []diagnostic
	tail    []diagnostic // a ring of the last ones, from next
	next    int
	omitted int
}

func (l *diagList) add(d diagnostic) {
	switch {
	case len(l.head) < diagShown:
		l.head = append(l.head, d)
	case len(l.tail) < diagShown:
		l.tail = append(l.tail, d)
	default:
		l.tail[l.next] = d
		l.next = (l.next + 1) % diagShown
		l.omitted++
	}
}

// shown returns the diagnostics kept, in order.
func (l *diagList) shown() []diagnostic {
	out := make([]diagnostic, 0, len(l.head)+len(l.tail))
	out = append(out, l.head...)
	out = append(out, l.tail[l.next:]...)
	return append(out, l.tail[:l.next]...)
}

// writeTo writes the kept diagnostics, one a line after indent, with a
// line counting the omitted ones where they were.
func (l *diagList) writeTo(w io.Writer, indent, what string) {
	for _, d := range l.head {
		fmt.Fprintf(w, "%s%s\n", indent, d)
	}
	if l.omitted > 0 {
		fmt.Fprintf(w, "%s… %s not shown (the first and last %d are)\n", indent, plural(l.omitted, "more "+what), diagShown)
	}
	for i := range l.tail {
		fmt.Fprintf(w, "%s%s\n", indent, l.tail[(l.next+i)%len(l.tail)])
	}
}

// diagnostics splits f's diagnostics into violations and warnings, each
// bounded.
func diagnostics(f *folded) (viols, warns *diagList) {
	viols, warns = &diagList{}, &diagList{}
	for _, d := range f.v.Diagnostics() {
		if d.Kind == view.DiagViolation {
			viols.add(newDiagnostic(f, d))
		} else {
			warns.add(newDiagnostic(f, d))
		}
	}
	return viols, warns
}

type diagnostic struct {
	Index int `json:"index"`
	// Line is the 1-based line where the event began in a line-based
	// recording, 0 (left out) when unknown.
	Line    int    `json:"line,omitempty"`
	Type    string `json:"type"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
	// end marks a diagnostic about the stream as a whole (it ended
	// mid-run, it broke), not about one event.
	end bool
}

func newVerifyReport(f *folded) *verifyReport {
	v := f.v
	viols, warns := diagnostics(f)
	_, warnTotal := diagCounts(v)
	rep := &verifyReport{Verdict: "accept", Events: v.EventCount(), Violations: viols.shown(), Warnings: warns.shown(),
		rejected: v.ViolationCount()}
	// The view counts every diagnostic, even one it does not keep.
	rep.WarningsOmitted = max(warns.omitted, warnTotal-len(rep.Warnings))
	// The view counts every violation, even one it does not keep.
	rep.ViolationsOmitted = max(viols.omitted, rep.rejected-len(rep.Violations))
	if len(rep.Violations) > 0 {
		first := rep.Violations[0]
		rep.Verdict = "reject"
		rep.RejectAt = &first.Index
		rep.Rule = first.Rule
		rep.Error = first.Message
	}
	return rep
}

func newDiagnostic(f *folded, d view.Diagnostic) diagnostic {
	return diagnostic{
		Index: d.Index, Line: f.line(d.Index), Type: string(d.Type), Rule: d.Rule, Message: d.Message,
		end: d.Index >= f.v.EventCount() && d.Type == "",
	}
}

// place names where d is: "line L: event I (TYPE)", or "end of stream after
// N events".
func (d diagnostic) place() string {
	if d.end {
		return fmt.Sprintf("end of stream after %d events", d.Index)
	}
	var b strings.Builder
	if d.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", d.Line)
	}
	fmt.Fprintf(&b, "event %d", d.Index)
	if d.Type != "" {
		fmt.Fprintf(&b, " (%s)", d.Type)
	}
	return b.String()
}

// String is the diagnostic's line, with what a terminal would interpret
// escaped (its type and message may quote the recording).
func (d diagnostic) String() string {
	// The place names the type: a message that starts with it and a JSON
	// pointer (a decoding error or warning, "STATE_DELTA /delta/0/path: …")
	// goes on from the pointer.
	msg := d.Message
	if rest, ok := strings.CutPrefix(msg, d.Type+" /"); ok && d.Type != "" {
		msg = "/" + rest
	}
	return termsafe.Escape(d.place() + ": " + d.Rule + ": " + msg)
}

func (r *verifyReport) writeText(w io.Writer) {
	listOf(r.Violations, r.ViolationsOmitted).writeTo(w, "", "violation")
	if r.Verdict == "accept" {
		fmt.Fprintf(w, "ok: %d events\n", r.Events)
	} else {
		fmt.Fprintf(w, "rejected: %d of %d events\n", r.rejected, r.Events)
	}
	if n := len(r.Warnings) + r.WarningsOmitted; n > 0 {
		fmt.Fprintf(w, "warnings (%d):\n", n)
		listOf(r.Warnings, r.WarningsOmitted).writeTo(w, "  ", "warning")
	}
}

// listOf returns the diagList that shows ds (as diagList.shown returned
// them) with omitted left out after the first diagShown.
func listOf(ds []diagnostic, omitted int) *diagList {
	n := min(len(ds), diagShown)
	return &diagList{head: ds[:n], tail: ds[n:], omitted: omitted}
}
