package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// rootKey is the pane key of the parent agent; a subagent's pane key is the
// position of its invocation in view.Invocations (first-seen order), which
// never changes from one view of a stream to the next.
const rootKey = -1

// pane is one invocation's place in the layout.
type pane struct {
	key    int
	parent int // the parent pane's key; rootKey's parent is rootKey
	depth  int
	inv    *view.Invocation
	// hidden counts the invocations below this one that have no pane of
	// their own: deeper than maxPaneDepth, or past maxPaneChildren children
	// (with everything they spawned).
	hidden int
}

// Bounds of the pane tree: a hostile stream (a chain of subagents 100,000
// deep, or one invocation spawning 100,000) must not make a pane per
// invocation; what is cut is counted under the last pane shown.
const (
	maxPaneDepth    = 16
	maxPaneChildren = 200
)

// panes lists the invocations of v depth first, as the tree nests: the
// parent agent, then each invocation followed by the ones it spawned, in
// start order, at most maxPaneDepth levels deep and maxPaneChildren
// children wide. Invocations the tree does not reach (an id reused in a
// later run leaves the earlier invocation without a parent pointing at it)
// follow at the first level, in first-seen order.
func panes(v *view.View) []pane {
	keys := make(map[*view.Invocation]int, v.InvocationCount())
	i := 0
	for inv := range v.Invocations() {
		keys[inv] = i
		i++
	}
	out := make([]pane, 0, len(keys)+1)
	seen := make([]bool, len(keys))
	// hide marks inv and everything below it seen, without recursion, and
	// returns how many invocations that is.
	hide := func(inv *view.Invocation) int {
		n := 0
		stack := []*view.Invocation{inv}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if k, ok := keys[x]; ok {
				if seen[k] {
					continue
				}
				seen[k] = true
				n++
			}
			for _, id := range x.Children() {
				stack = append(stack, v.Invocation(id))
			}
		}
		return n
	}
	var walk func(inv *view.Invocation, key, parent, depth int)
	walk = func(inv *view.Invocation, key, parent, depth int) {
		at := len(out)
		out = append(out, pane{key: key, parent: parent, depth: depth, inv: inv})
		if key >= 0 {
			seen[key] = true
		}
		shown := 0
		for _, id := range inv.Children() {
			c := v.Invocation(id)
			k, ok := keys[c]
			if !ok || seen[k] {
				continue
			}
			if depth+1 > maxPaneDepth || shown == maxPaneChildren {
				out[at].hidden += hide(c)
				continue
			}
			shown++
			walk(c, k, key, depth+1)
		}
	}
	walk(v.Root(), rootKey, rootKey, 0)
	i = 0
	for inv := range v.Invocations() {
		if !seen[i] {
			walk(inv, i, rootKey, 1)
		}
		i++
	}
	return out
}

// paneLook is everything a pane's rendering depends on besides its
// invocation: panes are re-rendered only when one of these or the
// invocation changes.
type paneLook struct {
	width    int
	expanded bool
	selected bool
	spin     string // the spinner frame, "" when nothing in the pane runs
	ask      string // what the invocation's pending interrupts ask, "" when none
}

// Limits of what an expanded pane shows of one item.
const (
	maxTextLines   = 8 // a message: its last lines
	maxArgLines    = 3 // a tool call's arguments
	maxResultLines = 3 // a tool call's result
)

// renderPane draws inv's pane in w cells: a box whose title line carries
// the expand marker, status icon, name, id and status word, and whose body
// shows the invocation's latest activity (collapsed) or its steps, messages,
// reasoning, tool calls with arguments and results, activity and outcome
// (expanded). name resolves invocation ids to names for spawned subagents;
// status tells a message's status (view.View.MessageStatus), which lives
// with the message in its invocation, so a pane cached by invocation stays
// true.
func renderPane(inv *view.Invocation, look paneLook, t time.Time, name func(id string) string, status func(id string) view.EntityStatus) []string {
	w := look.width
	inner := max(w-4, 2)
	b := invBadge(inv.Status(), t)

	marker := "▸ "
	if look.expanded {
		marker = "▾ "
	}
	label := inv.Name()
	if inv.IsRoot() {
		label = "parent agent"
	}
	title := []styled{
		plain(marker),
		with(b.style, b.icon+" "),
		with(stBold, oneLine(label)),
	}
	if !inv.IsRoot() && inv.Name() != inv.ID() {
		title = append(title, with(stFaint, " "+oneLine(inv.ID())))
	}
	right := []styled{with(b.style, b.word)}

	var body [][]styled
	if look.expanded {
		body = expandedBody(inv, inner, t, look.ask, name, status)
	} else {
		body = collapsedBody(inv, inner, t, look.ask, status)
	}
	border := stBorder
	edges := roundEdges
	if look.selected {
		border = stSelected
		edges = heavyEdges
	}
	return box(w, edges, border, title, right, body)
}

