package tui

import (
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agview/agview/store"
	"github.com/agview/agview/view"
)

// Mode is what the model shows below its header.
type Mode int

// Modes.
const (
	// ModePanes shows one pane per invocation, nested as the tree nests.
	ModePanes Mode = iota
	// ModeState shows the run-scoped state as a collapsible JSON tree.
	ModeState
	// ModeDiagnostics lists the refused events and warnings.
	ModeDiagnostics
)

// String returns the mode's name: panes, state or diagnostics.
func (m Mode) String() string {
	switch m {
	case ModePanes:
		return "panes"
	case ModeState:
		return "state"
	case ModeDiagnostics:
		return "diagnostics"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Frame hands the model a view to show and the time to animate spinners
// for. The model's own frame loop (see New) sends frames; a program that
// embeds a Model without a store sends its own. A nil View keeps the
// current view; a zero Time keeps the current time.
type Frame struct {
	View *view.View
	Time time.Time
}

// frameMsg is a Frame from the model's own loop, which answers it by
// scheduling the next one.
type frameMsg struct{ Frame }

// Defaults.
const (
	// DefaultFPS is the frame-rate cap when Options.FPS is 0.
	DefaultFPS = 20
	// maxFPS bounds Options.FPS (bubbletea's renderer caps at 120 too).
	maxFPS = 120
	// idlePoll is how long the frame loop waits for a change when nothing
	// animates, before it looks again.
	idlePoll = time.Second
	// defaultWidth and defaultHeight are used until the terminal's size is
	// known.
	defaultWidth  = 80
	defaultHeight = 24
)

// Model is the bubbletea model of the live view: a header with the run's
// status and counts, one pane per invocation, nested as the tree nests, and
// a footer with the keys. Create it with New. Its methods must be called
// from the goroutine that runs the bubbletea program, as bubbletea does.
type Model struct {
	store    *store.Store
	title    string
	interval time.Duration
	done     chan struct{} // closed by stop: ends a pending frame wait
	stopOnce sync.Once

	v      *view.View
	now    time.Time
	width  int
	height int

	mode     Mode
	selected int // pane key
	expanded map[int]bool
	offset   int // first body line shown in ModePanes

	stateOpen   map[string]bool // user's folds, by JSON pointer
	stateSel    string          // JSON pointer of the selected node
	stateOffset int
	stateOf     *view.View // the view stateRoot was parsed from
	stateRaw    string
	stateRoot   *node
	stateErr    error
	stateLines  []treeLine

	diagOffset int
	diagLines  int

	// Derived by layout, read by the key handlers.
	panes   []pane
	tops    []int // first body line of each pane
	bodyH   int
	cache   map[int]cachedPane
	content string
}

var _ tea.Model = (*Model)(nil)

type cachedPane struct {
	inv   *view.Invocation
	look  paneLook
	lines []string
}

// New returns the model of the live view of s. Its Init starts a frame loop
// that waits for the store to publish a view and hands the latest one to
// the model, at most Options.FPS times a second, never once per event; while
// something runs it also wakes to animate spinners. s may be nil: the model
// then shows the views it is sent in Frame messages. opts may be nil; only
// Title and FPS matter here. opts is not retained.
func New(s *store.Store, opts *Options) *Model {
	o := opts.withDefaults()
	m := &Model{
		store:     s,
		title:     o.Title,
		interval:  time.Second / time.Duration(o.FPS),
		done:      make(chan struct{}),
		selected:  rootKey,
		expanded:  map[int]bool{},
		stateOpen: map[string]bool{},
		cache:     map[int]cachedPane{},
		v:         view.New(),
	}
	if s != nil {
		m.v = s.View()
	}
	m.layout()
	return m
}

// stop ends the frame loop's pending wait, if any. Run calls it when the
// program has ended.
func (m *Model) stop() { m.stopOnce.Do(func() { close(m.done) }) }

// Init starts the frame loop (nothing when the model has no store).
func (m *Model) Init() tea.Cmd {
	if m.store == nil {
		return nil
	}
	s := m.store
	return func() tea.Msg { return frameMsg{Frame{View: s.View(), Time: time.Now()}} }
}

// Update handles window sizes, key presses and frames; see the package
// documentation for the keys. It returns tea.Quit on q or ctrl+c.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case Frame:
		m.apply(msg)
	case frameMsg:
		m.apply(msg.Frame)
		cmd = m.nextFrame()
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	default:
		return m, nil
	}
	m.layout()
	return m, cmd
}

