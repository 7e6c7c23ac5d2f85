package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agview/agview/client"
	"github.com/agview/agview/internal/jsonindent"
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

// recording is what a command reads: a recorded stream and how to read it.
type recording struct {
	path   string // "-" means standard input
	format transport.Format
	// maxEventBytes is --max-event-bytes (0: the transport's default).
	maxEventBytes int
	// data, when not nil, is read instead of the file (a conformance
	// vector's events, see useVector).
	data []byte
}

// name is how messages name the recording.
func (r *recording) name() string { return displayName(r.path) }

// folded is a folded recording: the final view and where each event stood in
// the input, so that messages can name lines.
type folded struct {
	v *view.View
	// format is the recording's format (detected, or as named).
	format transport.Format
	// lines holds the 1-based line where each event began, by event index;
	// empty for formats that are not line-based.
	lines lineTable
	// bytes is the number of bytes read.
	bytes int64
}

// line returns the 1-based line where event i began, or 0 when unknown.
func (f *folded) line(i int) int { return f.lines.at(i) }

// lineTable is where each event of a recording began: the 1-based line of
// event i, for events 0 to n-1. It holds runs of events whose lines are
// evenly spaced (one event per line of JSONL, or per three lines of SSE),
// so that a recording of a million events costs a few runs rather than an
// entry per event; a run breaks where the spacing does (a blank line, a
// multi-line event).
type lineTable struct {
	runs []lineRun
	n    int
}

// lineRun is events first … first+n-1, which begin on lines line, line+step, ….
type lineRun struct {
	first, n   int
	line, step int
}

// add records line as where the next event began.
func (t *lineTable) add(line int) {
	i := t.n
	t.n++
	if k := len(t.runs) - 1; k >= 0 {
		r := &t.runs[k]
		switch last := r.line + (r.n-1)*r.step; {
		case r.n == 1 && line > last:
			r.step, r.n = line-last, 2
			return
		case r.n > 1 && line == last+r.step:
			r.n++
			return
		}
	}
	t.runs = append(t.runs, lineRun{first: i, n: 1, line: line})
}

// at returns the line where event i began, or 0 when unknown.
func (t *lineTable) at(i int) int {
	if i < 0 || i >= t.n {
		return 0
	}
	k := sort.Search(len(t.runs), func(k int) bool { return t.runs[k].first > i }) - 1
	r := t.runs[k]
	return r.line + (i-r.first)*r.step
}

// foldFile reads a recorded stream and folds every frame into a fresh view.
// Rejected events are recorded in the view's diagnostics; a stream that ends
// mid-run is recorded as a warning (G12). The error is an *inputError when
// the input is unusable (it cannot be read or framed, or it holds no events
// or no run): the view then holds what was folded before the failure.
func foldFile(ctx context.Context, e *env, rec *recording) (*folded, error) {
	r, closeInput, size, err := e.open(ctx, rec.path)
	if rec.data != nil {
		r, closeInput, size, err = bytes.NewReader(rec.data), func() {}, int64(len(rec.data)), nil
	}
	if err != nil {
		return &folded{v: view.New()}, &inputError{name: rec.name(), err: err}
	}
	defer closeInput()
	in := &inputReader{r: r}
	opts := &transport.Options{MaxEventBytes: rec.maxEventBytes}
	res := &folded{format: rec.format}
	prog := e.newProgress(rec.name(), size)
	// Nothing reads the view before the end: a Builder folds the frames
	// without making a view per event. A file journal's input and end
	// lines begin and end runs as they did for the client that recorded
	// them (client.JournalFolder).
	b := reducer.NewBuilder(view.New())
	jf := client.NewJournalFolder(b, rec.name())
	var ferr, tolerated error
	first := true // the first event is still to come
	for f, err := range transport.ReadFrames(ctx, in, rec.format, opts) {
		if err != nil {
			if errors.Is(err, transport.ErrIncomplete) {
				// The stream ended cleanly with a run still open: a warning,
				// recorded by End below.
				break
			}
			if errors.Is(err, io.EOF) {
				// A clean end that G18 tolerates (a last event without its
				// blank line, a last line holding no data): End records it
				// as a warning, as watch does.
				tolerated = err
				break
			}
			ferr = err
			break
		}
		if res.format == transport.FormatAuto {
			res.format = in.detected()
		}
		if r := journal.ParseLine(f.Data); r.Kind != journal.KindEvent {
			jf.Fold(r)
			prog.update(in.n, f.Index+1)
			continue
		}
		if lineBased(res.format) {
			res.lines.add(in.lineOf(f.Offset))
		}
		fold := b.FoldJSON
		if f.Proto {
			fold = b.FoldProto // a refused message names its type (its arm) itself
		}
		err := fold(f.Data) // a refusal is recorded in the view, with its type when readable
		if first {
			first = false
			if err := wrongFormat(rec, in, err); err != nil {
				prog.done()
				res.v = b.View()
				return res, &inputError{name: rec.name(), err: err}
			}
		}
		prog.update(in.n, f.Index+1)
	}
	prog.done()
	res.bytes = in.n
	if res.format == transport.FormatAuto {
		res.format = in.detected()
	}
	if ferr != nil {
		res.v = b.End(ferr)
	} else {
		res.v = b.End(tolerated)
	}
	if ferr != nil {
		return res, &inputError{name: rec.name(), err: ferr}
	}
	if err := res.usable(rec); err != nil {
		return res, &inputError{name: rec.name(), err: err}
	}
	return res, nil
}

