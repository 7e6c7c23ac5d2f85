package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"strings"

	"gioui.org/font"
	"gioui.org/layout"
	"gioui.org/widget/material"

	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
)

// maxShown bounds what a pane shows of one tool call's arguments or result.
const maxShown = 400

// blockKind says how a pane draws a block.
type blockKind int

const (
	blockText      blockKind = iota // the agent's text
	blockUser                       // a user message
	blockReasoning                  // reasoning
	blockCall                       // a tool call with its arguments
	blockResult                     // a tool call's result, or the invocation's
	blockError                      // an error report
)

// block is one paragraph of a pane.
type block struct {
	kind  blockKind
	label string
	text  string
	open  bool // still streaming
}

// pane is what one invocation's pane draws, built from the invocation when
// it changed (the view shares unchanged invocations between views, so a
// pane is rebuilt only for the invocations a new view changed).
type pane struct {
	id, name, description string
	status                view.Status
	steps                 string
	blocks                []block
}

// newPane builds the pane of inv. It only reads inv, an immutable value.
func newPane(inv *view.Invocation) *pane {
	p := &pane{id: inv.ID(), name: inv.Name(), description: inv.Description(), status: inv.Status()}
	if inv.IsRoot() {
		p.name = "parent agent"
	}
	var steps []string
	for _, s := range inv.Steps() {
		mark := ""
		if s.Status == view.EntityOpen {
			mark = " (running)"
		}
		steps = append(steps, s.Name+mark)
	}
	if len(steps) > 0 {
		p.steps = "steps: " + strings.Join(steps, " › ")
	}
	calls := map[string][]view.ToolCall{}
	for _, c := range inv.ToolCalls() {
		calls[c.MessageID] = append(calls[c.MessageID], c)
	}
	reasoning := map[string]view.Reasoning{}
	for _, r := range inv.Reasoning() {
		reasoning[r.MessageID] = r
	}
	for m := range inv.Messages() {
		switch m.Role {
		case event.RoleUser:
			p.blocks = append(p.blocks, block{kind: blockUser, label: "user", text: m.Text()})
		case event.RoleReasoning:
			r := reasoning[m.ID]
			text := r.Content
			if text == "" {
				text = m.Text()
			}
			if text != "" {
				p.blocks = append(p.blocks, block{kind: blockReasoning, label: "reasoning", text: text, open: r.Status == view.EntityOpen})
			}
		case event.RoleAssistant:
			if t := m.Text(); t != "" {
				p.blocks = append(p.blocks, block{kind: blockText, label: "assistant", text: t})
			}
			for _, c := range calls[m.ID] {
				p.blocks = append(p.blocks, block{kind: blockCall, label: "tool call " + c.Name, text: shorten(c.Arguments), open: c.Status == view.EntityOpen})
				if c.Result != nil {
					p.blocks = append(p.blocks, block{kind: blockResult, label: "result", text: shorten(jsonText(c.Result))})
				}
			}
		case event.RoleTool, event.RoleActivity: // shown with their call; activity is not drawn
		default: // system, developer
			p.blocks = append(p.blocks, block{kind: blockText, label: string(m.Role), text: m.Text()})
		}
	}
	if e := inv.Error(); e != nil {
		text := e.Message
		if e.Code != nil {
			text += " (" + *e.Code + ")"
		}
		p.blocks = append(p.blocks, block{kind: blockError, label: "error", text: text})
	}
	if r := inv.Result(); r != nil {
		p.blocks = append(p.blocks, block{kind: blockResult, label: "subagent result", text: shorten(jsonText(r))})
	}
	return p
}

// title is the pane's name as the tree shows it.
func (p *pane) title() string {
	if p.id == "" {
		return p.name
	}
	return p.name + " " + p.id
}

// jsonText returns a JSON string's text, or compact JSON for any other value.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String()
	}
	return string(raw)
}

// shorten shortens s to maxShown bytes, at a rune boundary.
func shorten(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
}

func isRuneStart(b byte) bool { return b&0xc0 != 0x80 }

func (p *pane) layout(gtx C, u *UI) D {
	gtx.Constraints.Min.X = gtx.Constraints.Max.X
	return border(gtx, func(gtx C) D {
		gtx.Constraints.Min.X = gtx.Constraints.Max.X
		return layout.UniformInset(10).Layout(gtx, func(gtx C) D {
			rows := []layout.FlexChild{
				layout.Rigid(func(gtx C) D {
					return layout.Flex{Alignment: layout.Middle}.Layout(gtx,
						layout.Rigid(u.label(16, p.title(), colHeader, font.Bold)),
						layout.Rigid(gap(8)),
						layout.Rigid(u.badge(string(p.status))),
						layout.Rigid(gap(8)),
						layout.Flexed(1, u.label(13, p.description, colMuted, font.Normal)),
					)
				}),
			}
			if p.steps != "" {
				rows = append(rows, layout.Rigid(func(gtx C) D {
					return layout.Inset{Top: 4}.Layout(gtx, u.label(13, p.steps, colMuted, font.Normal))
				}))
			}
			for _, b := range p.blocks {
				rows = append(rows, layout.Rigid(func(gtx C) D { return b.layout(gtx, u) }))
			}
			return layout.Flex{Axis: layout.Vertical}.Layout(gtx, rows...)
		})
	})
}

func (b block) layout(gtx C, u *UI) D {
	label, c, style := b.label, colText, font.Regular
	switch b.kind {
	case blockUser:
		c = colUser
	case blockReasoning:
		c, style = colReasoning, font.Italic
	case blockCall, blockResult:
		c = colTool
	case blockError:
		c = colError
	}
	if b.open {
		label += " (streaming)"
	}
	return layout.Inset{Top: 6}.Layout(gtx, func(gtx C) D {
		return layout.Flex{Axis: layout.Vertical}.Layout(gtx,
			layout.Rigid(u.label(12, label, colMuted, font.Bold)),
			layout.Rigid(func(gtx C) D { return u.text(gtx, b.text, c, style) }),
		)
	})
}

// text draws a paragraph.
func (u *UI) text(gtx C, s string, c color.NRGBA, style font.Style) D {
	l := material.Label(u.th, 14, s)
	l.Color = c
	l.Font.Style = style
	return l.Layout(gtx)
}
