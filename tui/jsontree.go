package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// node is one value of a JSON document, with object members in document
// order (the state view shows them as the agent wrote them).
type node struct {
	key     string // member name or "[i]" element label; "" for the document
	elem    bool   // key is an array element's label, not a member name
	pointer string // RFC 6901 JSON pointer
	kind    byte   // '{', '[' or 's' (scalar)
	scalar  string // a scalar's JSON text
	kids    []*node
}

// maxJSONDepth bounds nesting, as encoding/json does, so that a hostile
// document cannot exhaust the stack.
const maxJSONDepth = 10000

// parseJSON reads one JSON value into a tree of nodes. Trailing data after
// the value is an error.
func parseJSON(raw []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := parseValue(dec, "", "", 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("tui: state: data after the JSON value at byte %d", dec.InputOffset())
	}
	return n, nil
}

func parseValue(dec *json.Decoder, key, ptr string, depth int) (*node, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("tui: state: nested deeper than %d at %q", maxJSONDepth, ptr)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("tui: state: at %q: %w", ptr, err)
	}
	n := &node{key: key, pointer: ptr}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = '{'
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("tui: state: at %q: %w", ptr, err)
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("tui: state: at %q: member name expected", ptr)
				}
				kid, err := parseValue(dec, k, ptr+"/"+escapePointer(k), depth+1)
				if err != nil {
					return nil, err
				}
				n.kids = append(n.kids, kid)
			}
		case '[':
			n.kind = '['
			for i := 0; dec.More(); i++ {
				kid, err := parseValue(dec, "["+strconv.Itoa(i)+"]", ptr+"/"+strconv.Itoa(i), depth+1)
				if err != nil {
					return nil, err
				}
				kid.elem = true
				n.kids = append(n.kids, kid)
			}
		default:
			return nil, fmt.Errorf("tui: state: at %q: unexpected %q", ptr, t)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, fmt.Errorf("tui: state: at %q: %w", ptr, err)
		}
	case string:
		n.kind = 's'
		b, _ := json.Marshal(t) // escapes control characters: safe to print
		n.scalar = string(b)
	case json.Number:
		n.kind = 's'
		n.scalar = t.String()
	case bool:
		n.kind = 's'
		n.scalar = strconv.FormatBool(t)
	case nil:
		n.kind = 's'
		n.scalar = "null"
	}
	return n, nil
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// treeLine is one line of a rendered JSON tree.
type treeLine struct {
	runs []styled
	// pointer is the node the line selects; closing brackets have none.
	pointer string
	node    bool
}

// maxStateItems is how many members of an expanded container the state
// view shows.
const maxStateItems = 200

// defaultOpenDepth is how deep containers start expanded: the document and
// its members; deeper containers start collapsed.
const defaultOpenDepth = 2

// flatten renders the visible part of the tree: one line per node, a
// container's closing bracket on a line of its own when it is expanded.
// open overrides the default expansion of containers by pointer.
func flatten(root *node, open map[string]bool) []treeLine {
	var out []treeLine
	var walk func(n *node, depth int, last bool)
	walk = func(n *node, depth int, last bool) {
		indent := strings.Repeat("  ", depth)
		comma := ","
		if last {
			comma = ""
		}
		var label []styled
		if depth > 0 {
			k := n.key
			if !n.elem {
				b, _ := json.Marshal(k)
				k = string(b)
			}
			label = []styled{with(stKey, oneLine(k)), plain(": ")}
		}
		if n.kind == 's' {
			runs := append([]styled{plain(indent + "  ")}, label...)
			runs = append(runs, with(scalarStyle(n.scalar), n.scalar), plain(comma))
			out = append(out, treeLine{runs: runs, pointer: n.pointer, node: true})
			return
		}
		closeCh := "}"
		if n.kind == '[' {
			closeCh = "]"
		}
		expanded, ok := open[n.pointer]
		if !ok {
			expanded = depth < defaultOpenDepth
		}
		if len(n.kids) == 0 {
			runs := append([]styled{plain(indent + "  ")}, label...)
			runs = append(runs, plain(string(n.kind)+closeCh+comma))
			out = append(out, treeLine{runs: runs, pointer: n.pointer, node: true})
			return
		}
		if !expanded {
			what := plural(len(n.kids), "key")
			if n.kind == '[' {
				what = plural(len(n.kids), "item")
			}
			runs := append([]styled{plain(indent + "▸ ")}, label...)
			// No separator after a folded container: {…} 5 keys reads
			// better than {…}, 5 keys.
			runs = append(runs, plain(string(n.kind)+"…"+closeCh+" "), with(stFaint, what))
			out = append(out, treeLine{runs: runs, pointer: n.pointer, node: true})
			return
		}
		runs := append([]styled{plain(indent + "▾ ")}, label...)
		runs = append(runs, plain(string(n.kind)))
		out = append(out, treeLine{runs: runs, pointer: n.pointer, node: true})
		for i, k := range n.kids {
			if i == maxStateItems {
				// A container of 100,000 members is not 100,000 lines a frame.
				what := plural(len(n.kids)-i, "more key")
				if n.kind == '[' {
					what = plural(len(n.kids)-i, "more item")
				}
				out = append(out, treeLine{runs: []styled{plain(indent + "    "), with(stFaint, "⋯ "+what+" (agview replay --json has them)")}})
				break
			}
			walk(k, depth+1, i == len(n.kids)-1)
		}
		out = append(out, treeLine{runs: []styled{plain(indent + "  " + closeCh + comma)}})
	}
	walk(root, 0, true)
	return out
}

func scalarStyle(s string) style {
	switch {
	case s == "null":
		return stFaint
	case s == "true" || s == "false":
		return stSuspend
	case strings.HasPrefix(s, `"`):
		return stOK
	}
	return stRunning
}
