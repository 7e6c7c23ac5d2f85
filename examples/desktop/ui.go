package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"strings"

	"gioui.org/font"
	"gioui.org/font/gofont"
	"gioui.org/layout"
	"gioui.org/op/clip"
	"gioui.org/op/paint"
	"gioui.org/text"
	"gioui.org/unit"
	"gioui.org/widget"
	"gioui.org/widget/material"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/store"
	"github.com/agview/agview/view"
)

type (
	// C is Gio's layout context, the argument of every widget.
	C = layout.Context
	// D is Gio's dimensions, what every widget returns.
	D = layout.Dimensions
)

// newTheme returns the window's theme with the Go fonts only (no system
// fonts), so that a frame looks the same on every machine.
func newTheme() *material.Theme {
	th := material.NewTheme()
	th.Shaper = text.NewShaper(text.NoSystemFonts(), text.WithCollection(gofont.Collection()))
	th.TextSize = 14
	return th
}

// Colours.
var (
	colBackground = rgb(0xf3f4f6)
	colCard       = rgb(0xffffff)
	colBorder     = rgb(0xd1d5db)
	colHeader     = rgb(0x1f2937)
	colMuted      = rgb(0x6b7280)
	colText       = rgb(0x111827)
	colReasoning  = rgb(0x7c3aed)
	colTool       = rgb(0x0e7490)
	colUser       = rgb(0x1d4ed8)
	colError      = rgb(0xb91c1c)
	colSelected   = rgb(0xe0e7ff)
	colInterrupt  = rgb(0xfef3c7)
)

func rgb(c uint32) color.NRGBA {
	return color.NRGBA{R: uint8(c >> 16), G: uint8(c >> 8), B: uint8(c), A: 0xff}
}

// badgeColor is the colour of a status badge.
func badgeColor(status string) color.NRGBA {
	switch status {
	case string(view.Running): // = view.RunRunning
		return rgb(0x2563eb)
	case string(view.Finished): // = view.RunFinished
		return rgb(0x15803d)
	case string(view.Suspended), string(view.RunInterrupted):
		return rgb(0xb45309)
	case string(view.Errored), string(view.RunFailed): // = view.RunErrored
		return rgb(0xb91c1c)
	case string(view.Unannounced):
		return rgb(0x7c3aed)
	}
	return rgb(0x6b7280) // abandoned, cancelled, incomplete
}

// UI is the window's content. Every method but watch runs on the UI
// goroutine (the one that handles the window's frame events); it reads views
// that feed hands over and never calls the store or the client itself.
type UI struct {
	th     *material.Theme
	feed   feed
	sender *sender // nil: read-only (attached to a journal)

	shown   *view.View       // the view the last frame drew
	panes   map[string]*pane // by invocation id, "" for the parent agent
	order   []treeRow        // the invocation tree, depth first
	rebuilt int              // panes rebuilt since the start (tests)

	stateRaw string
	state    stateTree

	treeList  widget.List
	paneList  widget.List
	stateList widget.List
	clicks    map[string]*widget.Clickable // tree rows, by invocation id
	approve   map[string]*widget.Clickable // by interrupt id
	reject    map[string]*widget.Clickable
	answers   map[string]bool // interrupt id → approved, until all are answered
	editor    widget.Editor
	sendBtn   widget.Clickable
	notice    string // what the last action refused, "" when none
}

// treeRow is one row of the invocation tree.
type treeRow struct {
	id    string
	depth int
}

func newUI(th *material.Theme, s *sender) *UI {
	u := &UI{
		th:      th,
		sender:  s,
		panes:   map[string]*pane{},
		clicks:  map[string]*widget.Clickable{},
		approve: map[string]*widget.Clickable{},
		reject:  map[string]*widget.Clickable{},
		answers: map[string]bool{},
		state:   stateTree{open: map[string]bool{}, clicks: map[string]*widget.Clickable{}},
	}
	u.treeList.Axis = layout.Vertical
	u.paneList.Axis = layout.Vertical
	u.stateList.Axis = layout.Vertical
	u.editor.SingleLine = true
	u.editor.Submit = true
	return u
}

