package viewtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// Find returns the invocation key names: a subagentRunId, or a name that
// exactly one invocation has ("" or "parent" is the parent agent). The error
// lists what there is when nothing, or more than one invocation, matches.
func Find(v *view.View, key string) (*view.Invocation, error) {
	if key == "" || key == "parent" {
		return v.Root(), nil
	}
	if inv := v.Invocation(key); inv != nil && !inv.IsRoot() {
		return inv, nil
	}
	var named []*view.Invocation
	var all []string
	for inv := range v.Invocations() {
		all = append(all, label(inv))
		if inv.Name() == key {
			named = append(named, inv)
		}
	}
	switch len(named) {
	case 1:
		return named[0], nil
	case 0:
		if len(all) == 0 {
			return nil, fmt.Errorf("no invocation %q: the view has no subagent invocations", key)
		}
		return nil, fmt.Errorf("no invocation %q; there are: %s", key, strings.Join(all, ", "))
	}
	var ids []string
	for _, inv := range named {
		ids = append(ids, inv.ID())
	}
	return nil, fmt.Errorf("%d invocations are named %q (%s): name one by its id", len(named), key, strings.Join(ids, ", "))
}

// label names an invocation as failure messages do: "researcher sa-2", or
// "parent agent".
func label(inv *view.Invocation) string {
	if inv.IsRoot() {
		return "parent agent"
	}
	if inv.Name() == "" || inv.Name() == inv.ID() {
		return inv.ID()
	}
	return inv.Name() + " " + inv.ID()
}

// Texts returns the text of each of inv's messages, in order, as
// event.Message.Text gives it; with roles, only messages of those roles.
func Texts(inv *view.Invocation, roles ...event.Role) []string {
	var out []string
	for m := range inv.Messages() {
		if len(roles) > 0 && !slices.Contains(roles, m.Role) {
			continue
		}
		out = append(out, m.Text())
	}
	return out
}

