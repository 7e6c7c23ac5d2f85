package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agview/agview/event"
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
	// ModeHelp lists every key.
	ModeHelp
)

// String returns the mode's name: panes, state, diagnostics or help.
func (m Mode) String() string {
	switch m {
	case ModePanes:
		return "panes"
	case ModeState:
		return "state"
	case ModeDiagnostics:
		return "diagnostics"
	case ModeHelp:
		return "help"
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

	helpFrom   Mode // the mode ? was pressed in
	helpOffset int
	helpLines  int

	// The conversation (nil: the model only shows).
	conv     Conversation
	sending  bool // a turn's Continue has not returned
	sentRuns int  // the runs in the view when the turn was sent
	// answers are the answers given so far to the pending interrupts, by
	// interrupt id; they are sent when every pending one has its answer.
	answers   map[string]event.ResumeEntry
	edit      *editor // the input line; nil when closed
	editFor   string  // the interrupt a payload answers; "" for a message
	notice    string  // a one-line notice above the footer, until the next key
	noticeErr bool
	// turns tracks the goroutines running Continue; cancels cancel their
	// contexts (stop calls them and waits).
	turns   sync.WaitGroup
	cancels []context.CancelFunc

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
// then shows the views it is sent in Frame messages. opts may be nil;
// Title, FPS and Conversation matter here. opts is not retained (its
// Conversation is).
//
// With a Conversation the model holds the thread's conversation: once a run
// has ended, i opens an input line whose text is sent as the next user
// message, and the interrupts a run leaves pending are shown one at a time,
// to be approved (y), rejected (n), answered with a JSON payload (p) or
// cancelled (c); once all are answered the model sends them. Either way the
// model calls Conversation.Continue, and shows the run it starts through
// the store.
func New(s *store.Store, opts *Options) *Model {
	o := opts.withDefaults()
	m := &Model{
		store:     s,
		conv:      o.Conversation,
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

// stop ends the frame loop's pending wait, if any, cancels a turn under way
// and waits for its Continue to return. Run calls it when the program has
// ended.
func (m *Model) stop() {
	m.stopOnce.Do(func() { close(m.done) })
	for _, cancel := range m.cancels {
		cancel()
	}
	m.turns.Wait()
}

// Close stops the model's frame loop and cancels a turn under way, waiting
// for its Continue to return. A program that runs a Model of its own calls
// it once the program has ended; Run does it itself.
func (m *Model) Close() { m.stop() }

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
	case tea.PasteMsg:
		if m.edit != nil {
			m.edit.insert(msg.Content)
		}
	case turnDoneMsg:
		m.turnDone(msg)
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
		m.syncAnswers()
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
// invocation is running, or a turn is being sent.
func (m *Model) animating() bool {
	if m.sending {
		return true
	}
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
	if s == "ctrl+c" {
		return tea.Quit
	}
	if m.edit != nil {
		return m.editKey(k)
	}
	if s == "q" {
		return tea.Quit
	}
	m.notice = ""
	if s == "?" && m.mode != ModeHelp {
		m.helpFrom, m.mode, m.helpOffset = m.mode, ModeHelp, 0
		return nil
	}
	switch m.mode {
	case ModePanes:
		return m.panesKey(s)
	case ModeState:
		m.stateKey(s)
	case ModeDiagnostics:
		m.diagKey(s)
	case ModeHelp:
		m.helpKey(s)
	}
	return nil
}

func (m *Model) panesKey(k string) tea.Cmd {
	switch k {
	case "i":
		m.openMessage()
		return nil
	case "y", "n", "p", "c":
		return m.answerKey(k)
	}
	m.movePanes(k)
	return nil
}

func (m *Model) movePanes(k string) {
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
	bottom := m.bottom(w, h-len(head)-1)
	m.bodyH = h - len(head) - 1 - len(bottom)
	var body []string
	switch m.mode {
	case ModePanes:
		body = m.panesBody(w, m.bodyH)
	case ModeState:
		body = m.stateBody(w, m.bodyH)
	case ModeDiagnostics:
		body = m.diagBody(w, m.bodyH)
	case ModeHelp:
		body = m.helpBody(w, m.bodyH)
	}
	body = body[:min(len(body), max(m.bodyH, 0))]
	lines := make([]string, 0, h)
	lines = append(lines, head...)
	lines = append(lines, body...)
	for len(lines) < h-1-len(bottom) {
		lines = append(lines, spaces(w))
	}
	lines = append(lines, bottom...)
	lines = append(lines, m.footer(w))
	m.content = strings.Join(lines, "\n")
}

// maxIndent bounds the indentation of nested panes so that deep trees keep
// usable panes.
func maxIndent(w int) int { return max(0, min(w-30, w/3)) }

func (m *Model) panesBody(w, bodyH int) []string {
	cache := make(map[int]cachedPane, len(m.panes))
	m.tops = make([]int, len(m.panes))
	asks := m.asks()
	var all []string
	pos := m.selectedPos()
	for i, p := range m.panes {
		indent := min(2*p.depth, maxIndent(w))
		look := paneLook{width: w - indent, expanded: m.expanded[p.key], selected: i == pos}
		if p.inv.IsRoot() {
			look.ask = asks[""]
		} else {
			look.ask = asks[p.inv.ID()]
		}
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

// asks maps the invocations that raised the pending interrupts ("" for the
// parent agent) to what they ask: each interrupt's message, or its id.
//
// While a run is under way (the next run, which the answers started, or
// one another process started) nothing is asked: the view keeps the
// interrupts pending until that run ends. An interrupt answered already
// (the others are still being asked) is not asked again.
func (m *Model) asks() map[string]string {
	if m.busy() {
		return nil
	}
	pending := m.v.PendingInterrupts()
	if len(pending) == 0 {
		return nil
	}
	out := make(map[string]string, len(pending))
	for _, it := range pending {
		if _, answered := m.answers[it.ID]; answered {
			continue
		}
		who := ""
		if it.Subagent != nil {
			who = *it.Subagent
		}
		what := oneLine(it.ID)
		if it.Message != nil && oneLine(*it.Message) != "" {
			what = oneLine(*it.Message)
		}
		if out[who] != "" {
			what = out[who] + " · " + what
		}
		out[who] = what
	}
	return out
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
	title := oneLine(m.title)
	if title != "" {
		runs = append(runs, plain(" "), with(stBold, title))
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
		b := runBadge(r.Status, m.now)
		status := []styled{with(b.style, b.icon+" "+b.word)}
		if r.Error != nil {
			status = append(status, with(stError, ": "+errorText(r.Error)))
		}
		if n := len(r.Interrupts); n > 0 && r.Status == view.RunInterrupted {
			status = append(status, with(stFaint, " ("+plural(n, "interrupt")+" awaiting an answer)"))
		}
		// The run's status must show: a long run id (a UUID is 36 cells)
		// and then the title give way to it, cut with "…".
		id := oneLine(r.RunID)
		need := func() int {
			n := runsWidth(runs) + width(name) + 1 + width(status[0].text)
			if id != "" {
				n += 1 + width(id)
			}
			return n
		}
		if over := need() - w; over > 0 && id != "" {
			id = truncate(id, max(width(id)-over, 8))
		}
		if over := need() - w; over > 0 && title != "" {
			runs[2].text = truncate(title, max(width(title)-over, 8))
		}
		if id != "" {
			name += " " + id
		}
		runs = append(runs, plain(name+" "))
		runs = append(runs, status...)
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
	if r, ok := m.v.LastRun(); ok {
		if t := r.Tokens(); t.Reported {
			second = append(second, plain("   "), with(stFaint, tokensText(t)))
		}
	}
	return []string{line(w, runs...), line(w, second...)}
}

// Bottom area limits.
const (
	minBody   = 3 // body lines the interrupt box leaves at least
	maxAskBox = 8 // the interrupt box's height at most
)

// bottom is what shows between the body and the footer: the interrupt
// asked (in the panes), a notice, the input line or what is being sent. It
// takes at most room-2 lines: the body keeps two.
func (m *Model) bottom(w, room int) []string {
	var status []string
	if m.notice != "" {
		st := stFaint
		if m.noticeErr {
			st = stError
		}
		status = append(status, line(w, plain(" "), with(st, m.notice)))
	}
	switch {
	case m.edit != nil:
		prompt := " you › "
		if m.editFor != "" {
			prompt = " answer " + oneLine(m.editFor) + " › "
		}
		status = append(status, m.edit.view(w, with(stUser, prompt)))
	case m.sending && len(m.v.Runs()) == m.sentRuns:
		status = append(status, line(w, with(stRunning, " "+spinner(m.now)+" "), with(stFaint, "sending…")))
	}
	if len(status) > room-2 {
		status = status[len(status)-max(room-2, 0):]
	}
	if m.mode != ModePanes {
		return status
	}
	ask := m.askBox(w, min(room-len(status)-minBody, maxAskBox))
	return append(ask, status...)
}

// hint is a key and what it does, in the footer. The footer shows as many
// as fit, dropping the least important first (the highest prio); prio 0
// hints always show.
type hint struct {
	key, label string
	prio       int
}

// footer is the keys of the current mode, and where the selection is.
func (m *Model) footer(w int) string {
	var keys []hint
	var where string
	switch {
	case m.edit != nil:
		keys = []hint{{"enter", "send", 0}, {"esc", "cancel", 0}, {"ctrl+c", "quit", 0}}
	case m.mode == ModePanes:
		keys = []hint{{"↑↓", "move", 2}, {"←→", "tree", 4}, {"enter", "expand", 3}, {"a", "all", 5}}
		if m.conv != nil && !m.busy() {
			if it, _, _, ok := m.current(); ok {
				k := "y/n/p/c"
				if _, expired := expiry(it, m.clock()); expired {
					k = "c"
				} else if !approvable(it) {
					k = "p/c"
				}
				keys = append(keys, hint{k, "answer", 0})
			} else {
				keys = append(keys, hint{"i", "message", 0})
			}
		}
		keys = append(keys, hint{"s", "state", 1}, hint{"d", "diagnostics", 1}, hint{"?", "keys", 0}, hint{"q", "quit", 0})
		where = fmt.Sprintf("%d/%d", m.selectedPos()+1, len(m.panes))
	case m.mode == ModeState:
		keys = []hint{{"↑↓", "move", 2}, {"enter", "fold", 3}, {"←→", "fold/unfold", 4}, {"s/esc", "back", 1}, {"?", "keys", 0}, {"q", "quit", 0}}
	case m.mode == ModeDiagnostics:
		keys = []hint{{"↑↓", "scroll", 2}, {"d/esc", "back", 1}, {"?", "keys", 0}, {"q", "quit", 0}}
	case m.mode == ModeHelp:
		keys = []hint{{"↑↓", "scroll", 2}, {"?/esc", "back", 1}, {"q", "quit", 0}}
	}
	hintsWidth := func() int {
		n := 0
		for i, k := range keys {
			if i > 0 {
				n += 2
			}
			n += width(k.key) + 1 + width(k.label)
		}
		return n
	}
	room := w - 1 // the leading space
	whereW := width(where) + 2
	// Drop the least important hints until the rest fit, the position
	// among the panes (worth a prio 3 hint) included.
	for {
		need := hintsWidth()
		if where != "" {
			need += whereW
		}
		if need <= room {
			break
		}
		worst, at := 0, -1
		for i, k := range keys {
			if k.prio > worst {
				worst, at = k.prio, i
			}
		}
		if where != "" && worst <= 3 {
			where = ""
			continue
		}
		if at < 0 {
			break
		}
		keys = append(keys[:at:at], keys[at+1:]...)
	}
	runs := []styled{plain(" ")}
	for i, k := range keys {
		if i > 0 {
			runs = append(runs, plain("  "))
		}
		runs = append(runs, with(stKey, k.key), with(stFaint, " "+k.label))
	}
	if where == "" {
		return line(w, runs...)
	}
	return line(w-width(where)-1, runs...) + stFaint.render(where) + " "
}
