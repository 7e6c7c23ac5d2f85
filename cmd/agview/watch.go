package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/tui"
	"github.com/agview/agview/view"
)

const watchHelp = `Runs the agent at URL (an HTTP POST of a RunAgentInput answered with
text/event-stream, or with --ws a WebSocket) and shows the live view: one pane
per subagent invocation on a terminal (arrows/tab move, enter expands, s shows
the state, q quits), plain progress lines otherwise. With --json there is no UI:
the final view's JSON (as "agview replay --json" prints it) is written when the
run ends.

Exit status: 0 the run finished (or ended on an interrupt awaiting an answer),
1 the run errored, failed, was cut or was cancelled, or an event was rejected,
2 bad arguments (a URL that is not http(s):// or, with --ws, ws(s)://) or an
unreadable --input file (with --json, {"verdict":"error","error":"..."}).

Examples:
  agview watch http://localhost:8000/agent
  agview watch --input input.json --header "Authorization: Bearer $TOKEN" https://agent.example.com/run
  agview watch --ws --json ws://localhost:8000/ws > final-view.json
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
	fs := newFlagSet(e, "watch", "[--ws] [--input FILE] [--header K:V]... [--json] [--max-event-bytes N] URL", watchHelp)
	ws := fs.Bool("ws", false, "connect over WebSocket instead of SSE")
	inputPath := fs.String("input", "", "a JSON file holding the RunAgentInput to send (default: a new thread, no messages)")
	asJSON := fs.Bool("json", false, "no UI: print the final view's JSON when the run ends")
	var headers headerFlag
	fs.Var(&headers, "header", "an extra request header K:V (repeatable)")
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
	for _, h := range headers {
		opts = append(opts, client.WithHeader(h[0], h[1]))
	}
	c := client.New(pos[0], opts...)
	defer c.Close()
	return e.watch(ctx, c, input, *asJSON, pos[0])
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

// readInput reads a RunAgentInput from a JSON file.
func readInput(path string) (*event.RunAgentInput, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var in event.RunAgentInput
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("%s: not a RunAgentInput: %w", path, err)
	}
	return &in, nil
}

// watch runs c with input and shows it: the TUI on a terminal, progress lines
// otherwise, or only the final JSON with asJSON. It returns the exit code.
func (e *env) watch(ctx context.Context, c *client.Client, input *event.RunAgentInput, asJSON bool, title string) int {
	e.target = c.URL()
	if asJSON {
		v, err := c.Run(ctx, input)
		if perr := printView(e, v, true); perr != nil {
			fmt.Fprintf(e.stderr, "agview: %v\n", perr)
		}
		return e.runExit(v, err)
	}
	if !e.isTerminal {
		stop := tui.Lines(e.stdout, c.Store())
		v, err := c.Run(ctx, input)
		stop()
		return e.runExit(v, err)
	}
	// On a terminal the TUI owns the screen; the run goes on behind it, and
	// the final view stays on screen until the user quits.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		v   *view.View
		err error
	}
	res := make(chan result, 1)
	go func() {
		v, err := c.Run(runCtx, input)
		res <- result{v, err}
	}()
	uiErr := tui.Run(ctx, c.Store(), &tui.Options{Title: title})
	cancel() // the user quit: stop a run still going
	r := <-res
	if uiErr != nil && !errors.Is(uiErr, context.Canceled) {
		fmt.Fprintf(e.stderr, "agview: terminal UI: %v\n", uiErr)
	}
	return e.runExit(r.v, r.err)
}

// runExit reports how a run ended on stderr and returns the exit code: 0 when
// the last run finished or was interrupted (awaiting an answer) and no event
// was rejected, else 1.
func (e *env) runExit(v *view.View, err error) int {
	run, ok := v.LastRun()
	switch {
	case err != nil && !ok && v.EventCount() == 0:
		fmt.Fprintf(e.stderr, "agview: could not connect to %s: %v\n", e.target, err)
		return exitRejected
	case err != nil:
		fmt.Fprintf(e.stderr, "agview: run %s: %v\n", runName(run, ok), err)
		return exitRejected
	case !ok:
		fmt.Fprintln(e.stderr, "agview: the agent sent no run")
		return exitRejected
	case run.Status != view.RunFinished && run.Status != view.RunInterrupted:
		msg := string(run.Status)
		if run.Error != nil {
			msg += ": " + run.Error.Message
		}
		fmt.Fprintf(e.stderr, "agview: run %s %s\n", runName(run, ok), msg)
		return exitRejected
	case v.ViolationCount() > 0:
		fmt.Fprintf(e.stderr, "agview: run %s: %d events rejected (agview replay or verify on a recording shows them)\n", runName(run, ok), v.ViolationCount())
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
