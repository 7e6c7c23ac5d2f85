package main

import (
	"context"
	"encoding/json"
	"fmt"

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

Exit status: 0 every event accepted, 1 any event rejected, 2 unusable input.

Examples:
  agview replay run.jsonl
  agview replay --json run.jsonl | jq '.invocations[] | {subagentRunId, status}'
  agview replay --format sse - < recording.txt
`

func runReplay(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "replay", "[--json] [--format F] FILE|-", replayHelp)
	asJSON := fs.Bool("json", false, "print the view's JSON form instead of the tree")
	var format formatFlag
	fs.Var(&format, "format", "input format: auto, jsonl, sse or json (a JSON array)")
	pos, code, done := parseCommand(e, fs, args)
	if done {
		return code
	}
	path, ok := fileArg(e, "replay", pos)
	if !ok {
		return exitUsage
	}
	v, err := foldFile(ctx, e, path, format.f)
	if err != nil {
		fmt.Fprintf(e.stderr, "agview replay: %v\n", err)
		return exitUsage
	}
	if err := printView(e, v, *asJSON); err != nil {
		fmt.Fprintf(e.stderr, "agview replay: %v\n", err)
		return exitUsage
	}
	if n := v.ViolationCount(); n > 0 {
		for _, d := range v.Diagnostics() {
			if d.Kind == view.DiagViolation {
				fmt.Fprintf(e.stderr, "agview replay: %s: %d events rejected; first: event %d (%s): %s: %s\n",
					displayName(path), n, d.Index, d.Type, d.Rule, d.Message)
				break
			}
		}
		return exitRejected
	}
	return exitOK
}

// printView writes v as indented JSON or as the readable tree.
func printView(e *env, v *view.View, asJSON bool) error {
	if asJSON {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	}
	return writeTree(e.stdout, v)
}
