package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/agview/agview/client"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// inputError is unusable input: a file that cannot be read or framed. It
// makes a command exit 2.
type inputError struct {
	name string
	err  error
}

func (e *inputError) Error() string { return e.name + ": " + e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// foldFile reads a recorded stream (path "-" = stdin) and folds every frame
// into a fresh view. Rejected events are recorded in the view's diagnostics;
// a stream that ends mid-run is recorded as a warning (G12). The error is an
// *inputError when the input is unusable: the view then holds what was
// folded before the failure.
func foldFile(ctx context.Context, e *env, path string, format transport.Format) (*view.View, error) {
	var frames func(yield func(transport.Frame, error) bool)
	name := path
	if path == "-" {
		name = "standard input"
		frames = transport.ReadFrames(ctx, e.stdin, format, nil)
	} else {
		frames = transport.ReadFileFrames(ctx, path, format, nil)
	}
	// Nothing reads the view before the end: a Builder folds the frames
	// without making a view per event. A file journal's input and end
	// lines begin and end runs as they did for the client that recorded
	// them (client.JournalFolder).
	b := reducer.NewBuilder(view.New())
	jf := client.NewJournalFolder(b, name)
	for f, err := range frames {
		if err != nil {
			if errors.Is(err, transport.ErrIncomplete) {
				// The stream ended cleanly with a run still open: a warning,
				// recorded by End below.
				break
			}
			return b.End(err), &inputError{name: name, err: err}
		}
		if r := journal.ParseLine(f.Data); r.Kind != journal.KindEvent {
			jf.Fold(r)
			continue
		}
		_ = b.FoldJSON(f.Data) // a refusal is recorded in the view
	}
	return b.End(nil), nil
}

// parseArgs parses flags that may stand before or after the positional
// arguments ("agview verify FILE --json" works as well as "--json FILE").
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "-" || !strings.HasPrefix(args[0], "-") {
			pos = append(pos, args[0])
			args = args[1:]
			continue
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
	}
}

// newFlagSet returns a flag set whose errors and help go to e.stderr / e.stdout
// with the command's usage text.
func newFlagSet(e *env, name, synopsis, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		w := e.stderr
		fmt.Fprintf(w, "Usage: agview %s %s\n\n%s\nFlags:\n", name, synopsis, help)
		fs.PrintDefaults()
	}
	return fs
}

// parseCommand parses a command's flags; it returns the positional arguments
// and, when parsing ended the command (help or a bad flag), the exit code.
func parseCommand(e *env, fs *flag.FlagSet, args []string) ([]string, int, bool) {
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(e.stdout)
		old := e.stderr
		e.stderr = e.stdout
		fs.Usage()
		e.stderr = old
		return nil, exitOK, true
	}
	if err != nil {
		return nil, exitUsage, true
	}
	return pos, 0, false
}

// formatFlag is the --format flag.
type formatFlag struct{ f transport.Format }

func (f *formatFlag) String() string { return f.f.String() }
func (f *formatFlag) Set(s string) error {
	v, err := transport.ParseFormat(s)
	if err != nil {
		return err
	}
	f.f = v
	return nil
}

// fileArg checks that exactly one FILE argument was given.
func fileArg(e *env, cmd string, pos []string) (string, bool) {
	if len(pos) != 1 {
		fmt.Fprintf(e.stderr, "agview %s: want exactly one FILE argument (or - for standard input), got %d\n", cmd, len(pos))
		return "", false
	}
	return pos[0], true
}
