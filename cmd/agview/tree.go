package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// excerptLen is how many characters of a message the tree shows.
const excerptLen = 72

// writeTree prints v as a readable tree: the runs, the invocation tree with
// each invocation's messages, tool calls and steps, then the state and a
// count of diagnostics.
func writeTree(w io.Writer, v *view.View) error {
	var b strings.Builder
	runs := v.Runs()
	if len(runs) == 0 {
		b.WriteString("no runs\n")
	}
	for i, r := range runs {
		fmt.Fprintf(&b, "run %d  %s/%s  %s", i+1, orDash(r.ThreadID), orDash(r.RunID), r.Status)
		if r.Error != nil {
			fmt.Fprintf(&b, ": %s", r.Error.Message)
			if r.Error.Code != nil {
				fmt.Fprintf(&b, " (%s)", *r.Error.Code)
			}
		}
		if t := r.Tokens(); t.Reported {
			fmt.Fprintf(&b, "  tokens %d in, %d out, %d total", t.Input, t.Output, t.Total)
		}
		b.WriteByte('\n')
		for _, in := range r.Interrupts {
			fmt.Fprintf(&b, "  interrupt %s (%s) raised by %s\n", in.ID, in.Reason, ownerName(v, in.Subagent))
		}
	}
	b.WriteByte('\n')
	root := v.Root()
	fmt.Fprintf(&b, "parent agent  %s\n", root.Status())
	seen := map[string]bool{}
	writeInvocationBody(&b, v, root, "", seen)
	// Invocations the tree does not reach (should not happen, but never hide one).
	for inv := range v.Invocations() {
		if !seen[inv.ID()] {
			writeInvocation(&b, v, inv, "", true, seen)
		}
	}
	b.WriteString("\nstate: ")
	b.Write(indentJSON(v.State(), ""))
	b.WriteByte('\n')
	if p := v.PendingInterrupts(); len(p) > 0 {
		fmt.Fprintf(&b, "pending interrupts: %d\n", len(p))
	}
	var viol, warn int
	for _, d := range v.Diagnostics() {
		if d.Kind == view.DiagViolation {
			viol++
		} else {
			warn++
		}
	}
	fmt.Fprintf(&b, "events: %d, violations: %d, warnings: %d\n", v.EventCount(), viol, warn)
	_, err := io.WriteString(w, b.String())
	return err
}

// item is one line of an invocation's body, with its own nested lines.
type item struct {
	line     string
	children []string
	inv      *view.Invocation
}

func writeInvocation(b *strings.Builder, v *view.View, inv *view.Invocation, prefix string, last bool, seen map[string]bool) {
	branch, next := "├─ ", "│  "
	if last {
		branch, next = "└─ ", "   "
	}
	fmt.Fprintf(b, "%s%s%s\n", prefix, branch, invocationLine(inv))
	writeInvocationBody(b, v, inv, prefix+next, seen)
}

func invocationLine(inv *view.Invocation) string {
	var s strings.Builder
	s.WriteString(inv.Name())
	if inv.Name() != inv.ID() {
		fmt.Fprintf(&s, " [%s]", inv.ID())
	}
	fmt.Fprintf(&s, "  %s", inv.Status())
	if o := inv.Outcome(); o != nil && o.Type == event.SubagentSuspended && len(o.InterruptIDs) > 0 {
		fmt.Fprintf(&s, " (interrupts: %s)", strings.Join(o.InterruptIDs, ", "))
	}
	if e := inv.Error(); e != nil {
		fmt.Fprintf(&s, ": %s", e.Message)
	}
	if d := inv.Description(); d != "" {
		fmt.Fprintf(&s, " — %s", excerpt(d, excerptLen))
	}
	return s.String()
}

func writeInvocationBody(b *strings.Builder, v *view.View, inv *view.Invocation, prefix string, seen map[string]bool) {
	seen[inv.ID()] = true
	var items []item
	calls := map[string][]view.ToolCall{}
	for _, c := range inv.ToolCalls() {
		calls[c.MessageID] = append(calls[c.MessageID], c)
	}
	for m := range inv.Messages() {
		it := item{line: messageLine(m)}
		if st, ok := v.MessageStatus(m.ID); ok && st != view.EntityClosed {
			it.line += "  " + string(st)
		}
		for _, c := range calls[m.ID] {
			it.children = append(it.children, toolCallLine(c))
		}
		items = append(items, it)
	}
	for _, s := range inv.Steps() {
		items = append(items, item{line: fmt.Sprintf("step %s  %s", s.Name, s.Status)})
	}
	for _, id := range inv.Children() {
		if c := v.Invocation(id); c != nil && !seen[id] {
			items = append(items, item{inv: c})
		}
	}
	for i, it := range items {
		last := i == len(items)-1
		if it.inv != nil {
			writeInvocation(b, v, it.inv, prefix, last, seen)
			continue
		}
		branch, next := "├─ ", "│  "
		if last {
			branch, next = "└─ ", "   "
		}
		fmt.Fprintf(b, "%s%s%s\n", prefix, branch, it.line)
		for j, c := range it.children {
			br := "├─ "
			if j == len(it.children)-1 {
				br = "└─ "
			}
			fmt.Fprintf(b, "%s%s%s%s\n", prefix, next, br, c)
		}
	}
}

func messageLine(m event.Message) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s %s", m.Role, m.ID)
	if m.Role == event.RoleActivity && m.ActivityType != nil {
		fmt.Fprintf(&s, " (%s)", *m.ActivityType)
	}
	if txt := contentText(m.Content); txt != "" {
		fmt.Fprintf(&s, ": %s", quoteExcerpt(txt))
	}
	return s.String()
}

func toolCallLine(c view.ToolCall) string {
	var s strings.Builder
	fmt.Fprintf(&s, "tool call %s %s(%s)", c.ID, c.Name, excerpt(c.Arguments, excerptLen/2))
	if c.Status != view.EntityClosed {
		fmt.Fprintf(&s, " %s", c.Status)
	}
	if c.Result != nil {
		fmt.Fprintf(&s, " → %s", quoteExcerpt(contentText(c.Result)))
	}
	if len(c.Subagents) > 0 {
		fmt.Fprintf(&s, " spawned %s", strings.Join(c.Subagents, ", "))
	}
	return s.String()
}

// contentText returns a readable text for message content: the string
// itself, the text parts of an array, or compact JSON for anything else.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []event.ContentPart
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			if p.Text != nil {
				out = append(out, *p.Text)
			} else {
				out = append(out, "["+p.Type+"]")
			}
		}
		return strings.Join(out, " ")
	}
	var c bytes.Buffer
	if json.Compact(&c, raw) == nil {
		return c.String()
	}
	return string(raw)
}

func quoteExcerpt(s string) string {
	return fmt.Sprintf("%q", excerpt(strings.Join(strings.Fields(s), " "), excerptLen))
}

// excerpt cuts s to at most n characters, marking a cut with "…".
func excerpt(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func ownerName(v *view.View, id *string) string {
	if id == nil {
		return "the parent agent"
	}
	if inv := v.Invocation(*id); inv != nil && inv.Name() != *id {
		return fmt.Sprintf("%s [%s]", inv.Name(), *id)
	}
	return *id
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func indentJSON(raw json.RawMessage, prefix string) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, prefix, "  "); err != nil {
		return raw
	}
	return b.Bytes()
}