// View returns the screen: the alternate screen, so that the terminal's
// contents are back when the program ends.
func (m *Model) View() tea.View {
	v := tea.NewView(m.content)
	v.AltScreen = true
	v.WindowTitle = "agview"
	if m.title != "" {
		v.WindowTitle = "agview · " + oneLine(m.title)
	}
	return v
}

// Mode returns what the model shows: panes, the state or the diagnostics.
func (m *Model) Mode() Mode { return m.mode }

// Selected returns the invocation whose pane is selected (the root, at
// first), from the view the model shows.
func (m *Model) Selected() *view.Invocation {
	for _, p := range m.panes {
		if p.key == m.selected {
			return p.inv
		}
	}
	return m.v.Root()
}

// Expanded reports whether inv's pane is expanded. inv is matched by
// identity in the view the model shows, else by id.
func (m *Model) Expanded(inv *view.Invocation) bool {
	if inv == nil {
		return false
	}
	for _, p := range m.panes {
		if p.inv == inv {
			return m.expanded[p.key]
		}
	}
	for _, p := range m.panes {
		if p.inv.IsRoot() == inv.IsRoot() && p.inv.ID() == inv.ID() {
			return m.expanded[p.key]
		}
	}
	return false
}

func (m *Model) apply(f Frame) {
	if f.View != nil {
		m.v = f.View
	}
	if !f.Time.IsZero() {
		m.now = f.Time
	}
}

// nextFrame waits for the next frame: no sooner than one frame interval
// after this one, then until the store publishes a view or, while
// something animates, until the spinner's next step.
func (m *Model) nextFrame() tea.Cmd {
	if m.store == nil {
		return nil
	}
	s, cur, done, interval := m.store, m.v, m.done, m.interval
	wait := idlePoll
	if m.animating() {
		wait = max(spinStep, interval)
	}
	return func() tea.Msg {
		t := time.NewTimer(interval)
		defer t.Stop()
		select {
		case <-t.C:
		case <-done:
			return nil
		}
		ch := s.Changed()
		if s.View() == cur {
			t.Reset(wait - interval)
			select {
			case <-ch:
			case <-t.C:
			case <-done:
				return nil
			}
		}
		return frameMsg{Frame{View: s.View(), Time: time.Now()}}
	}
}

// animating reports whether a spinner is on screen: the run or an
// invocation is running.
func (m *Model) animating() bool {
	if r, ok := m.v.LastRun(); ok && r.Status == view.RunRunning {
		return true
	}
	for inv := range m.v.Invocations() {
		if inv.Status() == view.Running {
			return true
		}
	}
	return false
}

// key handles a key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	switch s {
	case "q", "ctrl+c":
		return tea.Quit
	}
	switch m.mode {
	case ModePanes:
		m.panesKey(s)
	case ModeState:
		m.stateKey(s)
	case ModeDiagnostics:
		m.diagKey(s)
	}
	return nil
}

func (m *Model) panesKey(k string) {
	pos := m.selectedPos()
	n := len(m.panes)
	switch k {
	case "down", "j":
		pos = min(pos+1, n-1)
	case "up", "k":
		pos = max(pos-1, 0)
	case "tab":
		pos = (pos + 1) % n
	case "shift+tab":
		pos = (pos - 1 + n) % n
	case "home", "g":
		pos = 0
	case "end", "G":
		pos = n - 1
	case "pgdown":
		pos = m.pageFrom(pos, +1)
	case "pgup":
		pos = m.pageFrom(pos, -1)
	case "left", "h":
		if p := m.panes[pos]; p.key != rootKey {
			pos = m.posOf(p.parent)
		}
	case "right", "l":
		if pos+1 < n && m.panes[pos+1].parent == m.panes[pos].key && m.panes[pos+1].key != rootKey {
			pos++
		}
	case "enter", "space":
		m.toggle()
		return
	case "a":
		all := true
		for _, p := range m.panes {
			all = all && m.expanded[p.key]
		}
		for _, p := range m.panes {
			m.expanded[p.key] = !all
		}
		return
	case "s":
		m.mode = ModeState
		return
	case "d":
		m.mode = ModeDiagnostics
		return
	default:
		return
	}
	m.selected = m.panes[pos].key
}

