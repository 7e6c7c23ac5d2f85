package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/tui"
	"github.com/agview/agview/view"
)

const watchHelp = `Runs the agent at URL (an HTTP POST of a RunAgentInput answered with
text/event-stream, or with --proto asking for the protobuf framing,
application/vnd.ag-ui.event+proto, SSE being acceptable too; or with --ws a
WebSocket) and shows the live view: one pane
per subagent invocation on a terminal (arrows/tab move, enter expands, s shows
the state, ? lists the keys, q quits), plain progress lines otherwise. On a
terminal the thread goes on when a run ends: i writes the next message, and an
interrupt the run left pending is approved (y), rejected (n), answered with a
JSON payload (p) or cancelled (c); each is a new run on the same thread. With
--json there is no UI: the final view's JSON (as "agview replay --json" prints
it) is written when the run ends. Headers given with --header go to the agent's
origin only: a redirect elsewhere is followed without them, and one from https
to http is refused. --idle-timeout ends a run whose agent has gone quiet (SSE
comments and WebSocket pings count as signs of life): by default after 15
minutes without one (longer than the common model SDKs wait on a model, 10
minutes), --idle-timeout 0 never.

A conversation: --input sends a RunAgentInput file; its messages are the
history, first in the view. --next FILE writes, when the run ends, the
RunAgentInput that continues the thread (the history as the view now holds it,
the state, a new run id), as the reference AG-UI client builds it. Add the next
user message to that file's "messages" and run again with --input FILE. When
the run ends on interrupts awaiting an answer, --answer JSON resolves every one
with that payload in the next input, --cancel cancels them; without either,
watch names on standard error the interrupts the next input leaves unanswered
(the file does not record them, so the next watch cannot refuse it: an agent
that requires an answer refuses the run). The file is replaced atomically
and keeps its mode and owner (a new one is readable by you only, 0600); a
symbolic link, a directory, a device or a pipe is refused. An --input file
may leave out threadId and runId: new ones are made.

Exit status: 0 the (last) run finished (or ended on an interrupt awaiting an
answer), 1 it errored, failed, was cut or was cancelled, or an event was
rejected, 2 bad arguments (a URL that is not http(s):// or, with --ws,
ws(s)://), an --input file that is not a usable RunAgentInput, or a --next file
that exists and is not a RunAgentInput (it is never overwritten); with --json,
{"verdict":"error","error":"..."}.

With --journal DSN the run is recorded in a journal (memory, file:DIR or
nats://HOST:PORT): its input, every event as received and how it ended, so
that "agview attach DSN THREAD" shows the thread from anywhere.

Examples:
  agview watch http://localhost:8000/agent
  agview watch --journal file:$HOME/.agview/threads http://localhost:8000/agent
  agview watch --input input.json --header "Authorization: Bearer $TOKEN" https://agent.example.com/run
  agview watch --ws --json ws://localhost:8000/ws > final-view.json
  agview watch --json --input turn1.json --next turn2.json --answer '{"approved":true}' http://localhost:8000/agent
  agview watch --idle-timeout 2m http://localhost:8000/agent
  agview watch --proto http://localhost:8000/agent

An Accept given with --header is sent as given, whatever --proto says.
`

// headerFlag collects repeated --header K:V flags.
type headerFlag [][2]string

func (h *headerFlag) String() string { return fmt.Sprint(*h) }
func (h *headerFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, ":")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want K:V, got %q", s)
	}
	*h = append(*h, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	return nil
}

