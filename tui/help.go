package tui

// The help view: every key, by where it works, in one box that fills the
// body and scrolls.

// keyGroup is the keys of one place.
type keyGroup struct {
	title string
	keys  [][2]string
}

// keyGroups lists every key; the conversation's only when the model has
// one.
func (m *Model) keyGroups() []keyGroup {
	groups := []keyGroup{{"panes", [][2]string{
		{"↑ ↓ j k", "previous / next pane"},
		{"tab shift+tab", "next / previous pane, wrapping around"},
		{"← → h l", "parent pane / first child pane"},
		{"home end g G", "first / last pane"},
		{"pgup pgdown", "a page up / down"},
		{"enter space", "expand or collapse the selected pane"},
		{"a", "expand all panes (collapse all when all are)"},
		{"s", "the run state"},
		{"d", "the diagnostics: refused events and warnings"},
	}}}
	if m.conv != nil {
		groups = append(groups,
			keyGroup{"conversation (once the run has ended)", [][2]string{
				{"i", "write the next message: a new run on the same thread"},
				{"y", `approve the interrupt asked: {"approved":true}`},
				{"n", `reject it: {"approved":false}`},
				{"p", "answer it with a JSON payload you type"},
				{"c", "cancel it (status cancelled, no payload)"},
			}},
			keyGroup{"input line", [][2]string{
				{"enter", "send"},
				{"esc", "close without sending"},
				{"← → home end", "move the cursor (ctrl+a ctrl+e too)"},
				{"backspace delete", "delete (ctrl+u ctrl+k ctrl+w too)"},
			}})
	}
	groups = append(groups,
		keyGroup{"state", [][2]string{
			{"↑ ↓ j k", "previous / next value"},
			{"enter space", "fold or unfold an object or array"},
			{"→ l / ← h", "unfold / fold (or go to the parent)"},
			{"s esc", "back to the panes"},
		}},
		keyGroup{"diagnostics", [][2]string{
			{"↑ ↓ pgup pgdown", "scroll"},
			{"d esc", "back to the panes"},
		}},
		keyGroup{"everywhere", [][2]string{
			{"?", "these keys (? or esc to come back)"},
			{"q ctrl+c", "quit (ctrl+c on the input line)"},
		}})
	return groups
}

func (m *Model) helpBody(w, bodyH int) []string {
	var lines [][]styled
	keyW := 0
	groups := m.keyGroups()
	for _, g := range groups {
		for _, k := range g.keys {
			keyW = max(keyW, width(k[0]))
		}
	}
	for i, g := range groups {
		if i > 0 {
			lines = append(lines, nil)
		}
		lines = append(lines, []styled{with(stBold, g.title)})
		for _, k := range g.keys {
			lines = append(lines, []styled{plain("  "), with(stKey, pad(k[0], keyW)), plain("  "), with(stFaint, k[1])})
		}
	}
	inner := bodyH - 2
	m.helpLines = len(lines)
	m.helpOffset = max(0, min(m.helpOffset, len(lines)-inner))
	title := []styled{with(stBold, "keys")}
	return box(w, roundEdges, stBorder, title, nil, fill(lines[m.helpOffset:min(len(lines), m.helpOffset+max(inner, 0))], inner))
}

func (m *Model) helpKey(k string) {
	if k == "?" || k == "esc" {
		m.mode = m.helpFrom
		return
	}
	m.helpOffset = scroll(k, m.helpOffset, m.helpLines, max(m.bodyH-2, 1))
}
