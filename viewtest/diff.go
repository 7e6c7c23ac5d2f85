package viewtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Difference is one place where two views' JSON forms differ.
type Difference struct {
	// Path names the place in the tree, e.g.
	// "researcher sa-2 › tool call tc-5 › result" or "state › /plan/0".
	Path string
	// Want and Got are the expected and the actual value as compact JSON;
	// "" when the value is missing on that side.
	Want, Got string
}

// String returns "PATH: expected WANT, got GOT".
func (d Difference) String() string {
	switch {
	case d.Want == "":
		return fmt.Sprintf("%s: unexpected %s", d.Path, d.Got)
	case d.Got == "":
		return fmt.Sprintf("%s: expected %s, missing", d.Path, d.Want)
	}
	return fmt.Sprintf("%s: expected %s, got %s", d.Path, d.Want, d.Got)
}

// FormatDiffs writes at most max differences, one a line, and how many more
// there are.
func FormatDiffs(diffs []Difference, max int) string {
	var b strings.Builder
	for i, d := range diffs {
		if i == max {
			fmt.Fprintf(&b, "  … and %d more %s\n", len(diffs)-max, plural(len(diffs)-max, "difference"))
			break
		}
		fmt.Fprintf(&b, "  %s\n", d)
	}
	return b.String()
}

// Diff compares two views' JSON forms (golden files, or Normalize's output)
// and returns where they differ, in document order, each named by its place
// in the invocation tree: invocations and messages are matched by id, not
// by position, so that one extra message gives one difference.
func Diff(want, got []byte) ([]Difference, error) {
	w, err := decode(want)
	if err != nil {
		return nil, fmt.Errorf("expected view: %w", err)
	}
	g, err := decode(got)
	if err != nil {
		return nil, fmt.Errorf("actual view: %w", err)
	}
	wm, ok1 := w.(map[string]any)
	gm, ok2 := g.(map[string]any)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("a view's JSON form is an object")
	}
	d := &differ{names: map[string]string{}}
	d.learn(wm)
	d.learn(gm)
	for _, k := range unionKeys(wm, gm) {
		wv, wok := wm[k]
		gv, gok := gm[k]
		switch {
		case !wok || !gok:
			d.add(k, wv, wok, gv, gok)
		case k == "invocations":
			d.byID(wv, gv, "subagentRunId", d.invLabel)
		case k == "messages":
			d.byID(wv, gv, "id", d.msgLabel)
		case k == "pendingInterrupts":
			d.byID(wv, gv, "id", func(m map[string]any) string { return "interrupt " + str(m["id"]) })
		case k == "runs":
			d.byIndex(wv, gv, func(i int, m map[string]any) string {
				if id := str(m["runId"]); id != "" {
					return "run " + id
				}
				return "run #" + strconv.Itoa(i+1)
			})
		case k == "state":
			d.value("state › ", wv, gv, true)
		default:
			d.value(k, wv, gv, false)
		}
	}
	return d.out, nil
}

func decode(b []byte) (any, error) {
	var x any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return x, nil
}

type differ struct {
	names map[string]string // subagentRunId → name
	out   []Difference
}

// learn records the invocations' names, for labels.
func (d *differ) learn(doc map[string]any) {
	invs, _ := doc["invocations"].([]any)
	for _, x := range invs {
		if m, ok := x.(map[string]any); ok {
			if id := str(m["subagentRunId"]); id != "" && str(m["name"]) != "" {
				d.names[id] = str(m["name"])
			}
		}
	}
}

func (d *differ) owner(id string) string {
	if id == "" {
		return "parent agent"
	}
	if n := d.names[id]; n != "" {
		return n + " " + id
	}
	return id
}

func (d *differ) invLabel(m map[string]any) string { return d.owner(str(m["subagentRunId"])) }

func (d *differ) msgLabel(m map[string]any) string {
	owner := d.owner(str(m["subagentRunId"]))
	if str(m["role"]) == "tool" {
		return owner + " › tool call " + str(m["toolCallId"]) + " › result"
	}
	return owner + " › " + str(m["role"]) + " message " + str(m["id"])
}

func (d *differ) add(path string, w any, wok bool, g any, gok bool) {
	diff := Difference{Path: path}
	if wok {
		diff.Want = compact(w)
	}
	if gok {
		diff.Got = compact(g)
	}
	d.out = append(d.out, diff)
}