// edges are the characters of a box.
type edges struct{ tl, tr, bl, br, h, v string }

var (
	roundEdges = edges{"╭", "╮", "╰", "╯", "─", "│"}
	heavyEdges = edges{"┏", "┓", "┗", "┛", "━", "┃"}
)

// box draws a w-cell-wide box with title on the left of its top edge and
// right on the right, around body lines (each cut to the inner width).
func box(w int, e edges, border style, title, right []styled, body [][]styled) []string {
	if w < 8 {
		w = 8
	}
	inner := w - 4
	out := make([]string, 0, len(body)+2)

	// ╭─ title ───── right ─╮: the title gives way to the right part, the
	// right part disappears when it would take more than half the line.
	rw := runsWidth(right)
	if rw > (w-9)/2 {
		right, rw = nil, 0
	}
	extra := 6 // "╭─ ", the space after the title, "─╮"
	if rw > 0 {
		extra += 2 + rw // a space either side of the right part
	}
	tl := strings.TrimRight(line(w-extra-1, title...), " ")
	fill := w - extra - ansi.StringWidthWc(tl)
	top := border.render(e.tl+e.h) + " " + tl + " " + border.render(strings.Repeat(e.h, max(fill, 0)))
	if rw > 0 {
		top += " " + line(rw, right...) + " "
	}
	top += border.render(e.h + e.tr)
	out = append(out, top)

	side := border.render(e.v)
	for _, runs := range body {
		out = append(out, side+" "+line(inner, runs...)+" "+side)
	}
	out = append(out, border.render(e.bl+strings.Repeat(e.h, w-2)+e.br))
	return out
}

// collapsedBody is two lines: what the invocation is (its description, or
// counts for one without) and the latest thing it did; before that, the last
// thing the user said to it, when that is not the latest; and after it,
// what it asks, when an interrupt it raised awaits an answer.
func collapsedBody(inv *view.Invocation, w int, t time.Time, ask string, status func(string) view.EntityStatus) [][]styled {
	var body [][]styled
	first := oneLine(inv.Description())
	if first == "" {
		first = counts(inv)
	}
	if first != "" {
		body = append(body, []styled{with(stFaint, first)})
	}
	last := latest(inv, w, t, status)
	var said *event.Message
	for m := range inv.Messages() {
		if m.Role == event.RoleUser {
			said = &m
		}
	}
	if said != nil {
		prefix, pst, st := rolePrefix(said)
		user := []styled{with(pst, prefix), with(st, truncate(oneLine(messageText(said)), w-width(prefix)))}
		if runsWidth(user) != runsWidth(last) || user[1].text != last[len(last)-1].text {
			body = append(body, user)
		}
	}
	body = append(body, last)
	if ask != "" {
		body = append(body, []styled{with(stSuspend, "‖ asks: "), with(stActivity, ask)})
	}
	return body
}

// stepChip is one step name shown in a pane: a subagent resumed in a later
// run takes its steps again, and each name is shown once, with the status
// of its latest step and how many times it ran.
type stepChip struct {
	Name   string
	Status view.EntityStatus
	times  int
}

func (c stepChip) label() string {
	if c.times > 1 {
		return fmt.Sprintf("%s ×%d", oneLine(c.Name), c.times)
	}
	return oneLine(c.Name)
}

// stepChips folds steps into one chip per name, in the order the names
// first came.
func stepChips(steps []view.Step) []stepChip {
	var chips []stepChip
	at := map[string]int{}
	for _, s := range steps {
		i, ok := at[s.Name]
		if !ok {
			at[s.Name] = len(chips)
			chips = append(chips, stepChip{Name: s.Name, Status: s.Status, times: 1})
			continue
		}
		chips[i].Status = s.Status
		chips[i].times++
	}
	return chips
}

