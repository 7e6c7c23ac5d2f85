package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/agview/agview/internal/rules"
)

const explainHelp = `Explains a rule id that "agview verify" prints (R1–R28 for subagents, V1–V17
for the stream, A1, E1–E4 for the schema, G decisions): the rule in a
paragraph, a stream that shows it, what agview prints for that stream, and how
a producer fixes it. With no RULE, lists every rule. The same text is in
docs/rules.md.

Examples:
  agview explain
  agview explain R15
`

func runExplain(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "explain", "[RULE]", explainHelp)
	pos, code, done := parseCommand(e, fs, args)
	if done {
		return code
	}
	switch len(pos) {
	case 0:
		for _, r := range rules.All() {
			fmt.Fprintf(e.stdout, "%-4s %s\n", r.ID, r.Title)
		}
		fmt.Fprintln(e.stdout, `
Run "agview explain RULE" for one rule: what it says, a stream that breaks it,
the message agview prints, and how to fix it.`)
		return exitOK
	case 1:
	default:
		return e.fail("explain", false, fmt.Errorf("want at most one RULE argument, got %d", len(pos)))
	}
	r, ok := rules.Lookup(strings.TrimSpace(pos[0]))
	if !ok {
		return e.fail("explain", false, fmt.Errorf("no rule %q; \"agview explain\" lists them", pos[0]))
	}
	fmt.Fprint(e.stdout, rules.Text(r))
	return exitOK
}
