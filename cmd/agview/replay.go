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
rejected. A protobuf recording (the body of an
application/vnd.ag-ui.event+proto answer) is detected, or named with
--format proto.

With --emit jsonl or --emit proto nothing is folded: the recording is
converted, frame by frame, to JSON Lines or to protobuf frames on standard
output, as it was sent (mistakes included, where the target encoding can
express them), so that a binary stream can be read. A frame the target
encoding cannot express is left out and reported on standard error.

Exit status: 0 every event accepted (with --emit: every frame converted),
1 any event rejected (every frame not converted), 2 unusable input.

Examples:
  agview replay run.jsonl
  agview replay --json run.jsonl | jq '.invocations[] | {subagentRunId, status}'
  agview replay --format sse - < recording.txt
  agview replay --emit jsonl run.bin | jq -c .
  curl -sN -H 'Accept: application/vnd.ag-ui.event+proto' -d @input.json $AGENT | agview replay --emit jsonl -
`

func runReplay(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "replay", "[--json] [--format F] [--emit jsonl|proto] FILE|-", replayHelp)
	asJSON := fs.Bool("json", false, "print the view's JSON form instead of the tree")
	var format formatFlag
	fs.Var(&format, "format", formatUsage)
	emit := fs.String("emit", "", "convert instead of folding: write the frames as jsonl or as proto")
	pos, code, done := parseCommand(e, fs, args)
	if done {
		return code
	}
	path, ok := fileArg(e, "replay", pos)
	if !ok {
		return exitUsage
	}
	switch *emit {
	case "":
	case "jsonl", "proto":
		if *asJSON {
			fmt.Fprintln(e.stderr, "agview replay: --emit and --json exclude each other")
			return exitUsage
		}
		return e.convert(ctx, path, format.f, *emit == "proto")
	default:
		fmt.Fprintf(e.stderr, "agview replay: --emit %q: want jsonl or proto\n", *emit)
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