func runWatch(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "watch", "[--ws | --proto] [--input FILE] [--next FILE [--answer JSON | --cancel]] [--header K:V]... [--idle-timeout D] [--journal DSN] [--json] [--max-event-bytes N] URL", watchHelp)
	ws := fs.Bool("ws", false, "connect over WebSocket instead of SSE")
	proto := fs.Bool("proto", false, "ask for the protobuf framing (Accept: application/vnd.ag-ui.event+proto, text/event-stream;q=0.5)")
	inputPath := fs.String("input", "", "a JSON file holding the RunAgentInput to send; its messages are the history (default: a new thread, no messages)")
	nextPath := fs.String("next", "", "when the run ends, write the RunAgentInput of the next run on the thread to this file")
	answer := fs.String("answer", "", "with --next: resolve every pending interrupt with this JSON payload")
	cancel := fs.Bool("cancel", false, "with --next: cancel every pending interrupt")
	asJSON := fs.Bool("json", false, "no UI: print the final view's JSON when the run ends")
	dsn := fs.String("journal", "", "record the run in the journal DSN names: memory, file:DIR or nats://HOST:PORT")
	var headers headerFlag
	fs.Var(&headers, "header", "an extra request header K:V (repeatable), sent to the agent's origin only")
	idle := fs.Duration("idle-timeout", e.idleTimeout, "give up when the agent sends nothing (no event, no keep-alive) for this long, e.g. 30s; 0 waits for ever")
	maxBytes := maxEventBytes(fs)
	pos, code, done := parseCommand(e, fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return e.fail("watch", *asJSON, fmt.Errorf("want exactly one URL argument, got %d", len(pos)))
	}
	if err := checkURL(pos[0], *ws); err != nil {
		return e.fail("watch", *asJSON, err)
	}
	if *ws && *proto {
		return e.fail("watch", *asJSON, errors.New("--ws and --proto exclude each other (the protobuf framing is for HTTP)"))
	}
	if *idle < 0 {
		return e.fail("watch", *asJSON, fmt.Errorf("--idle-timeout must not be negative, got %v", *idle))
	}
	cfg := watchConfig{asJSON: *asJSON, title: pos[0], next: *nextPath}
	if err := cfg.setAnswer(*answer, *cancel); err != nil {
		return e.fail("watch", *asJSON, err)
	}
	if cfg.next != "" {
		var err error
		if cfg.next, err = checkNextFile(cfg.next); err != nil {
			return e.fail("watch", *asJSON, err)
		}
	}
	var input *event.RunAgentInput
	if *inputPath != "" {
		var err error
		if input, err = readInput(*inputPath); err != nil {
			return e.fail("watch", *asJSON, err)
		}
	}
	var opts []client.Option
	if *maxBytes > 0 {
		opts = append(opts, client.WithTransportOptions(&transport.Options{MaxEventBytes: *maxBytes}))
	}
	if *ws {
		opts = append(opts, client.WithWebSocket())
	}
	if *proto {
		opts = append(opts, client.WithEncoding(transport.EncodingPreferProto))
	}
	for _, h := range headers {
		opts = append(opts, client.WithHeader(h[0], h[1]))
	}
	opts = append(opts, client.WithIdleTimeout(*idle))
	if *dsn != "" {
		j, err := journal.Open(ctx, *dsn, nil)
		if err != nil {
			e.errorf("agview watch: --journal: %v", err)
			return exitUsage
		}
		defer j.Close()
		if input == nil {
			input = &event.RunAgentInput{}
		}
		if input.ThreadID == "" {
			in := *input
			in.ThreadID = client.NewID()
			input = &in
		}
		e.errorf("agview: recording thread %s in %s (agview attach %s %s)", input.ThreadID, *dsn, *dsn, input.ThreadID)
		opts = append(opts, client.WithJournal(j, func(err error) { e.errorf("agview: %v", err) }))
	}
	c := client.New(pos[0], opts...)
	defer c.Close()
	return e.watch(ctx, c, input, &cfg)
}

// checkURL checks that raw is a URL watch can reach: http(s) for SSE,
// ws(s) with --ws.
func checkURL(raw string, ws bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	want := []string{"http", "https"}
	if ws {
		want = []string{"ws", "wss"}
	}
	if !slices.Contains(want, strings.ToLower(u.Scheme)) || u.Host == "" {
		hint := ""
		if !ws && (u.Scheme == "ws" || u.Scheme == "wss") {
			hint = " (add --ws for a WebSocket agent)"
		} else if ws && (u.Scheme == "http" || u.Scheme == "https") {
			hint = " (leave out --ws for an SSE agent)"
		}
		return fmt.Errorf("%q: want a %s:// or %s:// URL%s", raw, want[0], want[1], hint)
	}
	return nil
}

