//go:build !windows

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// terminal is a pseudo-terminal running a program, with a terminal
// emulator that keeps its screen as a person would see it, and answers the
// program's queries as a terminal does.
type terminal struct {
	t    *testing.T
	ptmx *os.File
	cmd  *exec.Cmd

	mu   sync.Mutex
	emu  *vt.Emulator
	bell chan struct{} // rung after each chunk of output is on the screen

	stopping atomic.Bool
	done     sync.WaitGroup
}

// startTerminal runs bin with args in a cols×rows pseudo-terminal.
func startTerminal(t *testing.T, cols, rows int, bin string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "COLORTERM=truecolor")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	require.NoError(t, err, "start %s in a pseudo-terminal", bin)
	term := &terminal{t: t, ptmx: ptmx, cmd: cmd, emu: vt.NewEmulator(cols, rows), bell: make(chan struct{}, 1)}
	term.done.Add(2)
	go term.readScreen()
	go term.answer()
	t.Cleanup(term.close)
	return term
}

// readScreen feeds the program's output to the emulator until the program
// is gone.
func (term *terminal) readScreen() {
	defer term.done.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := term.ptmx.Read(buf)
		if n > 0 {
			term.mu.Lock()
			_, _ = term.emu.Write(buf[:n])
			term.mu.Unlock()
			select {
			case term.bell <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return // EIO once the program has exited and closed the terminal
		}
	}
}

// answer sends the emulator's replies to terminal queries (device
// attributes, mode reports) back to the program.
func (term *terminal) answer() {
	defer term.done.Done()
	buf := make([]byte, 1024)
	for {
		n, err := term.emu.Read(buf)
		if term.stopping.Load() || err != nil {
			return
		}
		_, _ = term.ptmx.Write(buf[:n])
	}
}

// close stops the helpers: the program is killed if it still runs.
func (term *terminal) close() {
	if term.cmd.ProcessState == nil {
		_ = term.cmd.Process.Kill()
		_ = term.cmd.Wait()
	}
	_ = term.ptmx.Close()
	// Wake the answering goroutine with a query of our own rather than
	// closing the emulator under it.
	term.stopping.Store(true)
	term.mu.Lock()
	_, _ = term.emu.Write([]byte("\x1b[c"))
	term.mu.Unlock()
	term.done.Wait()
}

// screen returns the screen's text, one line per row.
func (term *terminal) screen() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.emu.String()
}

// waitFor waits until ok(screen) holds, polling after each output, and
// fails the test with the screen if ctx ends first.
func (term *terminal) waitFor(ctx context.Context, what string, ok func(screen string) bool) {
	term.t.Helper()
	for {
		s := term.screen()
		if ok(s) {
			return
		}
		select {
		case <-term.bell:
		case <-ctx.Done():
			require.FailNow(term.t, "the screen never showed "+what, "screen:\n%s", s)
		}
	}
}

func (term *terminal) press(keys string) {
	term.t.Helper()
	_, err := term.ptmx.Write([]byte(keys))
	require.NoError(term.t, err, "type %q", keys)
}