// byID compares two arrays of objects matched by their key member.
func (d *differ) byID(w, g any, key string, label func(map[string]any) string) {
	wa, _ := w.([]any)
	ga, _ := g.([]any)
	index := func(a []any) (map[string]map[string]any, []string) {
		m := map[string]map[string]any{}
		var order []string
		for i, x := range a {
			o, _ := x.(map[string]any)
			id := str(o[key])
			if id == "" {
				id = "#" + strconv.Itoa(i)
			}
			m[id] = o
			order = append(order, id)
		}
		return m, order
	}
	wm, worder := index(wa)
	gm, gorder := index(ga)
	seen := map[string]bool{}
	for _, id := range append(worder, gorder...) {
		if seen[id] {
			continue
		}
		seen[id] = true
		wo, wok := wm[id]
		gov, gok := gm[id]
		switch {
		case wok && gok:
			d.object(label(gov), wo, gov)
		case wok:
			d.add(label(wo), wo, true, nil, false)
		default:
			d.add(label(gov), nil, false, gov, true)
		}
	}
	if len(d.out) == 0 && !reflect.DeepEqual(worder, gorder) {
		d.add("order of "+key+"s", worder, true, gorder, true)
	}
}

func (d *differ) byIndex(w, g any, label func(int, map[string]any) string) {
	wa, _ := w.([]any)
	ga, _ := g.([]any)
	for i := 0; i < max(len(wa), len(ga)); i++ {
		var wo, gov map[string]any
		if i < len(wa) {
			wo, _ = wa[i].(map[string]any)
		}
		if i < len(ga) {
			gov, _ = ga[i].(map[string]any)
		}
		switch {
		case i < len(wa) && i < len(ga):
			d.object(label(i, gov), wo, gov)
		case i < len(wa):
			d.add(label(i, wo), wo, true, nil, false)
		default:
			d.add(label(i, gov), nil, false, gov, true)
		}
	}
}

// object compares two objects member by member, naming tool calls of an
// assistant message by their id.
func (d *differ) object(label string, w, g map[string]any) {
	for _, k := range unionKeys(w, g) {
		wv, wok := w[k]
		gv, gok := g[k]
		path := label + " › " + k
		if k == "content" && strings.HasSuffix(label, "› result") {
			path = label
		}
		switch {
		case !wok || !gok:
			d.add(path, wv, wok, gv, gok)
		case k == "toolCalls":
			d.byID(wv, gv, "id", func(m map[string]any) string {
				return strings.TrimSuffix(label, " › "+str(g["role"])+" message "+str(g["id"])) + " › tool call " + str(m["id"])
			})
		default:
			d.value(path, wv, gv, false)
		}
	}
}

// value compares two JSON values; with pointer, paths inside them are JSON
// pointers (the state document), else member names joined by " › ".
func (d *differ) value(path string, w, g any, pointer bool) {
	wm, ok1 := w.(map[string]any)
	gm, ok2 := g.(map[string]any)
	if ok1 && ok2 {
		for _, k := range unionKeys(wm, gm) {
			wv, wok := wm[k]
			gv, gok := gm[k]
			p := join(path, k, pointer)
			if !wok || !gok {
				d.add(p, wv, wok, gv, gok)
				continue
			}
			d.value(p, wv, gv, pointer)
		}
		return
	}
	wa, ok1 := w.([]any)
	ga, ok2 := g.([]any)
	if ok1 && ok2 && len(wa) == len(ga) {
		for i := range wa {
			d.value(join(path, strconv.Itoa(i), pointer), wa[i], ga[i], pointer)
		}
		return
	}
	if !reflect.DeepEqual(w, g) {
		if pointer && strings.HasSuffix(path, "› ") {
			path += "(the whole document)"
		}
		d.add(path, w, true, g, true)
	}
}

func join(path, k string, pointer bool) string {
	if pointer {
		return path + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
	}
	return path + " › " + k
}

func unionKeys(a, b map[string]any) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func str(x any) string {
	s, _ := x.(string)
	return s
}

// compact returns x as compact JSON, cut at 200 bytes (on a character
// boundary), with <, > and & as they are: placeholders such as <id-3> read
// as written.
func compact(x any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return fmt.Sprint(x)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(b) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}
