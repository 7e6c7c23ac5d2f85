package rules

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// Outcome is what agview makes of a rule's example.
type Outcome struct {
	// Rejected reports whether the example's last event was rejected.
	Rejected bool
	// Says holds what "agview verify" prints about the example's last event
	// (or its end), one diagnostic a line, as
	// "line L: event I (TYPE): RULE: message"; empty when it says nothing.
	Says []string
	// Earlier holds diagnostics about events before the last one: an example
	// should have none that are violations.
	Earlier []view.Diagnostic
}

// Fold runs r's example through the reducer and reports what it says.
func Fold(r Rule) Outcome {
	b := reducer.NewBuilder(view.New())
	for _, line := range r.Example {
		_ = b.FoldJSON([]byte(line))
	}
	var v *view.View
	switch r.End {
	case "eof":
		v = b.End(nil)
	case "broken":
		v = b.End(errors.New("read tcp 127.0.0.1:8000: connection reset by peer"))
	default:
		v = b.View()
	}
	last := len(r.Example) - 1
	var out Outcome
	for _, d := range v.Diagnostics() {
		if d.Index < last || (r.End != "" && d.Index < len(r.Example)) {
			out.Earlier = append(out.Earlier, d)
			continue
		}
		if d.Kind == view.DiagViolation {
			out.Rejected = true
		}
		out.Says = append(out.Says, format(d, len(r.Example)))
	}
	return out
}

// format writes d as "agview verify" does for a JSONL recording.
func format(d view.Diagnostic, events int) string {
	if d.Index >= events {
		return fmt.Sprintf("end of stream after %d events: %s: %s", d.Index, d.Rule, d.Message)
	}
	t := ""
	if d.Type != "" {
		t = " (" + string(d.Type) + ")"
	}
	return fmt.Sprintf("line %d: event %d%s: %s: %s", d.Index+1, d.Index, t, d.Rule, d.Message)
}

// Text writes r as "agview explain ID" prints it.
func Text(r Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\n", r.ID, r.Title)
	b.WriteString(wrap(r.Text, 78))
	b.WriteString("\n\nA stream that shows it (JSONL, one event a line):\n\n")
	for _, l := range r.Example {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	switch r.End {
	case "eof":
		b.WriteString("  (the stream ends here)\n")
	case "broken":
		b.WriteString("  (the connection breaks here)\n")
	}
	o := Fold(r)
	if len(o.Says) == 0 {
		b.WriteString("\nagview accepts it and says nothing.\n")
	} else {
		verdict := "accepts it and says"
		if o.Rejected {
			verdict = "rejects the last event"
		}
		fmt.Fprintf(&b, "\nagview %s:\n\n", verdict)
		for _, s := range o.Says {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	fmt.Fprintf(&b, "\nFix: %s\n", wrap(r.Fix, 73))
	return b.String()
}

// Markdown returns docs/rules.md, generated from the table.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# The rules agview checks\n\n")
	b.WriteString("<!-- Generated from internal/rules by `go test ./internal/rules -update`; do not edit. -->\n\n")
	b.WriteString("Every rule id that `agview verify` prints, what it says, a stream that shows it, what agview prints for\n")
	b.WriteString("that stream, and how a producer fixes it. `agview explain ID` prints one entry; `agview explain` lists them.\n")
	b.WriteString("R rules are the subagent rules, V the general stream rules, A1 the message identity rule, E the schema\n")
	b.WriteString("rules and G agview's decisions where the protocol leaves a choice.\n\n")
	for _, r := range table {
		fmt.Fprintf(&b, "- [%s](#%s): %s\n", r.ID, strings.ToLower(r.ID), r.Title)
	}
	for _, r := range table {
		fmt.Fprintf(&b, "\n## %s\n\n**%s.** %s\n\n", r.ID, r.Title, r.Text)
		b.WriteString("```jsonl\n")
		for _, l := range r.Example {
			b.WriteString(l + "\n")
		}
		b.WriteString("```\n\n")
		switch r.End {
		case "eof":
			b.WriteString("The stream ends there.\n\n")
		case "broken":
			b.WriteString("The connection breaks there.\n\n")
		}
		o := Fold(r)
		switch {
		case len(o.Says) == 0:
			b.WriteString("agview accepts it and says nothing.\n\n")
		default:
			if o.Rejected {
				b.WriteString("agview rejects the last event:\n\n")
			} else {
				b.WriteString("agview accepts it and says:\n\n")
			}
			b.WriteString("```\n")
			for _, s := range o.Says {
				b.WriteString(s + "\n")
			}
			b.WriteString("```\n\n")
		}
		fmt.Fprintf(&b, "**Fix:** %s\n", r.Fix)
	}
	return b.String()
}

// wrap folds s into lines of at most width columns.
func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if n+1+len(w) > width {
				b.WriteByte('\n')
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
