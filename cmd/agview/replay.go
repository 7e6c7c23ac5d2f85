package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

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
and end runs. A protobuf recording (the body of an
application/vnd.ag-ui.event+proto answer) is detected, or named with
--format proto.

Rejected events are listed on standard error as "agview verify" lists them.

With --emit jsonl or --emit proto nothing is folded: the recording is
converted, frame by frame, to JSON Lines or to protobuf frames on standard
output, as it was sent (mistakes included, where the target encoding can
express them), so that a binary stream can be read. A frame the target
encoding cannot express is left out and reported on standard error.

Exit status: 0 every event accepted (with --emit: every frame converted),
1 any event rejected (with --emit: a frame left out), 2 unusable input
(with --json, {"verdict":"error","error":"..."}).

Examples:
  agview replay run.jsonl
  agview replay --json run.jsonl | jq '.invocations[] | {subagentRunId, status}'
  agview replay --format sse - < recording.txt
  agview replay --emit jsonl run.bin | jq -c .
  curl -sN -H 'Accept: application/vnd.ag-ui.event+proto' -d @input.json $AGENT | agview replay --emit jsonl -
`

func runReplay(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "replay", "[--json] [--format F] [--max-event-bytes N] [--emit jsonl|proto] FILE|-", replayHelp)
	asJSON := fs.Bool("json", false, "print the view's JSON form instead of the tree")
	var format formatFlag
	fs.Var(&format, "format", formatUsage)
	maxBytes := maxEventBytes(fs)
	emit := fs.String("emit", "", "convert instead of folding: write the frames as jsonl or as proto")
	pos, code, done := parseCommand(e, fs, args)
	if done {
		return code
	}
	path, err := fileArg("replay", pos)
	if err != nil {
		return e.fail("replay", *asJSON, err)
	}
	rec := &recording{path: path, format: format.f, maxEventBytes: *maxBytes}
	switch *emit {
	case "":
	case "jsonl", "proto":
		if *asJSON {
			return e.fail("replay", false, errors.New("--emit and --json exclude each other"))
		}
		return e.convert(ctx, rec, *emit == "proto")
	default:
		return e.fail("replay", *asJSON, fmt.Errorf("--emit %q: want jsonl or proto", *emit))
	}
	if err := e.useVector("replay", rec); err != nil {
		return e.fail("replay", *asJSON, err)
	}
	f, err := foldFile(ctx, e, rec)
	if err != nil {
		return e.fail("replay", *asJSON, err)
	}
	if err := printView(e, f.v, *asJSON); err != nil {
		e.errorf("agview replay: %v", err)
		return exitUsage
	}
	if n := f.v.ViolationCount(); n > 0 {
		// The view shows what was folded; say which events were refused, as
		// verify does (the first and last diagShown).
		viols, _ := diagnostics(f)
		shown := viols.shown()
		listOf(shown, max(viols.omitted, n-len(shown))).writeTo(lineWriter{e, "agview replay: " + rec.name() + ": "}, "", "violation")
		e.errorf("agview replay: %s: %d of %d events rejected (left out of the view above)", rec.name(), n, f.v.EventCount())
		return exitRejected
	}
	return exitOK
}

// lineWriter writes each line written to it on e's standard error, after
// prefix, as e.errorf does.
type lineWriter struct {
	e      *env
	prefix string
}

func (w lineWriter) Write(p []byte) (int, error) {
	for l := range strings.Lines(string(p)) {
		w.e.errorf("%s%s", w.prefix, strings.TrimSuffix(l, "\n"))
	}
	return len(p), nil
}

// jsonIndentDepth is how many levels of the JSON output are indented;
// deeper ones are compact. It bounds the output relative to the input: a
// state nested 9,999 deep (20 KB) printed 200 MB when every level was
// indented, and prints about 22 KB now. No line is indented more than 64
// spaces, and the output is at most 33.5 times the compact JSON of the view
// (jsonindent.Options.IndentDepth), about its own size for deep documents.
const jsonIndentDepth = 32

// jsonOptions are the options of every JSON the CLI prints: as
// json.MarshalIndent(v, "", "  ") writes it up to jsonIndentDepth levels,
// compact below, with what a terminal would interpret and what is not
// UTF-8 escaped (a recording may hold both).
var jsonOptions = jsonindent.Options{Indent: "  ", EscapeHTML: true, IndentDepth: jsonIndentDepth, Safe: true}

// printView writes v as indented JSON or as the readable tree, as it goes:
// neither is built whole in memory. The JSON is as jsonOptions say, and a
// newline.
func printView(e *env, v *view.View, asJSON bool) error {
	if asJSON {
		w := jsonindent.NewWriter(e.stdout, jsonOptions)
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

// printJSON writes x, marshalled, as printView writes a view.
func printJSON(out io.Writer, x any) error {
	b, err := json.Marshal(x)
	if err != nil {
		return err
	}
	w := jsonindent.NewWriter(out, jsonOptions)
	w.Write(b)
	if err := w.Close(); err != nil {
		return err
	}
	_, err = io.WriteString(out, "\n")
	return err
}