// watch subscribes the UI to s: every view the store publishes is handed to
// the UI goroutine, and invalidate (the window's) asks it for a frame.
// Call it from any goroutine; it returns the unsubscribe function.
func (u *UI) watch(s *store.Store, invalidate func()) (unsubscribe func()) {
	return u.feed.subscribe(s, invalidate)
}

// sync brings the UI's caches up to the latest view: only the invocations
// that changed since the last frame are rebuilt (View.ChangedSince).
func (u *UI) sync() *view.View {
	v := u.feed.view()
	if v == nil {
		v = view.New()
	}
	if v == u.shown {
		return v
	}
	old := u.shown // v was folded from it: the feed hands over one store's views, in order
	for inv := range v.ChangedSince(old) {
		u.panes[inv.ID()] = newPane(inv)
		u.rebuilt++
	}
	if old == nil || old.InvocationCount() != v.InvocationCount() || len(u.order) == 0 {
		u.order = u.order[:0]
		var walk func(inv *view.Invocation, depth int)
		walk = func(inv *view.Invocation, depth int) {
			u.order = append(u.order, treeRow{id: inv.ID(), depth: depth})
			for _, id := range inv.Children() {
				if c := v.Invocation(id); c != nil {
					walk(c, depth+1)
				}
			}
		}
		walk(v.Root(), 0)
		seen := make(map[string]bool, len(u.order))
		for _, r := range u.order {
			seen[r.id] = true
		}
		for inv := range v.Invocations() { // orphans: their parent is unknown
			if !seen[inv.ID()] {
				u.order = append(u.order, treeRow{id: inv.ID(), depth: 1})
			}
		}
	}
	if raw := string(v.State()); raw != u.stateRaw {
		u.stateRaw = raw
		u.state.set(v.State())
	}
	u.shown = v
	return v
}

// Layout handles the frame's input and draws the UI.
func (u *UI) Layout(gtx C) D {
	v := u.sync()
	u.update(gtx, v)
	paint.Fill(gtx.Ops, colBackground)
	return layout.Flex{Axis: layout.Vertical}.Layout(gtx,
		layout.Rigid(func(gtx C) D { return u.layoutHeader(gtx, v) }),
		layout.Flexed(1, func(gtx C) D {
			return layout.Flex{}.Layout(gtx,
				layout.Rigid(func(gtx C) D { return u.layoutSide(gtx, v) }),
				layout.Flexed(1, func(gtx C) D { return u.layoutPanes(gtx) }),
			)
		}),
		layout.Rigid(func(gtx C) D { return u.layoutInterrupts(gtx, v) }),
		layout.Rigid(func(gtx C) D { return u.layoutInput(gtx) }),
	)
}

// update handles clicks and the message box.
func (u *UI) update(gtx C, v *view.View) {
	for i, r := range u.order {
		if c := u.clicks[r.id]; c != nil && c.Clicked(gtx) {
			u.paneList.Position.First, u.paneList.Position.Offset = i, 0
		}
	}
	u.state.update(gtx)
	for _, it := range v.PendingInterrupts() {
		if c := u.approve[it.ID]; c != nil && c.Clicked(gtx) {
			u.answer(v, it.ID, true)
		}
		if c := u.reject[it.ID]; c != nil && c.Clicked(gtx) {
			u.answer(v, it.ID, false)
		}
	}
	for {
		e, ok := u.editor.Update(gtx)
		if !ok {
			break
		}
		if _, ok := e.(widget.SubmitEvent); ok {
			u.submit(v)
		}
	}
	if u.sendBtn.Clicked(gtx) {
		u.submit(v)
	}
}

