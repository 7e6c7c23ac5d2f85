package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/agview/agview/client"
	"github.com/agview/agview/internal/termsafe"
	"github.com/agview/agview/journal"
	_ "github.com/agview/agview/journal/natsjournal" // nats:// journals
	"github.com/agview/agview/tui"
)

const attachHelp = `Shows a thread recorded in a journal (by "agview watch --journal DSN", a
client with client.WithJournal, or the BFF example) from any machine that
reaches the journal: everything recorded so far, then live, as the process
running it sees it. DSN is memory, file:DIR or nats://HOST:PORT. A run whose
writer went away without ending it (its process died, its lease expired)
reads as cut: failed, its open invocations abandoned, its text kept.

On a terminal: the terminal UI, following the thread until you quit (q).
Otherwise: progress lines until no run is active on the thread. With --json:
no UI; the view's JSON (as "agview replay --json" prints it) once no run is
active on the thread. Without THREAD: the threads the journal holds. With
--stop: ask the process running the thread's active run to stop it (it ends
cancelled), and exit.

Exit status: 0 the thread's last run finished (or awaits an interrupt's
answer), 1 it errored, failed, was cut or was cancelled, or an event was
rejected, 2 bad arguments or a journal that cannot be opened.

Examples:
  agview attach file:$HOME/.agview/threads
  agview attach nats://nats.internal:4222 4a5f0c1e-…
  agview attach --json file:./threads thread-1 | jq '.runs[-1].status'
  agview attach --stop nats://nats.internal:4222 4a5f0c1e-…
`

func runAttach(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "attach", "[--json] [--stop] DSN [THREAD]", attachHelp)
	stop := fs.Bool("stop", false, "ask the thread's active run to stop, and exit")
	asJSON := fs.Bool("json", false, "no UI: print the view's JSON once no run is active on the thread")
	poll := fs.Duration("poll", client.DefaultAttachPoll, "how often to ask whether the thread's run is still active")
	pos, code, done := parseCommand(e, fs, args)
	if done {
		return code
	}
	if len(pos) < 1 || len(pos) > 2 {
		e.errorf("agview attach: want a DSN and a THREAD, got %d arguments", len(pos))
		return exitUsage
	}
	j, err := journal.Open(ctx, pos[0], nil)
	if err != nil {
		e.errorf("agview attach: %v", err)
		return exitUsage
	}
	defer j.Close()
	if len(pos) == 1 {
		return e.listThreads(ctx, j)
	}
	thread := pos[1]
	if *stop {
		l, err := j.Stop(ctx, thread)
		if err != nil {
			e.errorf("agview attach: %v", err)
			return exitRejected
		}
		fmt.Fprintln(e.stdout, termsafe.Escape(fmt.Sprintf("asked run %s of thread %s (by %s) to stop", l.RunID, thread, l.Owner)))
		return exitOK
	}
	follow := e.isTerminal && !*asJSON
	a, err := client.Attach(ctx, j, thread, &client.AttachOptions{Poll: *poll, UntilIdle: !follow})
	if err != nil {
		e.errorf("agview attach: %v", err)
		return exitUsage
	}
	s := a.Store()
	defer s.Close()
	defer a.Stop()
	switch {
	case *asJSON:
		<-a.Done()
	case !e.isTerminal:
		stop := tui.Lines(e.stdout, s)
		<-a.Done()
		_ = s.Settle(ctx)
		stop()
	default:
		uiErr := tui.Run(ctx, s, &tui.Options{Title: thread + " @ " + pos[0]})
		if uiErr != nil && !errors.Is(uiErr, context.Canceled) {
			e.errorf("agview: terminal UI: %v", uiErr)
		}
	}
	a.Stop()
	if err := a.Err(); err != nil {
		e.errorf("agview attach: %v", err)
	}
	v := s.View()
	if *asJSON {
		if err := printView(e, v, true); err != nil {
			e.errorf("agview attach: %v", err)
		}
	}
	if v.EventCount() == 0 {
		e.errorf("agview attach: thread %q holds no event in %s", thread, pos[0])
		return exitRejected
	}
	return e.runExit(v, nil)
}

// listThreads prints the journal's threads: id, records, and the active run.
func (e *env) listThreads(ctx context.Context, j journal.Journal) int {
	ids, err := j.Threads(ctx)
	if err != nil {
		e.errorf("agview attach: %v", err)
		return exitUsage
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "THREAD\tRECORDS\tACTIVE RUN")
	for _, id := range ids {
		st, err := j.Stat(ctx, id)
		if err != nil {
			e.errorf("agview attach: %v", err)
			return exitUsage
		}
		active := "-"
		if a := st.Active; a != nil {
			active = fmt.Sprintf("%s by %s since %s", a.RunID, a.Owner, a.Since.Local().Format(time.DateTime))
		}
		// Ids come from the journal, written by anyone who can write it.
		fmt.Fprintf(tw, "%s\t%d\t%s\n", termsafe.Escape(id), st.Last, termsafe.Escape(active))
	}
	_ = tw.Flush()
	return exitOK
}
