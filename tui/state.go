package tui

import (
	"fmt"
	"strings"

	"github.com/agview/agview/view"
)

// The state view: the run-scoped JSON document as a tree whose objects and
// arrays fold and unfold, and the diagnostics view: every refused event and
// warning. Both show in one box that fills the body, scrolled so that the
// selection stays in sight.

// refreshState parses the view's state when it changed since the last parse.
func (m *Model) refreshState() {
	if m.stateOf == m.v {
		return
	}
	m.stateOf = m.v
	raw := string(m.v.State())
	if raw == m.stateRaw && (m.stateRoot != nil || m.stateErr != nil) {
		return
	}
	m.stateRaw = raw
	m.stateRoot, m.stateErr = parseJSON([]byte(raw))
}

// stateSelPos returns the line of the selected node, or of the first node
// when the selected one is gone or folded away.
func (m *Model) stateSelPos() int {
	first := -1
	for i, l := range m.stateLines {
		if !l.node {
			continue
		}
		if first < 0 {
			first = i
		}
		if l.pointer == m.stateSel {
			return i
		}
	}
	return max(first, 0)
}

func (m *Model) stateBody(w, bodyH int) []string {
	m.refreshState()
	title := []styled{with(stBold, "state")}
	var right []styled
	if id, ok := m.v.StateChangedBy(); ok {
		right = []styled{with(stFaint, "changed by "+oneLine(m.nameOf(id))+" "+oneLine(id))}
	}
	inner := bodyH - 2
	var body [][]styled
	if m.stateErr != nil {
		m.stateLines = nil
		for _, l := range wrap(oneLine(m.stateErr.Error()), w-4) {
			body = append(body, []styled{with(stError, l)})
		}
		return box(w, roundEdges, stBorder, title, right, fill(body, inner))
	}
	m.stateLines = flatten(m.stateRoot, m.stateOpen)
	sel := m.stateSelPos()
	if sel < len(m.stateLines) {
		m.stateSel = m.stateLines[sel].pointer
	}
	if sel < m.stateOffset {
		m.stateOffset = sel
	}
	if sel >= m.stateOffset+inner {
		m.stateOffset = sel - inner + 1
	}
	m.stateOffset = max(0, min(m.stateOffset, len(m.stateLines)-inner))
	for i := m.stateOffset; i < min(len(m.stateLines), m.stateOffset+inner); i++ {
		runs := m.stateLines[i].runs
		if i == sel {
			var b strings.Builder
			for _, r := range runs {
				b.WriteString(r.text)
			}
			text := b.String()
			runs = []styled{with(stCursor, pad(truncate(text, w-4), w-4))}
		}
		body = append(body, runs)
	}
	return box(w, roundEdges, stBorder, title, right, fill(body, inner))
}

// stateKey moves through the tree and folds it.
func (m *Model) stateKey(k string) {
	sel := m.stateSelPos()
	move := func(from, dir, steps int) {
		i := from
		for i+dir >= 0 && i+dir < len(m.stateLines) && steps > 0 {
			i += dir
			if m.stateLines[i].node {
				sel = i
				steps--
			}
		}
	}
	switch k {
	case "s", "esc":
		m.mode = ModePanes
		return
	case "down", "j":
		move(sel, +1, 1)
	case "up", "k":
		move(sel, -1, 1)
	case "pgdown":
		move(sel, +1, max(m.bodyH-3, 1))
	case "pgup":
		move(sel, -1, max(m.bodyH-3, 1))
	case "home", "g":
		move(sel, -1, len(m.stateLines))
	case "end", "G":
		move(sel, +1, len(m.stateLines))
	case "enter", "space":
		m.setFold(!m.folded(m.stateSel))
		return
	case "right", "l":
		m.setFold(false)
		return
	case "left", "h":
		if !m.folded(m.stateSel) && m.isContainer(m.stateSel) {
			m.setFold(true)
			return
		}
		if i := strings.LastIndexByte(m.stateSel, '/'); i >= 0 {
			m.stateSel = m.stateSel[:i]
		}
		return
	default:
		return
	}
	if sel < len(m.stateLines) {
		m.stateSel = m.stateLines[sel].pointer
	}
}

// folded reports whether the container at ptr shows folded.
func (m *Model) folded(ptr string) bool {
	if open, ok := m.stateOpen[ptr]; ok {
		return !open
	}
	return strings.Count(ptr, "/") >= defaultOpenDepth
}

// isContainer reports whether ptr names a non-empty object or array.
func (m *Model) isContainer(ptr string) bool {
	n := m.stateRoot
	if n == nil {
		return false
	}
	var find func(n *node) *node
	find = func(n *node) *node {
		if n.pointer == ptr {
			return n
		}
		for _, k := range n.kids {
			if ptr == k.pointer || strings.HasPrefix(ptr, k.pointer+"/") {
				if f := find(k); f != nil {
					return f
				}
			}
		}
		return nil
	}
	f := find(n)
	return f != nil && f.kind != 's' && len(f.kids) > 0
}

// setFold folds or unfolds the selected container; the document itself
// does not fold.
func (m *Model) setFold(fold bool) {
	if m.stateSel == "" || !m.isContainer(m.stateSel) {
		return
	}
	m.stateOpen[m.stateSel] = !fold
}

func (m *Model) diagBody(w, bodyH int) []string {
	ds := m.v.Diagnostics()
	var warns, viols int
	var lines [][]styled
	for _, d := range ds {
		st, kind := stWarn, "warning"
		if d.Kind == view.DiagViolation {
			st, kind = stError, "violation"
			viols++
		} else {
			warns++
		}
		head := []styled{with(st, kind+" "+oneLine(d.Rule)), with(stFaint, fmt.Sprintf("  event %d", d.Index))}
		if d.Type != "" {
			head = append(head, with(stFaint, " ("+oneLine(string(d.Type))+")"))
		}
		lines = append(lines, head)
		for _, l := range wrap(oneLine(d.Message), max(w-6, 1)) {
			lines = append(lines, []styled{plain("  " + l)})
		}
	}
	if len(ds) == 0 {
		lines = append(lines, []styled{with(stFaint, "no violations, no warnings")})
	}
	inner := bodyH - 2
	m.diagLines = len(lines)
	m.diagOffset = max(0, min(m.diagOffset, len(lines)-inner))
	title := []styled{with(stBold, "diagnostics")}
	right := []styled{with(stFaint, plural(viols, "violation")+" · "+plural(warns, "warning"))}
	return box(w, roundEdges, stBorder, title, right, fill(lines[m.diagOffset:min(len(lines), m.diagOffset+inner)], inner))
}

func (m *Model) diagKey(k string) {
	if k == "d" || k == "esc" {
		m.mode = ModePanes
		return
	}
	m.diagOffset = scroll(k, m.diagOffset, m.diagLines, max(m.bodyH-2, 1))
}

// scroll returns the first line to show of a list of total lines in a box
// of inner lines, after key k, from offset.
func scroll(k string, offset, total, inner int) int {
	switch k {
	case "down", "j":
		offset++
	case "up", "k":
		offset--
	case "pgdown", "space":
		offset += inner
	case "pgup":
		offset -= inner
	case "home", "g":
		offset = 0
	case "end", "G":
		offset = total
	}
	return max(0, min(offset, total-inner))
}

// fill pads body with empty lines to n lines, so that a box fills the body.
func fill(body [][]styled, n int) [][]styled {
	for len(body) < n {
		body = append(body, nil)
	}
	return body
}