func (m *Model) toggle() { m.expanded[m.selected] = !m.expanded[m.selected] }

func (m *Model) selectedPos() int { return m.posOf(m.selected) }

func (m *Model) posOf(key int) int {
	for i, p := range m.panes {
		if p.key == key {
			return i
		}
	}
	return 0
}

// pageFrom returns the pane a page up (dir -1) or down (+1) from pos: the
// farthest one whose top is at most a body's height away, and at least the
// next one.
func (m *Model) pageFrom(pos, dir int) int {
	n := len(m.panes)
	if n == 0 || len(m.tops) != n {
		return pos
	}
	target := m.tops[pos] + dir*m.bodyH
	best := pos
	for i := pos + dir; i >= 0 && i < n; i += dir {
		if dir > 0 && m.tops[i] > target || dir < 0 && m.tops[i] < target {
			break
		}
		best = i
	}
	if best == pos {
		best = min(max(pos+dir, 0), n-1)
	}
	return best
}

// layout renders the screen into m.content: the header, the body of the
// current mode and the footer, each line exactly as wide as the terminal.
func (m *Model) layout() {
	w, h := m.width, m.height
	if w <= 0 {
		w = defaultWidth
	}
	if h <= 0 {
		h = defaultHeight
	}
	m.panes = panes(m.v)
	if m.posOf(m.selected) == 0 {
		m.selected = m.panes[0].key
	}
	if w < 20 || h < 5 {
		m.content = truncate("terminal too small", w)
		return
	}
	head := m.header(w)
	m.bodyH = h - len(head) - 1
	var body []string
	switch m.mode {
	case ModePanes:
		body = m.panesBody(w, m.bodyH)
	case ModeState:
		body = m.stateBody(w, m.bodyH)
	case ModeDiagnostics:
		body = m.diagBody(w, m.bodyH)
	}
	lines := make([]string, 0, h)
	lines = append(lines, head...)
	lines = append(lines, body...)
	for len(lines) < h-1 {
		lines = append(lines, spaces(w))
	}
	lines = append(lines, m.footer(w))
	m.content = strings.Join(lines, "\n")
}

// maxIndent bounds the indentation of nested panes so that deep trees keep
// usable panes.
func maxIndent(w int) int { return max(0, min(w-30, w/3)) }

func (m *Model) panesBody(w, bodyH int) []string {
	cache := make(map[int]cachedPane, len(m.panes))
	m.tops = make([]int, len(m.panes))
	var all []string
	pos := m.selectedPos()
	for i, p := range m.panes {
		indent := min(2*p.depth, maxIndent(w))
		look := paneLook{width: w - indent, expanded: m.expanded[p.key], selected: i == pos}
		if p.inv.Status() == view.Running {
			look.spin = spinner(m.now)
		}
		c, ok := m.cache[p.key]
		if !ok || c.inv != p.inv || c.look != look {
			c = cachedPane{inv: p.inv, look: look, lines: renderPane(p.inv, look, m.now, m.nameOf, m.msgStatus)}
		}
		cache[p.key] = c
		m.tops[i] = len(all)
		pre := spaces(indent)
		for _, l := range c.lines {
			all = append(all, pre+l)
		}
		if p.hidden > 0 {
			in := min(2*(p.depth+1), maxIndent(w))
			all = append(all, spaces(in)+line(w-in, with(stFaint,
				"⋯ "+plural(p.hidden, "more nested subagent")+" without a pane (agview replay --json has them)")))
		}
	}
	m.cache = cache

	// Keep the selected pane in sight: its top when it is taller than the
	// body.
	top := m.tops[pos]
	bottom := len(all)
	if pos+1 < len(m.tops) {
		bottom = m.tops[pos+1]
	}
	if bottom > m.offset+bodyH {
		m.offset = bottom - bodyH
	}
	if top < m.offset {
		m.offset = top
	}
	m.offset = max(0, min(m.offset, len(all)-bodyH))
	return all[m.offset:min(len(all), m.offset+bodyH)]
}

// msgStatus is the status of the message id in the current view: open,
// closed or abandoned ("" when there is no such message).
func (m *Model) msgStatus(id string) view.EntityStatus {
	s, _ := m.v.MessageStatus(id)
	return s
}

func (m *Model) nameOf(id string) string {
	if inv := m.v.Invocation(id); inv != nil && !inv.IsRoot() {
		return inv.Name()
	}
	return id
}