// answer records the answer to one pending interrupt; once every pending
// interrupt has one, it sends them, with the message box's text if any.
func (u *UI) answer(v *view.View, id string, approved bool) {
	if u.sender == nil || u.sender.sending() {
		return
	}
	u.answers[id] = approved
	pending := v.PendingInterrupts()
	for _, it := range pending {
		if _, ok := u.answers[it.ID]; !ok {
			u.notice = fmt.Sprintf("%d more interrupt(s) to answer", len(pending)-len(u.answers))
			return
		}
	}
	answers := u.answers
	opts := &client.InputOptions{Answer: func(it event.Interrupt) *event.ResumeEntry {
		a, ok := answers[it.ID]
		if !ok {
			return nil
		}
		payload, _ := json.Marshal(map[string]bool{"approved": a})
		return &event.ResumeEntry{Status: event.ResumeResolved, Payload: payload}
	}}
	if t := strings.TrimSpace(u.editor.Text()); t != "" {
		opts.Messages = []event.Message{client.UserMessage(t)}
	}
	if u.sender.send(opts) {
		u.answers = map[string]bool{}
		u.editor.SetText("")
		u.notice = ""
	}
}

// submit sends the message box's text as the next turn.
func (u *UI) submit(v *view.View) {
	t := strings.TrimSpace(u.editor.Text())
	switch {
	case u.sender == nil || t == "":
		return
	case u.sender.sending():
		u.notice = "a turn is under way: wait for it to end"
		return
	case len(v.PendingInterrupts()) > 0:
		u.notice = "answer the pending interrupt first (Approve or Reject): the agent waits for it"
		return
	}
	opts := &client.InputOptions{Messages: []event.Message{client.UserMessage(t)}}
	if v.Thread() == "" { // a real agent's first turn
		opts.ThreadID = client.NewID()
	}
	if u.sender.send(opts) {
		u.editor.SetText("")
		u.notice = ""
	}
}

func (u *UI) layoutHeader(gtx C, v *view.View) D {
	return layout.Background{}.Layout(gtx, fill(colHeader), func(gtx C) D {
		gtx.Constraints.Min.X = gtx.Constraints.Max.X
		return layout.Inset{Top: 8, Bottom: 8, Left: 12, Right: 12}.Layout(gtx, func(gtx C) D {
			runs := v.Runs()
			children := []layout.FlexChild{
				layout.Rigid(u.label(16, "agview", rgb(0xffffff), font.Bold)),
				layout.Rigid(gap(12)),
			}
			if r, ok := v.LastRun(); ok {
				children = append(children,
					layout.Rigid(u.badge(string(r.Status))),
					layout.Rigid(gap(12)),
					layout.Rigid(u.label(14, runLine(v, r, len(runs)), rgb(0xe5e7eb), font.Normal)),
				)
			} else {
				children = append(children, layout.Rigid(u.label(14, "waiting for the first run", rgb(0xe5e7eb), font.Normal)))
			}
			if t := v.Thread(); t != "" {
				children = append(children, layout.Flexed(1, func(gtx C) D {
					return layout.E.Layout(gtx, u.label(14, "thread "+t, rgb(0x9ca3af), font.Normal))
				}))
			}
			return layout.Flex{Alignment: layout.Middle}.Layout(gtx, children...)
		})
	})
}

// runLine sums up the thread for the header.
func runLine(v *view.View, r view.Run, runs int) string {
	s := fmt.Sprintf("run %d · %d subagents · %d events", runs, v.InvocationCount(), v.EventCount())
	if t := r.Tokens(); t.Reported {
		s += fmt.Sprintf(" · %d tokens", t.Total)
	}
	if n := v.ViolationCount(); n > 0 {
		s += fmt.Sprintf(" · %d events refused", n)
	}
	return s
}

// layoutSide draws the invocation tree and the state tree.
func (u *UI) layoutSide(gtx C, v *view.View) D {
	w := min(gtx.Dp(300), gtx.Constraints.Max.X/3)
	gtx.Constraints.Min.X, gtx.Constraints.Max.X = w, w
	gtx.Constraints.Min.Y = gtx.Constraints.Max.Y
	return layout.Background{}.Layout(gtx, fill(colCard), func(gtx C) D {
		return layout.Flex{Axis: layout.Vertical}.Layout(gtx,
			layout.Rigid(u.heading("Invocations")),
			layout.Flexed(0.55, func(gtx C) D {
				return material.List(u.th, &u.treeList).Layout(gtx, len(u.order), func(gtx C, i int) D {
					return u.layoutTreeRow(gtx, u.order[i])
				})
			}),
			layout.Rigid(u.heading("State")),
			layout.Flexed(0.45, func(gtx C) D { return u.state.layout(gtx, u.th, &u.stateList) }),
		)
	})
}

