package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/agview/agview/store"
)

// Run shows the live view of s in the terminal until the user quits (q or
// ctrl+c) or ctx is done. It draws on the alternate screen, so the terminal
// is as it was once Run returns. It renders the store's latest view at most
// Options.FPS times a second, never once per event, and keeps showing the
// last view after the stream ends, until the user quits.
//
// With Options.Conversation the user can continue the thread from the
// terminal: send the next message, answer the interrupts a run leaves
// pending (see New). When the program ends, a turn under way is cancelled
// and Run waits for its Continue to return.
//
// Once the screen is restored, Run prints a one-line Summary of the store's
// latest view to the output, so that how the run ended stays in the
// terminal.
//
// Run returns nil when the user quit, ctx.Err() when ctx ended it, and an
// error when the terminal could not be set up or read. opts may be nil.
func Run(ctx context.Context, s *store.Store, opts *Options) error {
	o := opts.withDefaults()
	m := New(s, &o)
	out := o.Output
	if out == nil {
		out = os.Stdout
	}
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(o.FPS)}
	if o.Input != nil {
		popts = append(popts, tea.WithInput(o.Input))
	}
	if o.Output != nil {
		popts = append(popts, tea.WithOutput(o.Output))
		if !isTerminal(o.Output) {
			// No terminal to ask for its size: draw at the default size.
			popts = append(popts, tea.WithWindowSize(defaultWidth, defaultHeight))
		}
	}
	_, err := tea.NewProgram(m, popts...).Run()
	m.stop()
	v := m.v
	if s != nil {
		v = s.View()
	}
	if err == nil || errors.Is(err, tea.ErrInterrupted) || ctx.Err() != nil {
		// The screen was the model's and is restored: leave how the run
		// ended. (A terminal that could not be set up showed nothing.)
		fmt.Fprintln(out, Summary(v))
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, tea.ErrInterrupted):
		// SIGINT, or ctrl+c where the terminal sends it as a signal: the
		// user quit.
		return nil
	case err != nil:
		return fmt.Errorf("tui: %w", err)
	}
	return nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(f.Fd())
}
