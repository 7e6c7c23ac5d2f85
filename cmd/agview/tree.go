package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/jsonindent"
	"github.com/agview/agview/internal/termsafe"
	"github.com/agview/agview/view"
)

// excerptLen is how many characters of a message the tree shows.
const excerptLen = 72

// Bounds of the tree: it is for reading, and a hostile stream must not turn
// a small input into a huge output (a deep chain of subagents indents each
// level further, so its unbounded text grows with the square of its depth).
// Whatever is cut is counted on a line of its own; replay --json has
// everything.
const (
	// treeMaxDepth is how many levels of nested invocations are shown.
	treeMaxDepth = 16
	// treeMaxItems is how many lines (messages, steps, invocations) an
	// invocation shows, and how many tool calls a message shows.
	treeMaxItems = 200
	// stateMaxDepth and stateMaxItems bound the state the same way.
	stateMaxDepth = 16
	stateMaxItems = 100
)

// writeTree prints v as a readable tree: the runs, the invocation tree with
// each invocation's messages, tool calls and steps, then the state and a
// count of diagnostics. It writes as it goes, within the bounds above.
func writeTree(w io.Writer, v *view.View) error {
	b := bufio.NewWriterSize(w, 64<<10)
	runs := v.Runs()
	if len(runs) == 0 {
		b.WriteString("no runs\n")
	}
	for i, r := range runs {
		fmt.Fprintf(b, "run %d  %s/%s  %s", i+1, orDash(r.ThreadID), orDash(r.RunID), r.Status)
		if r.Error != nil {
			fmt.Fprintf(b, ": %s", excerpt(r.Error.Message, excerptLen))
			if r.Error.Code != nil {
				fmt.Fprintf(b, " (%s)", excerpt(*r.Error.Code, excerptLen))
			}
		}
		if t := r.Tokens(); t.Reported {
			fmt.Fprintf(b, "  tokens %d in, %d out, %d total", t.Input, t.Output, t.Total)
		}
		b.WriteByte('\n')
		for j, in := range r.Interrupts {
			if j == treeMaxItems {
				fmt.Fprintf(b, "  … %s\n", plural(len(r.Interrupts)-j, "more interrupt"))
				break
			}
			fmt.Fprintf(b, "  interrupt %s (%s) raised by %s\n", excerpt(in.ID, excerptLen), excerpt(in.Reason, excerptLen), ownerName(v, in.Subagent))
		}
	}
	b.WriteByte('\n')
	root := v.Root()
	fmt.Fprintf(b, "parent agent  %s\n", root.Status())
	seen := map[string]bool{}
	writeInvocationBody(b, v, root, "", 1, seen)
	// Invocations the tree does not reach (should not happen, but never hide one).
	for inv := range v.Invocations() {
		if !seen[inv.ID()] {
			writeInvocation(b, v, inv, "", true, 1, seen)
		}
	}
	b.WriteString("\nstate: ")
	state := jsonindent.NewWriter(b, jsonindent.Options{Indent: "  ", MaxDepth: stateMaxDepth, MaxItems: stateMaxItems, Safe: true})
	state.Write(v.State())
	state.Close()
	b.WriteByte('\n')
	if p := v.PendingInterrupts(); len(p) > 0 {
		fmt.Fprintf(b, "pending interrupts: %d\n", len(p))
	}
	viol, warn := diagCounts(v)
	fmt.Fprintf(b, "events: %d, violations: %d, warnings: %d\n", v.EventCount(), viol, warn)
	return b.Flush()
}

// diagCounts returns how many violations and warnings v recorded, those it
// no longer keeps (View.DiagnosticsOmitted) included.
func diagCounts(v *view.View) (viol, warn int) {
	keptViol := 0
	for _, d := range v.Diagnostics() {
		if d.Kind == view.DiagViolation {
			keptViol++
		} else {
			warn++
		}
	}
	viol = v.ViolationCount()
	warn += max(0, v.DiagnosticsOmitted()-(viol-keptViol))
	return viol, warn
}

// item is one line of an invocation's body, with its own nested lines.
type item struct {
	line     string
	children []string
	inv      *view.Invocation
}

// writeInvocation writes inv, at nesting level depth (1 for a child of the
// parent agent), and its body.
func writeInvocation(b *bufio.Writer, v *view.View, inv *view.Invocation, prefix string, last bool, depth int, seen map[string]bool) {
	branch, next := "├─ ", "│  "
	if last {
		branch, next = "└─ ", "   "
	}
	fmt.Fprintf(b, "%s%s%s\n", prefix, branch, invocationLine(inv))
	writeInvocationBody(b, v, inv, prefix+next, depth+1, seen)
}

func invocationLine(inv *view.Invocation) string {
	var s strings.Builder
	s.WriteString(excerpt(inv.Name(), excerptLen))
	if inv.Name() != inv.ID() {
		fmt.Fprintf(&s, " [%s]", excerpt(inv.ID(), excerptLen))
	}
	fmt.Fprintf(&s, "  %s", inv.Status())
	if o := inv.Outcome(); o != nil && o.Type == event.SubagentSuspended && len(o.InterruptIDs) > 0 {
		fmt.Fprintf(&s, " (interrupts: %s)", excerpt(strings.Join(o.InterruptIDs, ", "), excerptLen))
	}
	if e := inv.Error(); e != nil {
		fmt.Fprintf(&s, ": %s", excerpt(e.Message, excerptLen))
	}
	if d := inv.Description(); d != "" {
		fmt.Fprintf(&s, " — %s", excerpt(d, excerptLen))
	}
	return s.String()
}