// watchConfig is how watch shows a run and what it writes when it ends.
type watchConfig struct {
	asJSON bool   // no UI: the final view's JSON on stdout
	title  string // the TUI's title
	next   string // --next: where the next run's input goes; "" for nowhere
	// answer answers the pending interrupts in the next input (--answer,
	// --cancel); nil leaves them unanswered.
	answer func(event.Interrupt) *event.ResumeEntry
}

// setAnswer sets cfg.answer from --answer and --cancel.
func (cfg *watchConfig) setAnswer(payload string, cancel bool) error {
	switch {
	case payload != "" && cancel:
		return errors.New("--answer and --cancel exclude each other")
	case (payload != "" || cancel) && cfg.next == "":
		return errors.New("--answer and --cancel answer the interrupts in the next run's input: give --next FILE too")
	case cancel:
		cfg.answer = client.CancelAll
	case payload != "":
		p := json.RawMessage(strings.TrimSpace(payload))
		if !json.Valid(p) || string(p) == "null" {
			return fmt.Errorf("--answer %q: want a JSON value other than null, e.g. '{\"approved\":true}'", payload)
		}
		cfg.answer = client.ResolveAll(p)
	}
	return nil
}

// readInput reads a RunAgentInput from a JSON file with the checks the wire
// form gets (event.DecodeInput: subagentRunId null refused, R1, …) and the
// ones a client makes before sending its history (reducer.Input: one id per
// message). Errors name the file and, where it is at fault, the message.
//
// A file may leave out threadId and runId: the client mints them (a new
// thread, a new run), as it does for a program that sets none.
func readInput(path string) (*event.RunAgentInput, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--input %w", err)
	}
	b, added := withIDs(b)
	in, _, err := event.DecodeInput(b)
	if err != nil {
		var de *event.DecodeError
		if errors.As(err, &de) && de.Offset >= int64(added) {
			de.Offset -= int64(added) // where it is in the file
		}
		return nil, fmt.Errorf("--input %s: not a RunAgentInput: %w", path, decodeInputError(b, err))
	}
	if _, err := reducer.Input(view.New(), in); err != nil {
		return nil, fmt.Errorf("--input %s: %w", path, err)
	}
	if err := client.CheckResume(view.New(), in, time.Now()); err != nil {
		return nil, fmt.Errorf("--input %s: %w", path, err)
	}
	return in, nil
}

// withIDs returns data, a JSON object, with "threadId":"" and "runId":""
// added first when it lacks them (the client then mints them), and the
// number of bytes added. Anything else is returned as it is, for
// DecodeInput to say what is wrong with it.
func withIDs(data []byte) ([]byte, int) {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil || m == nil {
		return data, 0
	}
	var add []byte
	for _, k := range []string{"threadId", "runId"} {
		if _, ok := m[k]; !ok {
			add = append(add, `"`+k+`":"",`...)
		}
	}
	if len(add) == 0 {
		return data, 0
	}
	if len(m) == 0 {
		add = add[:len(add)-1] // {} has no member to put a comma before
	}
	i := bytes.IndexByte(data, '{') + 1
	out := make([]byte, 0, len(data)+len(add))
	out = append(append(append(out, data[:i]...), add...), data[i:]...)
	return out, len(add)
}

// badInput is a RunAgentInput that does not decode; it says where, naming
// the message the error points into (/messages/N/…) by its id:
// "message 'u1' /messages/1/subagentRunId: null is not allowed … (byte 9)".
type badInput struct {
	id string // the message's id, "" when the error is elsewhere
	de *event.DecodeError
}

// decodeInputError returns err, from decoding data as a RunAgentInput, as
// a *badInput when it is an *event.DecodeError.
func decodeInputError(data []byte, err error) error {
	var de *event.DecodeError
	if !errors.As(err, &de) {
		return err
	}
	return &badInput{id: messageAt(data, de.Pointer), de: de}
}

func (e *badInput) Error() string {
	where := e.de.Pointer
	if e.id != "" {
		where = fmt.Sprintf("message '%s' %s", e.id, where)
	}
	if where == "" {
		where = "the input"
	}
	msg := where + ": " + e.de.Reason
	if e.de.Offset >= 0 {
		msg += fmt.Sprintf(" (byte %d)", e.de.Offset)
	}
	return msg
}

func (e *badInput) Unwrap() error { return e.de }