// usable reports a recording that was read without error but cannot be what
// its reader wanted: no event at all, or events with no run and nothing
// rejected (a CI gate on such a file must not pass).
func (f *folded) usable(rec *recording) error {
	if f.v.EventCount() == 0 {
		msg := fmt.Sprintf("no events: read %d bytes", f.bytes)
		if f.bytes > 0 && rec.format != transport.FormatAuto {
			msg += fmt.Sprintf(" as %s; is it another format? (leave out --format to detect it)", rec.format)
		}
		return errors.New(msg)
	}
	if len(f.v.Runs()) == 0 && f.v.ViolationCount() == 0 {
		return fmt.Errorf("no run: %d events, none of them started a run (RUN_STARTED)", f.v.EventCount())
	}
	return nil
}

// wrongFormat returns an error when the first event of a recording read
// with --format was not JSON (foldErr) and the recording's bytes read as
// another format: an SSE file read with --format jsonl was refused line by
// line, an error per line and no hint.
func wrongFormat(rec *recording, in *inputReader, foldErr error) error {
	var se *json.SyntaxError
	if rec.format == transport.FormatAuto || rec.data != nil || !errors.As(foldErr, &se) {
		return nil
	}
	got := in.detected()
	if got == transport.FormatAuto || got == rec.format {
		return nil
	}
	return fmt.Errorf("its first event is not JSON as --format %s reads it: the file looks like %s; leave out --format to detect it (or give --format %s)",
		rec.format, got, got)
}

// lineBased reports whether events of format f begin on lines worth naming.
func lineBased(f transport.Format) bool {
	return f == transport.FormatJSONL || f == transport.FormatSSE
}

// open opens the input at path ("-": standard input). size is its size when
// known (a regular file), else -1. Canceling ctx closes a file, which
// interrupts a blocked read (a named pipe, a terminal).
func (e *env) open(ctx context.Context, path string) (r io.Reader, closeFn func(), size int64, err error) {
	if path == "-" {
		return e.stdin, func() {}, -1, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, err
	}
	size = -1
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	stop := context.AfterFunc(ctx, func() { f.Close() })
	return f, func() { stop(); f.Close() }, size, nil
}

// inputReader counts what passes through it: the bytes, and the offsets of
// line ends not yet consumed by lineOf, so that an event's byte offset can
// be turned into a line number without keeping the input.
type inputReader struct {
	r io.Reader
	n int64
	// newlines holds the offsets of the line ends read but not yet passed
	// by lineOf; before counts those that were.
	newlines []int64
	before   int
	head     []byte // the first bytes, for format detection
}

func (r *inputReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	b := p[:n]
	if len(r.head) < 4096 {
		r.head = append(r.head, b[:min(len(b), 4096-len(r.head))]...)
	}
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			break
		}
		r.newlines = append(r.newlines, r.n+int64(off+i))
		off += i + 1
	}
	r.n += int64(n)
	return n, err
}

// lineOf returns the 1-based line holding byte offset off. Offsets must not
// decrease from one call to the next (frames come in stream order).
func (r *inputReader) lineOf(off int64) int {
	i := 0
	for i < len(r.newlines) && r.newlines[i] < off {
		i++
	}
	r.before += i
	r.newlines = r.newlines[i:]
	if cap(r.newlines) > 1024 && len(r.newlines) < cap(r.newlines)/4 {
		r.newlines = append([]int64(nil), r.newlines...)
	}
	return r.before + 1
}

// detected returns the format the transport detects from the first bytes.
func (r *inputReader) detected() transport.Format {
	f, ok, _ := transport.DetectFormat(r.head)
	if !ok {
		return transport.FormatAuto
	}
	return f
}

// progress shows how far a large input has been read, on a terminal's
// standard error: bytes read (of the total when known) and events per
// second. It shows nothing for small inputs or when standard error is not a
// terminal.
type progress struct {
	w       io.Writer
	name    string
	size    int64
	start   time.Time
	last    time.Time
	every   time.Duration
	shown   bool
	checked int
}

func (e *env) newProgress(name string, size int64) *progress {
	if !e.stderrTerminal || (size >= 0 && size < e.progressMin) {
		return nil
	}
	now := time.Now()
	return &progress{w: e.stderr, name: name, size: size, start: now, last: now, every: e.progressEvery}
}

