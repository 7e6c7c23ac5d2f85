package tui

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
)

// editor is the input line: one line of text and a cursor. What is typed or
// pasted is cleaned as text from the wire is (no escape sequences or control
// characters reach the line; a pasted line break becomes a space).
type editor struct {
	text []rune
	pos  int // cursor, 0..len(text)
	// placeholder is shown, faint, while the line is empty: what enter
	// sends when nothing is typed (an interrupt's payload template).
	placeholder string
}

// String returns the line's text.
func (e *editor) String() string { return string(e.text) }

// insert puts s at the cursor.
func (e *editor) insert(s string) {
	s = strings.Join(strings.Split(clean(s), "\n"), " ")
	rs := []rune(s)
	e.text = append(e.text[:e.pos], append(rs, e.text[e.pos:]...)...)
	e.pos += len(rs)
}

// key edits the line: printable text is inserted; backspace, delete, the
// arrows, home and end, and the readline keys ctrl+a, ctrl+e, ctrl+u,
// ctrl+k and ctrl+w do what they do in a shell.
func (e *editor) key(k tea.KeyPressMsg) {
	switch k.String() {
	case "backspace", "ctrl+h":
		if e.pos > 0 {
			e.text = append(e.text[:e.pos-1], e.text[e.pos:]...)
			e.pos--
		}
	case "delete", "ctrl+d":
		if e.pos < len(e.text) {
			e.text = append(e.text[:e.pos], e.text[e.pos+1:]...)
		}
	case "left", "ctrl+b":
		e.pos = max(e.pos-1, 0)
	case "right", "ctrl+f":
		e.pos = min(e.pos+1, len(e.text))
	case "home", "ctrl+a":
		e.pos = 0
	case "end", "ctrl+e":
		e.pos = len(e.text)
	case "ctrl+u":
		e.text = append([]rune(nil), e.text[e.pos:]...)
		e.pos = 0
	case "ctrl+k":
		e.text = e.text[:e.pos]
	case "ctrl+w":
		i := e.pos
		for i > 0 && unicode.IsSpace(e.text[i-1]) {
			i--
		}
		for i > 0 && !unicode.IsSpace(e.text[i-1]) {
			i--
		}
		e.text = append(e.text[:i], e.text[e.pos:]...)
		e.pos = i
	default:
		if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModMeta|tea.ModSuper|tea.ModHyper) == 0 {
			e.insert(k.Text)
		}
	}
}

// view draws the line in w cells after prompt: the text scrolled so that
// the cursor (shown in reverse video) stays in sight.
func (e *editor) view(w int, prompt styled) string {
	room := max(w-width(prompt.text)-1, 2) // one cell for the cursor past the end
	before := string(e.text[:e.pos])
	at := " "
	after := ""
	if e.pos < len(e.text) {
		at = string(e.text[e.pos])
		after = string(e.text[e.pos+1:])
	}
	// Keep the cursor in sight: cut the start when the text before it does
	// not fit, then cut the end.
	if width(before)+width(at) > room {
		before = tail(before, room-width(at))
	}
	after = truncate(after, room-width(before)-width(at))
	if len(e.text) == 0 && e.placeholder != "" {
		hint := truncate(oneLine(e.placeholder)+"  (enter sends this)", room-1)
		return line(w, prompt, with(stCursor, " "), with(stFaint, hint))
	}
	return line(w, prompt, plain(before), with(stCursor, at), plain(after))
}
