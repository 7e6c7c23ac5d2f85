// Command agview verifies, replays and watches AG-UI event streams.
//
// Usage:
//
//	agview verify  [--json] [--format F] [--max-event-bytes N] FILE|-
//	agview replay  [--json] [--format F] [--max-event-bytes N] FILE|-
//	agview watch   [--ws] [--input FILE] [--next FILE [--answer JSON | --cancel]] [--header K:V]... [--idle-timeout D] [--journal DSN] [--json] [--max-event-bytes N] URL
//	agview attach  [--json] [--stop] DSN [THREAD]
//	agview demo    [--json] [--seed N]
//	agview explain [RULE]
//
// Input files are JSONL (one event per line), SSE text, or a JSON array of
// events; the format is detected unless --format names it. "-" reads
// standard input.
//
// Exit status: 0 when every event was accepted (watch: the run finished),
// 1 when any event was rejected (watch: the run failed, was cut or was
// cancelled), 2 on unusable input or arguments.
//
// The output formats are a stable contract that scripts and CI depend on;
// they are documented in the repository's README and in package view (the
// JSON form of a view).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/agview/agview/internal/termsafe"
	"github.com/agview/agview/transport"
)

// Exit codes.
const (
	exitOK       = 0
	exitRejected = 1
	exitUsage    = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// env is what a command reads and writes: everything a test replaces.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// isTerminal reports whether stdout is a terminal (watch and demo show
	// the TUI only then).
	isTerminal bool
	// stderrTerminal reports whether stderr is a terminal: progress on a
	// large input is shown only then.
	stderrTerminal bool
	// progressMin is the input size from which progress is shown, and
	// progressEvery how often it is redrawn.
	progressMin   int64
	progressEvery time.Duration
	// target is the URL watch connects to, for messages.
	target string
	// idleTimeout is watch's --idle-timeout when not given
	// (transport.DefaultIdleTimeout).
	idleTimeout time.Duration
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) int
}

func commands() []command {
	return []command{
		{"verify", "check every event of a recorded stream against the protocol rules", runVerify},
		{"replay", "fold a recorded stream and print the final view", runReplay},
		{"watch", "run an agent and show the live view", runWatch},
		{"attach", "show a journaled thread live, from any machine that reaches the journal", runAttach},
		{"demo", "watch the embedded demo agent (no network, no set-up)", runDemo},
		{"explain", "explain a rule id that verify prints (R15, V7, …)", runExplain},
	}
}

const usageHead = `agview verifies, replays and watches AG-UI event streams.

Usage:
  agview <command> [flags] [args]

Commands:
`

const usageTail = `
Run "agview <command> --help" for a command's flags and examples.

Exit status: 0 all events accepted, 1 an event was rejected (watch: the run
failed, was cut or was cancelled), 2 unusable input or arguments.
`

func usage(w io.Writer) {
	fmt.Fprint(w, usageHead)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, usageTail)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, isTerminal: isTerminal(stdout),
		stderrTerminal: isTerminal(stderr), progressMin: 16 << 20, progressEvery: 200 * time.Millisecond,
		idleTimeout: transport.DefaultIdleTimeout}
	return e.dispatch(ctx, args)
}

func (e *env) dispatch(ctx context.Context, args []string) int {
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		usage(e.stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	if c, ok := closest(args[0]); ok {
		e.errorf("agview: unknown command %q; did you mean %q?", args[0], c)
		e.errorf("Run \"agview help\" for the commands.")
		return exitUsage
	}
	e.errorf("agview: unknown command %q", args[0])
	fmt.Fprintln(e.stderr)
	usage(e.stderr)
	return exitUsage
}

// closest returns the command name a mistyped one most likely meant: the
// one at the smallest edit distance (letters added, removed, changed or two
// swapped), when that is at most 2 and unique, or the one it begins.
func closest(typed string) (string, bool) {
	typed = strings.ToLower(typed)
	best, bestD, ties := "", 3, 0
	for _, c := range commands() {
		if len(typed) >= 3 && strings.HasPrefix(c.name, typed) {
			return c.name, true
		}
		switch d := editDistance(typed, c.name); {
		case d < bestD:
			best, bestD, ties = c.name, d, 0
		case d == bestD:
			ties++
		}
	}
	return best, best != "" && ties == 0
}

// editDistance is the optimal string alignment distance between a and b.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// isTerminal reports whether w is a terminal: a character device is not
// enough (/dev/null is one, and "agview watch URL > /dev/null" must not try
// to open a terminal UI).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// errorf writes one line to standard error. The line may quote the agent,
// a recording or a journal (ids, error messages): what a terminal would
// interpret in it is escaped (termsafe.Escape), so that it cannot retitle
// the window, clear the screen or forge lines.
func (e *env) errorf(format string, args ...any) {
	fmt.Fprintln(e.stderr, termsafe.Escape(fmt.Sprintf(format, args...)))
}