// header is two lines: the title, the run and the event count; the
// subagents by status and the diagnostics.
func (m *Model) header(w int) []string {
	runs := []styled{with(stTitleBar, " agview ")}
	if m.title != "" {
		runs = append(runs, plain(" "), with(stBold, oneLine(m.title)))
	}
	runs = append(runs, plain("   "), plain(plural(m.v.EventCount(), "event")), plain("   "))
	all := m.v.Runs()
	if len(all) == 0 {
		runs = append(runs, with(stFaint, "waiting for the run to start…"))
	} else {
		r := all[len(all)-1]
		name := "run"
		if len(all) > 1 {
			name = fmt.Sprintf("run %d of %d", len(all), len(all))
		}
		if r.RunID != "" {
			name += " " + oneLine(r.RunID)
		}
		b := runBadge(r.Status, m.now)
		runs = append(runs, plain(name+" "), with(b.style, b.icon+" "+b.word))
		if r.Error != nil {
			runs = append(runs, with(stError, ": "+errorText(r.Error)))
		}
		if n := len(r.Interrupts); n > 0 && r.Status == view.RunInterrupted {
			runs = append(runs, with(stFaint, " ("+plural(n, "interrupt")+" awaiting an answer)"))
		}
	}

	var second []styled
	byStatus := map[view.Status]int{}
	n := 0
	for inv := range m.v.Invocations() {
		byStatus[inv.Status()]++
		n++
	}
	if n == 0 {
		second = append(second, with(stFaint, " no subagents yet"))
	} else {
		second = append(second, plain(" "+plural(n, "subagent")+": "))
		first := true
		for _, s := range []view.Status{view.Running, view.Finished, view.Suspended, view.Errored, view.Abandoned, view.Unannounced} {
			if byStatus[s] == 0 {
				continue
			}
			if !first {
				second = append(second, with(stFaint, " · "))
			}
			first = false
			b := invBadge(s, m.now)
			second = append(second, with(b.style, fmt.Sprintf("%d %s", byStatus[s], b.word)))
		}
	}
	var warns, viols int
	for _, d := range m.v.Diagnostics() {
		if d.Kind == view.DiagViolation {
			viols++
		} else {
			warns++
		}
	}
	if viols > 0 {
		second = append(second, plain("   "), with(stError, "✗ "+plural(viols, "violation")))
	}
	if warns > 0 {
		second = append(second, plain("   "), with(stWarn, "⚠ "+plural(warns, "warning")))
	}
	return []string{line(w, runs...), line(w, second...)}
}

// footer is the keys of the current mode, and where the selection is.
func (m *Model) footer(w int) string {
	var keys [][2]string
	var where string
	switch m.mode {
	case ModePanes:
		keys = [][2]string{{"↑↓/tab", "move"}, {"←→", "parent/child"}, {"enter", "expand"}, {"a", "all"}, {"s", "state"}, {"d", "diagnostics"}, {"q", "quit"}}
		where = fmt.Sprintf("%d/%d", m.selectedPos()+1, len(m.panes))
	case ModeState:
		keys = [][2]string{{"↑↓", "move"}, {"enter", "fold"}, {"←→", "fold/unfold"}, {"s/esc", "back"}, {"q", "quit"}}
	case ModeDiagnostics:
		keys = [][2]string{{"↑↓", "scroll"}, {"d/esc", "back"}, {"q", "quit"}}
	}
	rw := width(where)
	room := w - 1 // the leading space
	if where != "" {
		room -= rw + 2
	}
	// As many whole key hints as fit; the last one, quit, always.
	last := keys[len(keys)-1]
	room -= width("  " + last[0] + " " + last[1])
	runs := []styled{plain(" ")}
	used := 0
	for i, k := range keys[:len(keys)-1] {
		sep := ""
		if i > 0 {
			sep = "  "
		}
		n := width(sep + k[0] + " " + k[1])
		if used+n > room {
			break
		}
		used += n
		runs = append(runs, plain(sep), with(stKey, k[0]), with(stFaint, " "+k[1]))
	}
	runs = append(runs, plain("  "), with(stKey, last[0]), with(stFaint, " "+last[1]))
	if where == "" || room < 0 {
		return line(w, runs...)
	}
	return line(w-rw-1, runs...) + stFaint.render(where) + " "
}