func (u *UI) heading(s string) layout.Widget {
	return func(gtx C) D {
		return layout.Inset{Top: 10, Bottom: 4, Left: 12, Right: 12}.Layout(gtx, u.label(15, s, colHeader, font.Bold))
	}
}

func (u *UI) layoutTreeRow(gtx C, r treeRow) D {
	p := u.panes[r.id]
	if p == nil {
		return D{}
	}
	c := u.clicks[r.id]
	if c == nil {
		c = new(widget.Clickable)
		u.clicks[r.id] = c
	}
	return c.Layout(gtx, func(gtx C) D {
		bg := colCard
		if c.Hovered() {
			bg = colSelected
		}
		return layout.Background{}.Layout(gtx, fill(bg), func(gtx C) D {
			gtx.Constraints.Min.X = gtx.Constraints.Max.X
			return layout.Inset{Top: 3, Bottom: 3, Left: unit.Dp(12 + 16*r.depth), Right: 8}.Layout(gtx, func(gtx C) D {
				return layout.Flex{Alignment: layout.Middle}.Layout(gtx,
					layout.Rigid(u.badge(string(p.status))),
					layout.Rigid(gap(6)),
					layout.Flexed(1, u.label(14, p.title(), colText, font.Normal)),
				)
			})
		})
	})
}

func (u *UI) layoutPanes(gtx C) D {
	return layout.UniformInset(6).Layout(gtx, func(gtx C) D {
		return material.List(u.th, &u.paneList).Layout(gtx, len(u.order), func(gtx C, i int) D {
			p := u.panes[u.order[i].id]
			if p == nil {
				return D{}
			}
			return layout.UniformInset(4).Layout(gtx, func(gtx C) D { return p.layout(gtx, u) })
		})
	})
}

func (u *UI) layoutInterrupts(gtx C, v *view.View) D {
	pending := v.PendingInterrupts()
	if len(pending) == 0 {
		return D{}
	}
	return layout.Background{}.Layout(gtx, fill(colInterrupt), func(gtx C) D {
		gtx.Constraints.Min.X = gtx.Constraints.Max.X
		rows := make([]layout.FlexChild, 0, len(pending))
		for _, it := range pending {
			rows = append(rows, layout.Rigid(func(gtx C) D { return u.layoutInterrupt(gtx, v, it) }))
		}
		return layout.Inset{Top: 6, Bottom: 6, Left: 12, Right: 12}.Layout(gtx, func(gtx C) D {
			return layout.Flex{Axis: layout.Vertical}.Layout(gtx, rows...)
		})
	})
}

func (u *UI) layoutInterrupt(gtx C, v *view.View, it event.Interrupt) D {
	who := "the parent agent"
	if it.Subagent != nil {
		who = *it.Subagent
		if inv := v.Invocation(*it.Subagent); inv != nil {
			who = inv.Name() + " " + inv.ID()
		}
	}
	msg := it.Reason
	if it.Message != nil {
		msg = *it.Message
	}
	a, r := u.approve[it.ID], u.reject[it.ID]
	if a == nil {
		a, r = new(widget.Clickable), new(widget.Clickable)
		u.approve[it.ID], u.reject[it.ID] = a, r
	}
	children := []layout.FlexChild{
		layout.Flexed(1, u.label(14, who+" asks: "+msg, colText, font.Normal)),
	}
	if u.sender != nil {
		if chosen, ok := u.answers[it.ID]; ok {
			children = append(children, layout.Rigid(u.label(14, map[bool]string{true: "approved", false: "rejected"}[chosen], colMuted, font.Normal)))
		} else if !u.sender.sending() {
			children = append(children,
				layout.Rigid(gap(8)),
				layout.Rigid(u.button(a, "Approve", rgb(0x15803d))),
				layout.Rigid(gap(8)),
				layout.Rigid(u.button(r, "Reject", rgb(0xb91c1c))),
			)
		}
	}
	return layout.Flex{Alignment: layout.Middle}.Layout(gtx, children...)
}

