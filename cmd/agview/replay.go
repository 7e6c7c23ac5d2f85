package main

import (
	"context"
	"fmt"
	"io"

	"github.com/agview/agview/internal/jsonindent"
	"github.com/agview/agview/view"
)

const replayHelp = `Folds a recorded stream into the final view and prints it: by default a
readable tree of the runs, the invocation tree (names, statuses, message
excerpts, tool calls, steps) and the state; with --json, the view's stable JSON
form (keys messages, state, pendingInterrupts, runs, invocations, diagnostics;
documented in package view). The view is printed whether or not events were
rejected. A file journal's thread file (DIR/THREAD.jsonl, see "agview attach")
replays as the client that recorded it saw it: its input and end lines begin
and end runs.

Rejected events are listed on standard error as "agview verify" lists them.

Exit status: 0 every event accepted, 1 any event rejected, 2 unusable input
(with --json, {"verdict":"error","error":"..."}).

Examples:
  agview replay run.jsonl
  agview replay --json run.jsonl | jq '.invocations[] | {subagentRunId, status}'
  agview replay --format sse - < recording.txt
`

func runReplay(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "replay", "[--json] [--format F] [--max-event-bytes N] FILE|-", replayHelp)
	asJSON := fs.Bool("json", false, "print the view's JSON form instead of the tree")
	var format formatFlag
	fs.Var(&format, "format", "input format: auto, jsonl, sse or json (a JSON array)")
	maxBytes := maxEventBytes(fs)
	pos, code, done := parseCommand(e, fs, args)
	if done {
		return code
	}
	path, err := fileArg("replay", pos)
	if err != nil {
		return e.fail("replay", *asJSON, err)
	}
	rec := &recording{path: path, format: format.f, maxEventBytes: *maxBytes}
	f, err := foldFile(ctx, e, rec)
	if err != nil {
		return e.fail("replay", *asJSON, err)
	}
	if err := printView(e, f.v, *asJSON); err != nil {
		fmt.Fprintf(e.stderr, "agview replay: %v\n", err)
		return exitUsage
	}
	if n := f.v.ViolationCount(); n > 0 {
		// The view shows what was folded; say which events were refused, as
		// verify does.
		for _, d := range f.v.Diagnostics() {
			if d.Kind == view.DiagViolation {
				fmt.Fprintf(e.stderr, "agview replay: %s: %s\n", rec.name(), newDiagnostic(f, d))
			}
		}
		fmt.Fprintf(e.stderr, "agview replay: %s: %d of %d events rejected (left out of the view above)\n",
			rec.name(), n, f.v.EventCount())
		return exitRejected
	}
	return exitOK
}

// printView writes v as indented JSON or as the readable tree, as it goes:
// neither is built whole in memory. The JSON is what json.MarshalIndent(v,
// "", "  ") returns, and a newline.
func printView(e *env, v *view.View, asJSON bool) error {
	if asJSON {
		w := jsonindent.NewWriter(e.stdout, jsonindent.Options{Indent: "  ", EscapeHTML: true})
		if err := v.WriteJSON(w); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		_, err := io.WriteString(e.stdout, "\n")
		return err
	}
	return writeTree(e.stdout, v)
}
