package tui

import (
	"fmt"
	"strings"

	"github.com/agview/agview/view"
)

// Summary returns one line of plain text that sums up v: its last run and
// how it ended (and how many runs the thread had), the tokens it reported,
// the subagent invocations by status, and the events seen and rejected. Run prints it when the
// program ends, so that it stays in the terminal once the screen is
// restored:
//
//	run r2 finished (2 runs) · 5 subagents: 4 finished, 1 errored · 769 events, none rejected
func Summary(v *view.View) string {
	var parts []string
	runs := v.Runs()
	if len(runs) == 0 {
		parts = append(parts, "no run")
	} else {
		r := runs[len(runs)-1]
		s := "run"
		if r.RunID != "" {
			s += " " + oneLine(r.RunID)
		}
		s += " " + string(r.Status)
		switch {
		case r.Error != nil:
			s += ": " + errorText(r.Error)
		case r.Status == view.RunInterrupted && len(r.Interrupts) > 0:
			s += ", " + plural(len(r.Interrupts), "interrupt") + " awaiting an answer"
		}
		if len(runs) > 1 {
			s += fmt.Sprintf(" (%d runs)", len(runs))
		}
		parts = append(parts, s)
		if t := r.Tokens(); t.Reported {
			parts = append(parts, tokensText(t))
		}
	}
	byStatus := map[view.Status]int{}
	n := 0
	for inv := range v.Invocations() {
		byStatus[inv.Status()]++
		n++
	}
	subs := plural(n, "subagent")
	if n > 0 {
		var counts []string
		for _, s := range []view.Status{view.Running, view.Finished, view.Suspended, view.Errored, view.Abandoned, view.Unannounced} {
			if byStatus[s] > 0 {
				counts = append(counts, fmt.Sprintf("%d %s", byStatus[s], s))
			}
		}
		subs += ": " + strings.Join(counts, ", ")
	}
	parts = append(parts, subs)
	rejected := "none rejected"
	if k := v.ViolationCount(); k > 0 {
		rejected = fmt.Sprintf("%d rejected", k)
	}
	parts = append(parts, plural(v.EventCount(), "event")+", "+rejected)
	return strings.Join(parts, " · ")
}

// tokensText is a run's token usage in one phrase: its tokens in, out and
// in all.
func tokensText(t view.Tokens) string {
	return fmt.Sprintf("tokens: %d in, %d out, %d total", t.Input, t.Output, t.Total)
}