// buildAgview builds this command into a temporary directory.
func buildAgview(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command builds agview for the pseudo-terminal test")
	bin := filepath.Join(t.TempDir(), "agview")
	out, err := exec.CommandContext(t.Context(), goBin, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// TestDemoInPseudoTerminal runs "agview demo" in a real pseudo-terminal and
// reads its screen: every subagent of the demo swarm appears with its name,
// id and final status, the state view opens, ? lists the keys; the approval
// interrupt is answered from the keyboard and the suspended researcher
// continues in its pane until the swarm finishes; a question typed on the
// input line shows in the parent pane, answered; at 80 columns the footer
// keeps d diagnostics; and q quits with exit status 0, leaving the
// terminal's own screen back with a one-line summary of the thread.
func TestDemoInPseudoTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs the demo (a few seconds)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	// What the demo plays: the swarm of seed 1.
	want := view.New()
	for _, e := range agenttest.SwarmEvents(&agenttest.SwarmConfig{Seed: 1}) {
		var err error
		want, err = reducer.Fold(want, e)
		require.NoError(t, err)
	}
	require.GreaterOrEqual(t, want.InvocationCount(), 4, "the demo has subagents to show")

	term := startTerminal(t, 120, 40, buildAgview(t), "demo", "--seed", "1")

	// Every subagent's pane title shows "name id" and its final status.
	final := func(s string) bool {
		for inv := range want.Invocations() {
			if !hasLine(s, inv.Name()+" "+inv.ID(), string(inv.Status())) {
				return false
			}
		}
		return strings.Contains(s, "interrupted") && !strings.Contains(s, "running")
	}
	term.waitFor(ctx, "every subagent with its final status", final)
	s := term.screen()
	for inv := range want.Invocations() {
		assert.True(t, hasLine(s, inv.Name()+" "+inv.ID(), string(inv.Status())),
			"a pane title shows %s %s %s", inv.Name(), inv.ID(), inv.Status())
	}
	assert.Contains(t, s, fmt.Sprintf("%d subagents: ", want.InvocationCount()), "the header counts the subagents")

	// s shows the state, esc comes back.
	term.press("s")
	term.waitFor(ctx, "the state", func(s string) bool {
		return strings.Contains(s, "─ state ") && strings.Contains(s, `"researchers": {`)
	})
	assert.Regexp(t, `"sa-[0-9a-f]+": \{…\} \d+ keys`, term.screen(), "a folded object says how many keys it has")
	assert.NotContains(t, term.screen(), "{…},", "no stray comma after a folded object")
	term.press("\x1b")
	term.waitFor(ctx, "the panes again", final)

	// ? lists every key, the conversation's included.
	term.press("?")
	term.waitFor(ctx, "the keys", func(s string) bool {
		return strings.Contains(s, "─ keys ") && strings.Contains(s, "write the next message") && strings.Contains(s, "approve the interrupt")
	})
	term.press("?")

	// The interrupt shows what it asks; y approves it, and the suspended
	// researcher continues in its pane until the swarm finishes.
	pending := want.PendingInterrupts()
	require.Len(t, pending, 1)
	suspended := want.Invocation(*pending[0].Subagent)
	term.waitFor(ctx, "the interrupt asked", func(s string) bool {
		return hasLine(s, suspended.Name()+" "+suspended.ID()+" asks") && strings.Contains(s, *pending[0].Message) &&
			hasLine(s, "y approve · n reject · p answer · c cancel") && hasLine(s, "y/n/p/c answer", "d diagnostics", "? keys")
	})
	term.press("y")
	resumed := func(s string) bool {
		return hasLine(s, "run 2 of 2", "✓ finished") && hasLine(s, suspended.Name()+" "+suspended.ID(), "finished") &&
			!strings.Contains(s, "running") && !strings.Contains(s, " asks ")
	}
	term.waitFor(ctx, "the swarm finished after the approval", resumed)
	s = term.screen()
	assert.Equal(t, 1, strings.Count(s, suspended.Name()+" "+suspended.ID()), "the researcher continued in its one pane")
	assert.Contains(t, s, "i message", "the footer says how to go on")

	// i opens the input line; the question goes in a new run, and shows in
	// the parent pane with its answer.
	term.press("i")
	term.waitFor(ctx, "the input line", func(s string) bool { return strings.Contains(s, "you ›") && strings.Contains(s, "enter send") })
	term.press("Is the grid the bottleneck?")
	term.waitFor(ctx, "the question typed", func(s string) bool { return strings.Contains(s, "you › Is the grid the bottleneck?") })
	term.press("\r")
	answered := func(s string) bool {
		return hasLine(s, "run 3 of 3", "✓ finished") && hasLine(s, "user › Is the grid the bottleneck?") &&
			hasLine(s, `› You asked: "Is the grid the bottleneck?"`)
	}
	term.waitFor(ctx, "the question and its answer in the parent pane", answered)
	lines := strings.Split(term.screen(), "\n")
	parent := strings.Join(lines[2:min(8, len(lines))], "\n")
	assert.Contains(t, parent, "parent agent", "the first pane is the parent's")
	assert.Contains(t, parent, "user › Is the grid the bottleneck?", "the question is in the parent pane")
	assert.Regexp(t, `tokens: \d+ in, \d+ out, \d+ total`, strings.Join(lines[:2], "\n"), "the header shows the run's tokens")

	// At 80 columns the footer keeps every key name, d diagnostics too.
	term.resize(80, 24)
	term.waitFor(ctx, "the footer at 80 columns", func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return len(lines) > 0 && hasLine(lines[len(lines)-1], "i message", "d diagnostics", "? keys", "q quit")
	})

	// q quits cleanly.
	term.press("q")
	exited := make(chan error, 1)
	go func() { exited <- term.cmd.Wait() }()
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			require.FailNow(t, "agview demo exited with status "+exit.String(), "screen:\n%s", term.screen())
		}
		require.NoError(t, err)
	case <-ctx.Done():
		require.FailNow(t, "agview demo did not exit after q", "screen:\n%s", term.screen())
	}
	assert.Equal(t, 0, term.cmd.ProcessState.ExitCode())
	term.waitFor(ctx, "the terminal's own screen back, with the summary", func(s string) bool {
		flat := strings.ReplaceAll(s, "\n", "") // the line wraps at 80 columns
		return !strings.Contains(s, "parent agent") && strings.Contains(flat, "finished (3 runs) · tokens: ") &&
			strings.Contains(flat, "5 subagents: 4 finished, 1 errored") && strings.Contains(flat, "none rejected")
	})
}

// resize changes the terminal's size, as a window that is resized does:
// the program gets SIGWINCH.
func (term *terminal) resize(cols, rows int) {
	term.t.Helper()
	term.mu.Lock()
	term.emu.Resize(cols, rows)
	term.mu.Unlock()
	require.NoError(term.t, pty.Setsize(term.ptmx, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}))
}

// hasLine reports whether one line of s contains all the parts.
func hasLine(s string, parts ...string) bool {
	for _, l := range strings.Split(s, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return true
		}
	}
	return false
}