// writeInvocationBody writes the lines under inv, whose children are at
// nesting level depth: at most treeMaxItems messages and steps, then at
// most treeMaxItems child invocations, none deeper than treeMaxDepth; what
// is cut is counted on a line of its own (an invocation with everything
// below it).
func writeInvocationBody(b *bufio.Writer, v *view.View, inv *view.Invocation, prefix string, depth int, seen map[string]bool) {
	seen[inv.ID()] = true
	var items []item
	more := 0 // messages and steps not shown
	calls := map[string][]view.ToolCall{}
	for _, c := range inv.ToolCalls() {
		calls[c.MessageID] = append(calls[c.MessageID], c)
	}
	for m := range inv.Messages() {
		if len(items) == treeMaxItems {
			more++
			continue
		}
		it := item{line: messageLine(m)}
		if st, ok := v.MessageStatus(m.ID); ok && st != view.EntityClosed {
			it.line += "  " + string(st)
		}
		for i, c := range calls[m.ID] {
			if i == treeMaxItems {
				it.children = append(it.children, fmt.Sprintf("… %s", plural(len(calls[m.ID])-i, "more tool call")))
				break
			}
			it.children = append(it.children, toolCallLine(c))
		}
		items = append(items, it)
	}
	for _, s := range inv.Steps() {
		if len(items) == treeMaxItems {
			more++
			continue
		}
		items = append(items, item{line: fmt.Sprintf("step %s  %s", excerpt(s.Name, excerptLen), s.Status)})
	}
	if more > 0 {
		items = append(items, item{line: fmt.Sprintf("… %s and steps", plural(more, "more message"))})
	}
	shown, deep, wide := 0, 0, 0 // invocations shown, cut by depth, cut by width
	for _, id := range inv.Children() {
		c := v.Invocation(id)
		if c == nil || seen[id] {
			continue
		}
		switch {
		case depth > treeMaxDepth:
			seen[id] = true
			deep += 1 + hideDescendants(v, c, seen)
		case shown == treeMaxItems:
			seen[id] = true
			wide += 1 + hideDescendants(v, c, seen)
		default:
			// Marked now, so that a repeated id is not shown twice.
			seen[id] = true
			shown++
			items = append(items, item{inv: c})
		}
	}
	if deep > 0 {
		items = append(items, item{line: fmt.Sprintf("… %s deeper than %d levels (agview replay --json shows them)", plural(deep, "nested invocation"), treeMaxDepth)})
	}
	if wide > 0 {
		items = append(items, item{line: fmt.Sprintf("… %s, counting those they spawned (agview replay --json shows them)", plural(wide, "more invocation"))})
	}
	for i, it := range items {
		last := i == len(items)-1
		if it.inv != nil {
			writeInvocation(b, v, it.inv, prefix, last, depth, seen)
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

// plural returns "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// hideDescendants marks every invocation below inv as seen, without
// recursion, and returns how many there are.
func hideDescendants(v *view.View, inv *view.Invocation, seen map[string]bool) int {
	n := 0
	stack := []*view.Invocation{inv}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, id := range x.Children() {
			if c := v.Invocation(id); c != nil && !seen[id] {
				seen[id] = true
				n++
				stack = append(stack, c)
			}
		}
	}
	return n
}

func messageLine(m event.Message) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s %s", excerpt(string(m.Role), excerptLen), excerpt(m.ID, excerptLen))
	if m.Role == event.RoleActivity && m.ActivityType != nil {
		fmt.Fprintf(&s, " (%s)", excerpt(*m.ActivityType, excerptLen))
	}
	if txt := contentText(m.Content); txt != "" {
		fmt.Fprintf(&s, ": %s", quoteExcerpt(txt))
	}
	return s.String()
}

func toolCallLine(c view.ToolCall) string {
	var s strings.Builder
	fmt.Fprintf(&s, "tool call %s %s(%s)", excerpt(c.ID, excerptLen), excerpt(c.Name, excerptLen), excerpt(c.Arguments, excerptLen/2))
	if c.Status != view.EntityClosed {
		fmt.Fprintf(&s, " %s", c.Status)
	}
	if c.Result != nil {
		fmt.Fprintf(&s, " → %s", quoteExcerpt(contentText(c.Result)))
	}
	if len(c.Subagents) > 0 {
		fmt.Fprintf(&s, " spawned %s", excerpt(strings.Join(c.Subagents, ", "), excerptLen))
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

// excerpt cuts s to at most n characters, marking a cut with "…", and
// escapes what a terminal would interpret (termsafe.Escape): every value
// from the wire the tree shows goes through it.
func excerpt(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return termsafe.Escape(s)
	}
	r := []rune(s)
	return termsafe.Escape(string(r[:n-1])) + "…"
}

func ownerName(v *view.View, id *string) string {
	if id == nil {
		return "the parent agent"
	}
	if inv := v.Invocation(*id); inv != nil && inv.Name() != *id {
		return fmt.Sprintf("%s [%s]", excerpt(inv.Name(), excerptLen), excerpt(*id, excerptLen))
	}
	return excerpt(*id, excerptLen)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return termsafe.Escape(s)
}
