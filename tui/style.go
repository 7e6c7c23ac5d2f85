package tui

import (
	"image/color"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/agview/agview/view"
)

// The palette uses the 16 ANSI colours, so that it follows the terminal's
// theme, light or dark; bubbletea downsamples for terminals with fewer.
var (
	colRed     = lipgloss.Color("1")
	colGreen   = lipgloss.Color("2")
	colYellow  = lipgloss.Color("3")
	colBlue    = lipgloss.Color("4")
	colMagenta = lipgloss.Color("5")
	colCyan    = lipgloss.Color("6")
	colGrey    = lipgloss.Color("8")
	colBright  = lipgloss.Color("14") // bright cyan: the selection
)

// style is a text style reduced to the escape sequences that open and
// close it: lipgloss renders each style once, at start-up, and a frame only
// concatenates strings.
type style struct{ pre, post string }

// newStyle reduces a lipgloss style to its escape sequences.
func newStyle(st lipgloss.Style) style {
	out := st.Render("X")
	i := strings.IndexByte(out, 'X')
	if i < 0 {
		return style{}
	}
	return style{pre: out[:i], post: out[i+1:]}
}

func fg(c color.Color) style { return newStyle(lipgloss.NewStyle().Foreground(c)) }

// render styles t; the empty string stays empty.
func (s style) render(t string) string {
	if t == "" || s.pre == "" && s.post == "" {
		return t
	}
	return s.pre + t + s.post
}

var (
	stNone     = style{}
	stBold     = newStyle(lipgloss.NewStyle().Bold(true))
	stFaint    = newStyle(lipgloss.NewStyle().Faint(true))
	stThinking = newStyle(lipgloss.NewStyle().Faint(true).Italic(true))
	stBorder   = fg(colGrey)
	stSelected = newStyle(lipgloss.NewStyle().Foreground(colBright).Bold(true))
	stTitleBar = newStyle(lipgloss.NewStyle().Bold(true).Reverse(true))
	stTool     = fg(colBlue)
	stResult   = fg(colCyan)
	stError    = fg(colRed)
	stErrorB   = newStyle(lipgloss.NewStyle().Foreground(colRed).Bold(true))
	stWarn     = fg(colYellow)
	stCursor   = newStyle(lipgloss.NewStyle().Reverse(true))
	stKey      = fg(colCyan)
	stActivity = fg(colMagenta)
	stRunning  = fg(colYellow)
	stOK       = fg(colGreen)
	stSuspend  = fg(colMagenta)
	stMuted    = fg(colGrey)
	stUser     = newStyle(lipgloss.NewStyle().Foreground(colGreen).Bold(true))
)

// spinnerFrames animate what is running; one frame every spinStep.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const spinStep = 100 * time.Millisecond

// spinner returns the spinner frame to show at t.
func spinner(t time.Time) string {
	n := t.UnixMilli() / spinStep.Milliseconds()
	return spinnerFrames[int(n%int64(len(spinnerFrames)))]
}

// badge is how a status shows: an icon (the spinner for running ones), a
// word and a colour.
type badge struct {
	icon  string
	word  string
	style style
}

// invBadge returns the badge of an invocation status.
func invBadge(s view.Status, t time.Time) badge {
	switch s {
	case view.Running:
		return badge{spinner(t), "running", stRunning}
	case view.Finished:
		return badge{"✓", "finished", stOK}
	case view.Suspended:
		return badge{"‖", "suspended", stSuspend}
	case view.Errored:
		return badge{"✗", "errored", stErrorB}
	case view.Abandoned:
		return badge{"⊘", "abandoned", stError}
	case view.Unannounced:
		return badge{"?", "unannounced", stMuted}
	}
	return badge{"·", oneLine(string(s)), stNone}
}

// runBadge returns the badge of a run status.
func runBadge(s view.RunStatus, t time.Time) badge {
	switch s {
	case view.RunRunning:
		return badge{spinner(t), "running", stRunning}
	case view.RunFinished:
		return badge{"✓", "finished", stOK}
	case view.RunInterrupted:
		return badge{"‖", "interrupted", stSuspend}
	case view.RunErrored:
		return badge{"✗", "errored", stErrorB}
	case view.RunFailed:
		return badge{"✗", "failed", stErrorB}
	case view.RunCancelled:
		return badge{"⊘", "cancelled", stRunning}
	case view.RunIncomplete:
		return badge{"⊘", "incomplete", stRunning}
	}
	return badge{"·", oneLine(string(s)), stNone}
}

// entityIcon returns the icon of a step's, message's or tool call's status.
func entityIcon(s view.EntityStatus, t time.Time) string {
	switch s {
	case view.EntityOpen:
		return spinner(t)
	case view.EntityAbandoned:
		return "⊘"
	}
	return "✓"
}

// styled is a run of plain text and the style to show it in. Lines are
// built from runs so that they can be measured and cut as plain text and
// styled last.
type styled struct {
	text  string
	style style
}

func plain(s string) styled { return styled{text: s} }

func with(st style, s string) styled { return styled{text: s, style: st} }

// line renders runs cut to at most w cells (a cut shows as "…", in the
// style of the run that was cut) and padded with spaces to exactly w cells.
func line(w int, runs ...styled) string {
	if w <= 0 {
		return ""
	}
	var b strings.Builder
	total := runsWidth(runs)
	if total <= w {
		for _, r := range runs {
			r.write(&b, r.text)
		}
		b.WriteString(spaces(w - total))
		return b.String()
	}
	left := w - 1 // room for the "…"
	for _, r := range runs {
		t := r.text
		tw := width(t)
		if tw <= left {
			r.write(&b, t)
			left -= tw
			continue
		}
		t = cut(t, left)
		left -= width(t)
		r.write(&b, t+"…")
		break
	}
	b.WriteString(spaces(left))
	return b.String()
}

func (r styled) write(b *strings.Builder, t string) {
	if t == "" {
		return
	}
	b.WriteString(r.style.render(t))
}

func spaces(n int) string {
	const s = "                                                                                "
	if n <= len(s) {
		return s[:n]
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}

// runsWidth is the plain width of runs.
func runsWidth(runs []styled) int {
	n := 0
	for _, r := range runs {
		n += width(r.text)
	}
	return n
}