func (u *UI) layoutInput(gtx C) D {
	if u.sender == nil {
		return layout.Background{}.Layout(gtx, fill(colCard), func(gtx C) D {
			gtx.Constraints.Min.X = gtx.Constraints.Max.X
			return layout.UniformInset(10).Layout(gtx, u.label(14, "attached to a journal: watching read-only", colMuted, font.Normal))
		})
	}
	notice := u.notice
	if err := u.sender.lastErr(); err != nil {
		notice = "the last turn failed: " + err.Error()
		var ie *client.InterruptError
		if errors.As(err, &ie) {
			notice = ie.Error()
		}
	}
	return layout.Background{}.Layout(gtx, fill(colCard), func(gtx C) D {
		gtx.Constraints.Min.X = gtx.Constraints.Max.X
		return layout.UniformInset(8).Layout(gtx, func(gtx C) D {
			return layout.Flex{Axis: layout.Vertical}.Layout(gtx,
				layout.Rigid(func(gtx C) D {
					return layout.Flex{Alignment: layout.Middle}.Layout(gtx,
						layout.Flexed(1, func(gtx C) D {
							return border(gtx, func(gtx C) D {
								gtx.Constraints.Min.X = gtx.Constraints.Max.X
								return layout.UniformInset(8).Layout(gtx, material.Editor(u.th, &u.editor, "Send the next message…").Layout)
							})
						}),
						layout.Rigid(gap(8)),
						layout.Rigid(func(gtx C) D {
							if u.sender.sending() {
								return u.label(14, "the agent is answering…", colMuted, font.Normal)(gtx)
							}
							return u.button(&u.sendBtn, "Send", rgb(0x1d4ed8))(gtx)
						}),
					)
				}),
				layout.Rigid(func(gtx C) D {
					if notice == "" {
						return D{}
					}
					return layout.Inset{Top: 4}.Layout(gtx, u.label(13, notice, colError, font.Normal))
				}),
			)
		})
	})
}

func (u *UI) label(size unit.Sp, s string, c color.NRGBA, w font.Weight) layout.Widget {
	return func(gtx C) D {
		l := material.Label(u.th, size, s)
		l.Color = c
		l.Font.Weight = w
		return l.Layout(gtx)
	}
}

func (u *UI) badge(status string) layout.Widget {
	return func(gtx C) D {
		return layout.Background{}.Layout(gtx, roundRect(badgeColor(status), 4), func(gtx C) D {
			return layout.Inset{Top: 1, Bottom: 1, Left: 6, Right: 6}.Layout(gtx, u.label(12, status, rgb(0xffffff), font.Bold))
		})
	}
}

func (u *UI) button(c *widget.Clickable, s string, bg color.NRGBA) layout.Widget {
	return func(gtx C) D {
		b := material.Button(u.th, c, s)
		b.Background = bg
		b.TextSize = 14
		b.Inset = layout.Inset{Top: 6, Bottom: 6, Left: 14, Right: 14}
		return b.Layout(gtx)
	}
}

func gap(dp unit.Dp) layout.Widget {
	return func(gtx C) D { return layout.Spacer{Width: dp, Height: dp}.Layout(gtx) }
}

func fill(c color.NRGBA) layout.Widget {
	return func(gtx C) D {
		paint.FillShape(gtx.Ops, c, clip.Rect{Max: gtx.Constraints.Min}.Op())
		return D{Size: gtx.Constraints.Min}
	}
}

func roundRect(c color.NRGBA, r unit.Dp) layout.Widget {
	return func(gtx C) D {
		paint.FillShape(gtx.Ops, c, clip.UniformRRect(image.Rectangle{Max: gtx.Constraints.Min}, gtx.Dp(r)).Op(gtx.Ops))
		return D{Size: gtx.Constraints.Min}
	}
}

// border draws w on a card with a one-pixel border.
func border(gtx C, w layout.Widget) D {
	return widget.Border{Color: colBorder, CornerRadius: 4, Width: 1}.Layout(gtx, func(gtx C) D {
		return layout.Background{}.Layout(gtx, roundRect(colCard, 4), w)
	})
}