// messageAt returns the id of the message a JSON pointer points into
// (/messages/N/…), or "".
func messageAt(data []byte, pointer string) string {
	rest, ok := strings.CutPrefix(pointer, "/messages/")
	if !ok {
		return ""
	}
	n, err := strconv.Atoi(strings.SplitN(rest, "/", 2)[0])
	if err != nil {
		return ""
	}
	var in struct {
		Messages []struct {
			ID any `json:"id"`
		} `json:"messages"`
	}
	if json.Unmarshal(data, &in) != nil || n >= len(in.Messages) {
		return ""
	}
	id, _ := in.Messages[n].ID.(string)
	return id
}

// checkNextFile refuses a --next path that holds something other than a
// RunAgentInput: writing the next input must never clobber another file.
// A missing or empty file is fine, in a folder that exists. A symbolic link
// is refused (the next input replaces the file whole: through a link it
// would land wherever the link leads, which whoever made the link chose),
// and so are a directory, a device or a pipe (--next /dev/stdout), before
// they are read. It returns the path to write.
func checkNextFile(path string) (string, error) {
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return "", fmt.Errorf("--next %s: no folder %s to write it in", path, filepath.Dir(path))
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return path, nil
	case err != nil:
		return "", fmt.Errorf("--next %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", fmt.Errorf("--next %s is a symbolic link; not writing through it (name the file itself)", path)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("--next %s is not a regular file (%s); not writing to it", path, fi.Mode().Type())
	}
	b, err := os.ReadFile(path)
	switch {
	case err != nil:
		return "", fmt.Errorf("--next %w", err)
	case len(bytes.TrimSpace(b)) == 0:
		return path, nil
	}
	if _, _, err := event.DecodeInput(b); err != nil {
		return "", fmt.Errorf("--next %s exists and is not a RunAgentInput (%v); not overwriting it", path, err)
	}
	return path, nil
}

// writeNext writes the input of the run that continues v's thread to path,
// indented for editing, replacing the file whole and atomically (a
// temporary file in the same folder, synced, then renamed over it: a reader
// sees the old file or the new one, never a part). The new file keeps the
// mode and owner of the one it replaces (a 0600 file holding a private
// conversation stays 0600); a new file is 0600. A path that became a
// symbolic link or something else than a file since checkNextFile looked is
// refused.
func writeNext(path string, v *view.View, answer func(event.Interrupt) *event.ResumeEntry) (*event.RunAgentInput, error) {
	in := client.NextInput(v, &client.InputOptions{Answer: answer})
	b, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return nil, err
	}
	mode := fs.FileMode(0o600)
	old, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return nil, fmt.Errorf("--next %w", err)
	case !old.Mode().IsRegular():
		return nil, fmt.Errorf("--next %s is no longer a regular file (%s); not writing to it", path, old.Mode().Type())
	default:
		mode = old.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".agview-next-*")
	if err != nil {
		return nil, fmt.Errorf("--next %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing left to remove
	_, werr := tmp.Write(append(b, '\n'))
	if werr == nil {
		werr = tmp.Chmod(mode)
	}
	if werr == nil && old != nil {
		werr = keepOwner(tmp, old)
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("--next %s: %w", path, werr)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, fmt.Errorf("--next %w", err)
	}
	return in, nil
}

// watch runs c with input and shows it: the TUI on a terminal, progress lines
// otherwise, or only the final JSON with cfg.asJSON; then writes the next
// run's input when cfg.next names a file. It returns the exit code.
func (e *env) watch(ctx context.Context, c *client.Client, input *event.RunAgentInput, cfg *watchConfig) int {
	e.target = c.URL()
	v, err := e.show(ctx, c, input, cfg)
	var ie *client.InterruptError
	var re *reducer.InputError
	if errors.As(err, &ie) || errors.As(err, &re) {
		// Refused before anything was sent.
		return e.fail("watch", cfg.asJSON, fmt.Errorf("--input: %w", err))
	}
	code := e.runExit(v, err)
	if cfg.next == "" {
		return code
	}
	next, werr := writeNext(cfg.next, v, cfg.answer)
	if werr != nil {
		e.errorf("agview watch: %v", werr)
		return exitUsage // the view, if any, is already printed
	}
	if pending := v.PendingInterrupts(); len(pending) > 0 && len(next.Resume) == 0 {
		ids := make([]string, len(pending))
		for i, it := range pending {
			ids[i] = it.ID
		}
		e.errorf("agview watch: %s: %d interrupt(s) await an answer (%s): the next run must answer them (--answer JSON or --cancel)",
			cfg.next, len(pending), strings.Join(ids, ", "))
	}
	return code
}

// show runs c with input and shows it; it returns the final view and Run's
// error.
func (e *env) show(ctx context.Context, c *client.Client, input *event.RunAgentInput, cfg *watchConfig) (*view.View, error) {
	if cfg.asJSON {
		v, err := c.Run(ctx, input)
		var ie *client.InterruptError
		var re *reducer.InputError
		if errors.As(err, &ie) || errors.As(err, &re) {
			return v, err // nothing ran: no view to print
		}
		if perr := printView(e, v, true); perr != nil {
			e.errorf("agview: %v", perr)
		}
		return v, err
	}
	if !e.isTerminal {
		stop := tui.Lines(e.stdout, c.Store())
		v, err := c.Run(ctx, input)
		stop()
		return v, err
	}
	// On a terminal the TUI owns the screen; the run goes on behind it, and
	// the TUI stays open when it ends: the user continues the thread (the
	// next message, the answers to its interrupts) until they quit.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	conv := &conversation{c: c}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = conv.run(runCtx, input)
	}()
	uiErr := tui.Run(ctx, c.Store(), &tui.Options{Title: cfg.title, Conversation: conv, Output: e.stdout})
	if uiErr != nil && !errors.Is(uiErr, context.Canceled) && ctx.Err() == nil {
		// The terminal UI could not run (no usable terminal after all): the
		// run goes on, shown as plain lines, rather than being cancelled.
		e.errorf("agview: terminal UI: %v; showing plain lines instead", uiErr)
		stop := tui.Lines(e.stdout, c.Store())
		<-done
		stop()
		return c.Store().View(), conv.lastErr()
	}
	cancel() // the user quit: stop a run still going
	<-done
	return c.Store().View(), conv.lastErr()
}

