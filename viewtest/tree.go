package viewtest

import (
	"fmt"
	"strings"

	"github.com/agview/agview/view"
)

// Tree renders the invocation tree compactly, one line per invocation,
// indented as it nests, with its status and counts:
//
//	parent agent finished · 4 messages · 2 tool calls
//	  researcher sa-1 finished · 3 messages · 2 tool calls · 1 step
//	    fact-checker sa-3 errored: source unavailable · 1 message
//
// It is meant for small goldens and failure messages.
func Tree(v *view.View) string {
	var b strings.Builder
	kids := map[string][]*view.Invocation{}
	var top []*view.Invocation
	for inv := range v.Invocations() {
		if p, ok := inv.ParentSubagentRunID(); ok && v.Invocation(p) != nil && !v.Invocation(p).IsRoot() {
			kids[p] = append(kids[p], inv)
		} else {
			top = append(top, inv)
		}
	}
	var walk func(inv *view.Invocation, depth int, seen map[string]bool)
	walk = func(inv *view.Invocation, depth int, seen map[string]bool) {
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString(line(inv))
		b.WriteByte('\n')
		if inv.IsRoot() {
			for _, c := range top {
				walk(c, depth+1, seen)
			}
			return
		}
		if seen[inv.ID()] {
			return
		}
		seen[inv.ID()] = true
		for _, c := range kids[inv.ID()] {
			walk(c, depth+1, seen)
		}
	}
	walk(v.Root(), 0, map[string]bool{})
	return b.String()
}

func line(inv *view.Invocation) string {
	parts := []string{label(inv) + " " + string(inv.Status())}
	if e := inv.Error(); e != nil && e.Message != "" {
		parts[0] += ": " + e.Message
	}
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(len(inv.MessageIDs()), "message", "messages")
	add(len(inv.ToolCalls()), "tool call", "tool calls")
	add(len(inv.Steps()), "step", "steps")
	return strings.Join(parts, " · ")
}