func (p *progress) update(read int64, events int) {
	if p == nil {
		return
	}
	p.checked++
	if p.checked%256 != 0 && p.every > 0 {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	p.shown = true
	rate := float64(events) / max(now.Sub(p.start).Seconds(), 1e-3)
	if p.size >= 0 {
		fmt.Fprintf(p.w, "\r\x1b[Kagview: %s: %s of %s (%d%%), %s events/s", p.name, mb(read), mb(p.size),
			read*100/max(p.size, 1), si(rate))
	} else {
		fmt.Fprintf(p.w, "\r\x1b[Kagview: %s: %s, %s events/s", p.name, mb(read), si(rate))
	}
}

// done clears the progress line.
func (p *progress) done() {
	if p != nil && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func si(x float64) string {
	switch {
	case x >= 1e6:
		return fmt.Sprintf("%.1fM", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.0fk", x/1e3)
	}
	return fmt.Sprintf("%.0f", x)
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

// cmdFlags is a command's flag set with the help text it prints.
type cmdFlags struct {
	*flag.FlagSet
	synopsis, help string
}

// newFlagSet returns a command's flag set. Parse errors go to e.stderr; help
// is printed by parseCommand, once, on e.stdout.
func newFlagSet(e *env, name, synopsis, help string) *cmdFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {} // the flag package calls it on -h and on errors; parseCommand decides
	return &cmdFlags{FlagSet: fs, synopsis: synopsis, help: help}
}

// printHelp writes the command's whole help to w.
func (fs *cmdFlags) printHelp(w io.Writer) {
	fmt.Fprintf(w, "Usage: agview %s %s\n\n%s\nFlags:\n", fs.Name(), fs.synopsis, fs.help)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// parseCommand parses a command's flags; it returns the positional arguments
// and, when parsing ended the command (help or a bad flag), the exit code.
// Help goes to standard output once; a bad flag gets its error and one line
// pointing to --help on standard error.
func parseCommand(e *env, fs *cmdFlags, args []string) ([]string, int, bool) {
	pos, err := parseArgs(fs.FlagSet, args)
	if errors.Is(err, flag.ErrHelp) {
		fs.printHelp(e.stdout)
		return nil, exitOK, true
	}
	if err != nil {
		// The flag package has printed the error itself.
		e.errorf("Run \"agview %s --help\" for usage.", fs.Name())
		if wantsJSON(args) {
			// Every outcome of a --json command is one JSON object, a bad
			// flag too, whether or not parsing reached --json.
			printJSONError(e, err)
		}
		return nil, exitUsage, true
	}
	return pos, 0, false
}

// formatUsage is the --format flag's help.
const formatUsage = "input format: auto, jsonl, sse, json (a JSON array) or proto (application/vnd.ag-ui.event+proto frames)"

// wantsJSON reports whether args ask for --json (before a "--").
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "-json", "--json=true", "-json=true", "--json=1", "-json=1":
			return true
		}
	}
	return false
}

// printJSONError prints err as {"verdict":"error","error":"..."} on
// standard output.
func printJSONError(e *env, err error) {
	b, _ := json.Marshal(struct {
		Verdict string `json:"verdict"`
		Error   string `json:"error"`
	}{"error", err.Error()})
	// On one line, with what a terminal would interpret escaped.
	w := jsonindent.NewWriter(e.stdout, jsonindent.Options{IndentDepth: -1, Safe: true, EscapeHTML: true})
	w.Write(b)
	w.Close()
	fmt.Fprintln(e.stdout)
}

// maxEventBytes adds --max-event-bytes to fs.
func maxEventBytes(fs *cmdFlags) *int {
	n := new(int)
	fs.Var((*byteLimit)(n), "max-event-bytes", fmt.Sprintf(
		"the largest event accepted, `N` bytes (0: %d, 8 MiB); a larger one ends the stream as unusable", transport.DefaultMaxEventBytes))
	return n
}

// byteLimit is --max-event-bytes: 0 or more (a negative limit would silently
// mean the default).
type byteLimit int

func (b *byteLimit) String() string { return strconv.Itoa(int(*b)) }

func (b *byteLimit) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want a number of bytes")
	}
	if n < 0 {
		return errors.New("want 0 (the default limit) or a positive number of bytes")
	}
	*b = byteLimit(n)
	return nil
}

// Get returns the limit, as the standard flags' values do.
func (b *byteLimit) Get() any { return int(*b) }

// fail reports unusable input or arguments and returns exitUsage: on standard
// error always, and with asJSON also as one JSON object on standard output,
// {"verdict":"error","error":"..."}, so that every outcome of a --json
// command is one JSON object.
func (e *env) fail(cmd string, asJSON bool, err error) int {
	var te *transport.Error
	if errors.As(err, &te) && te.Kind == transport.KindLimit {
		err = fmt.Errorf("%w; raise the limit with --max-event-bytes", err)
	}
	e.errorf("agview %s: %v", cmd, err)
	if asJSON {
		printJSONError(e, err)
	}
	return exitUsage
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
func fileArg(cmd string, pos []string) (string, error) {
	if len(pos) != 1 {
		return "", fmt.Errorf("want exactly one FILE argument (or - for standard input), got %d", len(pos))
	}
	return pos[0], nil
}