// runExit reports how a run ended on stderr and returns the exit code: 0 when
// the last run finished or was interrupted (awaiting an answer) and no event
// was rejected, else 1.
func (e *env) runExit(v *view.View, err error) int {
	run, ok := v.LastRun()
	var je *journal.Error
	switch {
	case err != nil && errors.Is(err, journal.ErrBusy) && errors.As(err, &je) && je.Holder != nil:
		// The journal refused the run before the agent was asked.
		h := je.Holder
		e.errorf("agview: thread %s is busy: run %s by %s holds it since %s; nothing was sent (agview attach --stop stops that run)",
			h.Thread, h.RunID, h.Owner, h.Since.Local().Format(time.DateTime))
		return exitRejected
	case err != nil && !ok && v.EventCount() == 0 && errors.As(err, &je):
		e.errorf("agview: %v", err)
		return exitRejected
	case err != nil && !ok && v.EventCount() == 0:
		e.errorf("agview: could not connect to %s: %v", e.target, err)
		return exitRejected
	case err != nil:
		e.errorf("agview: run %s: %v", runName(run, ok), err)
		return exitRejected
	case !ok:
		e.errorf("agview: the agent sent no run")
		return exitRejected
	case run.Status != view.RunFinished && run.Status != view.RunInterrupted:
		msg := string(run.Status)
		if run.Error != nil {
			msg += ": " + run.Error.Message
		}
		e.errorf("agview: run %s %s", runName(run, ok), msg)
		return exitRejected
	case v.ViolationCount() > 0:
		// Nothing was recorded to replay: list them here (the first and
		// last diagShown), as replay would.
		n := v.ViolationCount()
		e.errorf("agview: run %s: %s rejected:", runName(run, ok), plural(n, "event"))
		viols, _ := diagnostics(&folded{v: v})
		shown := viols.shown()
		listOf(shown, max(viols.omitted, n-len(shown))).writeTo(lineWriter{e, "agview:   "}, "", "violation")
		return exitRejected
	}
	return exitOK
}

func runName(r view.Run, ok bool) string {
	if !ok || r.RunID == "" {
		return "-"
	}
	return r.RunID
}