// Children returns the invocations inv started, in order.
func Children(v *view.View, inv *view.Invocation) []*view.Invocation {
	var out []*view.Invocation
	for _, id := range inv.Children() {
		if c := v.Invocation(id); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// Call is a tool call as a test reads it.
type Call struct {
	ID, Name string
	// Arguments is the arguments' JSON text.
	Arguments string
	// Result is the tool result's text (Message.Text of the tool message),
	// "" while unanswered.
	Result   string
	Answered bool
	Status   view.EntityStatus
}

// Calls returns inv's tool calls, in order.
func Calls(inv *view.Invocation) []Call {
	var out []Call
	for _, tc := range inv.ToolCalls() {
		c := Call{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments, Status: tc.Status, Answered: tc.ResultMessageID != ""}
		if c.Answered {
			m := event.Message{Content: tc.Result}
			c.Result = m.Text()
		}
		out = append(out, c)
	}
	return out
}

// CallNamed returns inv's only tool call named name.
func CallNamed(inv *view.Invocation, name string) (Call, error) {
	var found []Call
	var names []string
	for _, c := range Calls(inv) {
		names = append(names, c.Name)
		if c.Name == name {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return Call{}, fmt.Errorf("%s made no tool call %q (calls: %s)", label(inv), name, strings.Join(names, ", "))
	}
	return Call{}, fmt.Errorf("%s made %d tool calls named %q", label(inv), len(found), name)
}

// Steps returns the names of inv's steps, in order.
func Steps(inv *view.Invocation) []string {
	var out []string
	for _, s := range inv.Steps() {
		out = append(out, s.Name)
	}
	return out
}

// StateAt returns the value at the JSON pointer (RFC 6901) in the view's
// state; "" is the whole document.
func StateAt(v *view.View, pointer string) (json.RawMessage, error) {
	doc, err := decode(v.State())
	if err != nil {
		return nil, err
	}
	if pointer != "" && !strings.HasPrefix(pointer, "/") {
		return nil, fmt.Errorf("state %q: not a JSON pointer (it starts with /)", pointer)
	}
	cur := doc
	if pointer != "" {
		for _, tok := range strings.Split(pointer[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch x := cur.(type) {
			case map[string]any:
				next, ok := x[tok]
				if !ok {
					return nil, fmt.Errorf("state %s: no member %q", pointer, tok)
				}
				cur = next
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
					return nil, fmt.Errorf("state %s: no element %q (the array has %d)", pointer, tok, len(x))
				}
				cur = x[i]
			default:
				return nil, fmt.Errorf("state %s: %q is inside a %T, not an object or array", pointer, tok, x)
			}
		}
	}
	return json.Marshal(cur)
}

// Violations returns the rule id of each rejected event, in order.
func Violations(v *view.View) []string {
	var out []string
	for _, d := range v.Diagnostics() {
		if d.Kind == view.DiagViolation {
			out = append(out, d.Rule)
		}
	}
	return out
}

// ExpectNoViolation fails t when any event was rejected, listing them.
func ExpectNoViolation(t testing.TB, v *view.View) {
	t.Helper()
	var lines []string
	for _, d := range v.Diagnostics() {
		if d.Kind == view.DiagViolation {
			lines = append(lines, fmt.Sprintf("  event %d (%s): %s: %s", d.Index, d.Type, d.Rule, d.Message))
		}
	}
	if len(lines) > 0 {
		t.Errorf("viewtest: %s rejected:\n%s", count(len(lines), "event"), strings.Join(lines, "\n"))
	}
}

// ExpectViolations fails t unless the rejected events broke exactly rules,
// in order.
func ExpectViolations(t testing.TB, v *view.View, rules ...string) {
	t.Helper()
	if got := Violations(v); !slices.Equal(got, rules) {
		t.Errorf("viewtest: rejected events broke %v, want %v", got, rules)
	}
}

// RequireInvocation is Find that stops the test when nothing matches.
func RequireInvocation(t testing.TB, v *view.View, key string) *view.Invocation {
	t.Helper()
	inv, err := Find(v, key)
	if err != nil {
		t.Fatalf("viewtest: %v\n%s", err, Tree(v))
	}
	return inv
}

// ExpectStatus fails t unless the invocation key names has status want.
func ExpectStatus(t testing.TB, v *view.View, key string, want view.Status) {
	t.Helper()
	inv, err := Find(v, key)
	if err != nil {
		t.Errorf("viewtest: %v", err)
		return
	}
	if got := inv.Status(); got != want {
		t.Errorf("viewtest: %s is %s, want %s\n%s", label(inv), got, want, Tree(v))
	}
}

// ExpectText fails t unless one of the invocation's messages contains
// substr.
func ExpectText(t testing.TB, v *view.View, key, substr string) {
	t.Helper()
	inv, err := Find(v, key)
	if err != nil {
		t.Errorf("viewtest: %v", err)
		return
	}
	texts := Texts(inv)
	for _, s := range texts {
		if strings.Contains(s, substr) {
			return
		}
	}
	t.Errorf("viewtest: no message of %s contains %q (%d messages)", label(inv), substr, len(texts))
}

// ExpectState fails t unless the state at pointer equals want (JSON; key
// order and spacing aside).
func ExpectState(t testing.TB, v *view.View, pointer, want string) {
	t.Helper()
	got, err := StateAt(v, pointer)
	if err != nil {
		t.Errorf("viewtest: %v", err)
		return
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("viewtest: state %s: %v", pointer, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Errorf("viewtest: ExpectState: want is not JSON: %v", err)
		return
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("viewtest: state %s is %s, want %s", pointer, gb, wb)
	}
}

// count returns "1 event", "2 events": n and noun, plural unless n is 1.
func count(n int, noun string) string { return strconv.Itoa(n) + " " + plural(n, noun) }

// plural returns noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
