package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"gioui.org/font"
	"gioui.org/layout"
	"gioui.org/unit"
	"gioui.org/widget"
	"gioui.org/widget/material"
)

// openDepth is how deep the state tree starts open.
const openDepth = 1

// stateTree is the run-scoped state as a collapsible tree: objects and
// arrays open and close on a click. It is rebuilt only when the state's
// JSON changes.
type stateTree struct {
	root   any
	err    error
	open   map[string]bool              // by JSON pointer; absent: open when shallower than openDepth
	clicks map[string]*widget.Clickable // by JSON pointer
	rows   []stateRow
}

// stateRow is one visible line of the tree.
type stateRow struct {
	path  string // the value's JSON pointer
	depth int
	key   string
	value any
}

// set replaces the state with raw (a JSON document).
func (t *stateTree) set(raw json.RawMessage) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	t.root, t.err = nil, nil
	if err := d.Decode(&t.root); err != nil {
		t.err = fmt.Errorf("the state is not JSON: %w", err)
	}
	t.flatten()
}

func (t *stateTree) isOpen(path string, depth int) bool {
	if o, ok := t.open[path]; ok {
		return o
	}
	return depth < openDepth
}

// flatten lists the rows that are visible.
func (t *stateTree) flatten() {
	t.rows = t.rows[:0]
	var walk func(path string, depth int, key string, v any)
	walk = func(path string, depth int, key string, v any) {
		t.rows = append(t.rows, stateRow{path: path, depth: depth, key: key, value: v})
		if !t.isOpen(path, depth) {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(path+"/"+k, depth+1, k, v[k])
			}
		case []any:
			for i, e := range v {
				walk(path+"/"+strconv.Itoa(i), depth+1, strconv.Itoa(i), e)
			}
		}
	}
	if t.err == nil {
		walk("", 0, "state", t.root)
	}
}

// update toggles the nodes clicked.
func (t *stateTree) update(gtx C) {
	changed := false
	for _, r := range t.rows {
		if c := t.clicks[r.path]; c != nil && c.Clicked(gtx) {
			t.open[r.path] = !t.isOpen(r.path, r.depth)
			changed = true
		}
	}
	if changed {
		t.flatten()
	}
}

func (t *stateTree) layout(gtx C, th *material.Theme, list *widget.List) D {
	if t.err != nil {
		l := material.Label(th, 13, t.err.Error())
		l.Color = colError
		return layout.Inset{Left: 12, Right: 12}.Layout(gtx, l.Layout)
	}
	return material.List(th, list).Layout(gtx, len(t.rows), func(gtx C, i int) D {
		r := t.rows[i]
		line, container := summary(r.value)
		if container {
			if t.isOpen(r.path, r.depth) {
				line = "▼ " + r.key + " " + line
			} else {
				line = "► " + r.key + " " + line
			}
		} else {
			line = "   " + r.key + ": " + line
		}
		l := material.Label(th, 13, line)
		l.Color = colText
		l.MaxLines = 1
		if container {
			l.Font.Weight = font.Bold
		}
		row := func(gtx C) D {
			gtx.Constraints.Min.X = gtx.Constraints.Max.X
			return layout.Inset{Top: 1, Bottom: 1, Left: unit.Dp(12 + 14*r.depth), Right: 8}.Layout(gtx, l.Layout)
		}
		if !container {
			return row(gtx)
		}
		c := t.clicks[r.path]
		if c == nil {
			c = new(widget.Clickable)
			t.clicks[r.path] = c
		}
		return c.Layout(gtx, row)
	})
}

// summary is a value's text: a scalar in JSON, a container's size.
func summary(v any) (string, bool) {
	switch v := v.(type) {
	case map[string]any:
		return fmt.Sprintf("{%d}", len(v)), true
	case []any:
		return fmt.Sprintf("[%d]", len(v)), true
	case nil:
		return "null", false
	}
	b, _ := json.Marshal(v)
	return string(b), false
}