// counts summarises an invocation's contents, "" when it has none.
func counts(inv *view.Invocation) string {
	var msgs, calls int
	for m := range inv.Messages() {
		if m.Role != event.RoleTool {
			msgs++
		}
		calls += len(m.ToolCalls)
	}
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{msgs, "message"}, {calls, "tool call"}, {len(inv.Steps()), "step"}, {len(inv.Children()), "subagent"}} {
		if c.n > 0 {
			parts = append(parts, plural(c.n, c.what))
		}
	}
	return strings.Join(parts, " · ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// latest is one line: an errored invocation's error, else the last thing in
// its timeline: the end of a message still streaming (so the text moves as
// it arrives), the start of a finished one (marked when it was cut off), or
// a tool call and its result.
func latest(inv *view.Invocation, w int, t time.Time, status func(string) view.EntityStatus) []styled {
	if e := inv.Error(); e != nil {
		return []styled{with(stError, "✗ "+errorText(e))}
	}
	unclosed := unclosedSet(inv, status)
	var last *event.Message
	for m := range inv.Messages() {
		switch m.Role {
		case event.RoleTool:
			continue // shown with its call
		case event.RoleAssistant:
			if len(m.ToolCalls) == 0 && contentText(m.Content) == "" && unclosed[m.ID] == "" {
				continue
			}
		}
		last = &m
	}
	if last == nil {
		if inv.Status() == view.Running {
			return []styled{with(stFaint, "waiting for the first message…")}
		}
		return []styled{with(stFaint, "no messages")}
	}
	if last.Role == event.RoleAssistant && len(last.ToolCalls) > 0 {
		calls := inv.ToolCalls()
		id := last.ToolCalls[len(last.ToolCalls)-1].ID
		for _, c := range calls {
			if c.ID == id {
				return toolSummary(c, t)
			}
		}
	}
	prefix, pst, st := rolePrefix(last)
	text := oneLine(messageText(last))
	room := w - width(prefix)
	switch unclosed[last.ID] {
	case view.EntityOpen:
		text = tail(text+"▍", room)
	case view.EntityAbandoned:
		mark := cutOff
		if text != "" {
			mark = " " + cutOff
		}
		text = truncate(text, room-width(mark))
		return []styled{with(pst, prefix), with(st, text), with(stError, mark)}
	default:
		text = truncate(text, room)
	}
	return []styled{with(pst, prefix), with(st, text)}
}

// cutOff marks a text or reasoning message abandoned while it streamed: its
// run errored, its transport broke or its stream was cancelled (G11).
const cutOff = "⊘ cut off"

// toolSummary is one line for a tool call: name, arguments, and its result
// or what it waits for.
func toolSummary(c view.ToolCall, t time.Time) []styled {
	runs := []styled{with(stTool, "⚙ "+oneLine(c.Name))}
	if args := compactJSON([]byte(c.Arguments)); args != "" {
		runs = append(runs, with(stFaint, " "+args))
	}
	switch {
	case c.ResultMessageID != "":
		runs = append(runs, with(stResult, " → "+oneLine(contentText(c.Result))))
	case c.Status == view.EntityOpen:
		runs = append(runs, with(stFaint, " "+spinner(t)))
	case c.Status == view.EntityAbandoned:
		runs = append(runs, with(stError, " ⊘ abandoned"))
	default:
		runs = append(runs, with(stFaint, " … awaiting result"))
	}
	return runs
}

// rolePrefix is how a message's role shows before its text: the prefix,
// its style and the text's style. The user's messages stand out.
func rolePrefix(m *event.Message) (string, style, style) {
	switch m.Role {
	case event.RoleAssistant:
		return "› ", stFaint, stNone
	case event.RoleReasoning:
		return "thinking › ", stFaint, stThinking
	case event.RoleActivity:
		at := "activity"
		if m.ActivityType != nil {
			at = oneLine(*m.ActivityType)
		}
		return "◆ " + at + " ", stFaint, stActivity
	case event.RoleTool:
		return "↳ ", stFaint, stResult
	case event.RoleUser:
		return "user › ", stUser, stNone
	}
	return oneLine(string(m.Role)) + " › ", stFaint, stFaint
}

// messageText is the text a message shows.
func messageText(m *event.Message) string {
	if m.Role == event.RoleActivity {
		return compactJSON(m.Content)
	}
	s := contentText(m.Content)
	if m.Error != nil {
		s = strings.TrimSpace(s + "\nerror: " + clean(*m.Error))
	}
	return s
}

// unclosedSet maps the ids of inv's messages that are still open or were
// abandoned to that status, as status tells it; closed messages are absent.
// Only text and reasoning messages stream, so only they are looked up.
func unclosedSet(inv *view.Invocation, status func(string) view.EntityStatus) map[string]view.EntityStatus {
	var out map[string]view.EntityStatus
	for m := range inv.Messages() {
		if m.Role == event.RoleTool || m.Role == event.RoleActivity {
			continue
		}
		if s := status(m.ID); s == view.EntityOpen || s == view.EntityAbandoned {
			if out == nil {
				out = make(map[string]view.EntityStatus)
			}
			out[m.ID] = s
		}
	}
	return out
}

func errorText(e *view.Error) string {
	s := oneLine(e.Message)
	if e.Code != nil {
		s += " (" + oneLine(*e.Code) + ")"
	}
	return s
}

// expandedBody shows everything about the invocation, in order, and ask,
// what its pending interrupts ask.
func expandedBody(inv *view.Invocation, w int, t time.Time, ask string, name func(string) string, status func(string) view.EntityStatus) [][]styled {
	var body [][]styled
	add := func(runs ...styled) { body = append(body, runs) }
	// block adds text wrapped under a prefix (later lines hang under the
	// text), at most limit lines of it: the last ones while it streams, the
	// first ones once it is complete. It returns the indent of the text, for
	// lines that go under it.
	block := func(prefix string, pst style, text string, st style, limit int, streaming bool) int {
		if streaming {
			text += "▍"
		}
		if pw := width(prefix); pw > w/3 && pw < w {
			// A long prefix (a tool's name) leaves too little room to hang
			// the text under it: the text starts on the next line.
			add(with(pst, prefix))
			prefix = "  "
		}
		pw := width(prefix)
		lines := wrap(text, max(w-pw, 1))
		more := ""
		if len(lines) > limit {
			n := len(lines) - limit + 1
			if streaming {
				lines = lines[n:]
				add(with(stFaint, spaces(pw)+"⋯ "+plural(n, "earlier line")))
			} else {
				lines = lines[:limit-1]
				more = "⋯ " + plural(n, "more line")
			}
		}
		for i, l := range lines {
			p := prefix
			if i > 0 {
				p = spaces(pw)
			}
			add(with(pst, p), with(st, l))
		}
		if more != "" {
			add(with(stFaint, spaces(pw)+more))
		}
		return pw
	}

	if d := inv.Description(); d != "" {
		block("", stFaint, clean(d), stFaint, maxTextLines, false)
	}
	if steps := stepChips(inv.Steps()); len(steps) > 0 {
		runs := []styled{with(stFaint, "steps ")}
		for i, s := range steps {
			if i > 0 {
				runs = append(runs, with(stFaint, " · "))
			}
			icon := entityIcon(s.Status, t)
			st := stOK
			switch s.Status {
			case view.EntityOpen:
				st = stRunning
			case view.EntityAbandoned:
				st = stError
			}
			runs = append(runs, with(st, icon+" "), plain(s.label()))
		}
		// Steps wrap as one text; the icons' colours go with it only when
		// the line fits, which it usually does.
		if runsWidth(runs) <= w {
			add(runs...)
		} else {
			var parts []string
			for _, s := range steps {
				parts = append(parts, entityIcon(s.Status, t)+" "+s.label())
			}
			block("steps ", stFaint, strings.Join(parts, " · "), stNone, maxTextLines, false)
		}
	}

	calls := map[string][]view.ToolCall{}
	answered := map[string]bool{}
	for _, c := range inv.ToolCalls() {
		calls[c.MessageID] = append(calls[c.MessageID], c)
		answered[c.ID] = true
	}
	unclosed := unclosedSet(inv, status)
	for m := range inv.Messages() {
		if m.Role == event.RoleTool && m.ToolCallID != nil && answered[*m.ToolCallID] {
			continue // shown under its call
		}
		text := messageText(&m)
		if ms := unclosed[m.ID]; text != "" || ms != "" {
			prefix, pst, st := rolePrefix(&m)
			indent := block(prefix, pst, text, st, maxTextLines, ms == view.EntityOpen)
			if ms == view.EntityAbandoned {
				add(with(stError, spaces(indent)+cutOff))
			}
		}
		for _, c := range calls[m.ID] {
			args := compactJSON([]byte(c.Arguments))
			block("⚙ "+oneLine(c.Name)+" ", stTool, args, stFaint, maxArgLines, c.Status == view.EntityOpen)
			switch {
			case c.ResultMessageID != "":
				block("  ↳ ", stResult, contentText(c.Result), stResult, maxResultLines, false)
			case c.Status == view.EntityAbandoned:
				add(with(stError, "  ⊘ abandoned"))
			case c.Status == view.EntityClosed:
				add(with(stFaint, "  … awaiting result"))
			}
			for _, id := range c.Subagents {
				add(with(stFaint, "  → spawned "), plain(oneLine(name(id))+" "), with(stFaint, oneLine(id)))
			}
		}
	}
	if e := inv.Error(); e != nil {
		block("✗ ", stError, errorText(e), stError, maxTextLines, false)
	}
	if ask != "" {
		block("‖ asks: ", stSuspend, ask, stActivity, maxTextLines, false)
	} else if o := inv.Outcome(); o != nil && inv.Status() == view.Suspended {
		s := "awaiting outside input"
		if len(o.InterruptIDs) > 0 {
			s += ": " + oneLine(strings.Join(o.InterruptIDs, ", "))
		}
		block("‖ ", stActivity, s, stActivity, maxTextLines, false)
	}
	if r := inv.Result(); len(r) > 0 && string(r) != "null" {
		block("result ", stFaint, contentText(r), stResult, maxResultLines, false)
	}
	if len(body) == 0 {
		if inv.Status() == view.Running {
			add(with(stFaint, "waiting for the first message…"))
		} else {
			add(with(stFaint, "no messages"))
		}
	}
	return body
}
