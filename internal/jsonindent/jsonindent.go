// Package jsonindent indents JSON as a stream: a Writer takes a JSON text in
// pieces of any size and writes it indented as encoding/json's Indent (and
// MarshalIndent, with EscapeHTML) would, holding no more of it than a few
// bytes and, when asked, a count per open container. It can also bound what
// it shows, for a human reader: containers nested deeper than MaxDepth are
// shown as one collapsed line with their member count, and members of a
// container past MaxItems as one line counting them. Nothing recurses: a
// document nested a million deep costs no stack.
//
// The input must be valid JSON (as produced by encoding/json, or a document
// agview holds); whitespace outside strings is dropped (Indent drops it too,
// but keeps trailing whitespace).
//
// # Concurrency
//
// A Writer belongs to one goroutine.
package jsonindent

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agview/agview/internal/termsafe"
)

// Options say how to indent and what to show.
type Options struct {
	// Prefix begins every line but the first; Indent is repeated once per
	// level, as for json.Indent.
	Prefix, Indent string
	// EscapeHTML writes <, >, & and U+2028, U+2029 inside strings as
	// \u003c, \u003e, \u0026, \u2028, \u2029, as json.Marshal does.
	EscapeHTML bool
	// MaxDepth, when positive, collapses each container that opens deeper
	// than MaxDepth levels into "[… N items]" or "{… N keys}".
	MaxDepth int
	// MaxItems, when positive, shows at most MaxItems members of a
	// container; the rest are one line, "… N more".
	MaxItems int
	// IndentDepth, when positive, indents the first IndentDepth levels
	// only: a container nested deeper is written compact (no line breaks,
	// no indentation, no space after a colon), so that no line is indented
	// more than IndentDepth times and the output is at most
	// (len(Indent)·IndentDepth+3)/2 times the input whatever its nesting
	// (each member, 2 bytes at least with its comma, gains at most a line
	// break and its indentation); indenting every level of a document
	// nested n deep costs n² bytes for 2n bytes in. The document is whole,
	// unlike with MaxDepth. A negative IndentDepth writes every level
	// compact (with Safe: json.Marshal's output, made safe).
	IndentDepth int
	// Safe writes inside strings what a terminal would interpret, and what
	// is not UTF-8, as escapes that decode to the same text: C1 controls,
	// DEL and Unicode format characters (bidi overrides) as \u009b and the
	// like (termsafe.Unsafe), U+2028 and U+2029 as \u2028 and \u2029, and
	// each byte that is not UTF-8 as \ufffd, as encoding/json does. (Valid
	// JSON holds no raw C0 control in a string; one is escaped too.)
	Safe bool
}

// Writer indents the JSON written to it. Call Close at the end: it flushes
// what is buffered.
type Writer struct {
	out  *bufio.Writer
	o    Options
	err  error
	open int // containers open (shown ones)

	inString, escaped bool
	needIndent        bool
	held              []byte // the start of a U+2028/U+2029 under EscapeHTML

	counts []int // members completed per open container, when MaxItems > 0

	// A skipped region: a collapsed container (collapse) or the members of
	// a container past MaxItems (tail).
	skip     int  // nesting inside the region; 0 when not skipping
	collapse bool // the region is a collapsed container, opened by opener
	opener   byte
	members  int  // members of the region's container counted so far
	nonEmpty bool // the collapsed container has a member
	sInStr   bool
	sEsc     bool
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer, o Options) *Writer {
	return &Writer{out: bufio.NewWriterSize(w, 64<<10), o: o}
}

// Write indents p, a piece of the JSON text. It never fails but for an
// error of the underlying writer.
func (w *Writer) Write(p []byte) (int, error) { return write(w, p, w.out.Write) }

// WriteString is Write for a string.
func (w *Writer) WriteString(s string) (int, error) { return write(w, s, w.out.WriteString) }

func write[T string | []byte](w *Writer, p T, copyOut func(T) (int, error)) (int, error) {
	for i := 0; i < len(p); {
		if w.err != nil {
			return 0, w.err
		}
		// Runs of plain bytes, inside a string or a literal, are copied
		// whole; every other byte goes through the state machine.
		if n := plainRun(w, p[i:]); n > 0 {
			if w.err == nil {
				_, w.err = copyOut(p[i : i+n])
			}
			i += n
			continue
		}
		w.byte(p[i])
		i++
	}
	return len(p), w.err
}

// plainRun returns how many bytes at the start of p are copied as they are:
// string content with nothing to escape or end, or the rest of a literal
// (number, true, false, null) already begun.
func plainRun[T string | []byte](w *Writer, p T) int {
	if w.skip > 0 || len(w.held) > 0 || w.escaped || w.needIndent {
		return 0
	}
	n := 0
	if w.inString {
		for n < len(p) {
			c := p[n]
			if c == '"' || c == '\\' || (w.o.EscapeHTML && (c == '<' || c == '>' || c == '&' || c == 0xE2)) ||
				(w.o.Safe && (c < 0x20 || c >= 0x7f)) {
				break
			}
			n++
		}
		return n
	}
	for n < len(p) {
		switch p[n] {
		case '"', '{', '}', '[', ']', ',', ':', ' ', '\t', '\n', '\r':
			return n
		}
		n++
	}
	return n
}

// Close flushes the output. It does not close the underlying writer.
func (w *Writer) Close() error {
	w.flushHeld()
	if w.err != nil {
		return w.err
	}
	w.err = w.out.Flush()
	return w.err
}

func (w *Writer) put(b byte) {
	if w.err == nil {
		w.err = w.out.WriteByte(b)
	}
}

func (w *Writer) puts(s string) {
	if w.err == nil {
		_, w.err = w.out.WriteString(s)
	}
}

// compact reports whether the members of the innermost open container are
// written compact (it is nested deeper than IndentDepth).
func (w *Writer) compact() bool {
	return w.o.IndentDepth < 0 || (w.o.IndentDepth > 0 && w.open > w.o.IndentDepth)
}

func (w *Writer) newline(depth int) {
	w.put('\n')
	w.puts(w.o.Prefix)
	if w.o.Indent != "" {
		for range depth {
			w.puts(w.o.Indent)
		}
	}
}

func (w *Writer) byte(c byte) {
	if w.skip > 0 {
		w.skipByte(c)
		return
	}
	if w.inString {
		w.stringByte(c)
		return
	}
	switch c {
	case ' ', '\t', '\n', '\r':
		return
	}
	if w.needIndent && c != '}' && c != ']' {
		w.needIndent = false
		if !w.compact() {
			w.newline(w.open)
		}
	}
	switch c {
	case '"':
		w.inString = true
		w.put(c)
	case '{', '[':
		if w.o.MaxDepth > 0 && w.open >= w.o.MaxDepth {
			w.skip, w.collapse, w.opener, w.members, w.nonEmpty = 1, true, c, 0, false
			return
		}
		w.open++
		if w.o.MaxItems > 0 {
			w.counts = append(w.counts, 0)
		}
		w.needIndent = true
		w.put(c)
	case ',':
		if w.o.MaxItems > 0 && w.open > 0 {
			top := len(w.counts) - 1
			w.counts[top]++
			if w.counts[top] >= w.o.MaxItems {
				// The rest of this container is counted, not shown.
				w.skip, w.collapse, w.members = 1, false, 1
				return
			}
		}
		w.put(c)
		if !w.compact() {
			w.newline(w.open)
		}
	case ':':
		w.put(c)
		if !w.compact() {
			w.put(' ')
		}
	case '}', ']':
		w.closeContainer(c)
	default:
		w.put(c)
	}
}

func (w *Writer) closeContainer(c byte) {
	if w.needIndent {
		w.needIndent = false // an empty container: {} or []
	} else if !w.compact() {
		w.newline(w.open - 1)
	}
	w.open--
	if w.o.MaxItems > 0 && len(w.counts) > 0 {
		w.counts = w.counts[:len(w.counts)-1]
	}
	w.put(c)
}

func (w *Writer) stringByte(c byte) {
	if len(w.held) > 0 {
		w.heldByte(c)
		return
	}
	switch {
	case w.escaped:
		w.escaped = false
	case c == '\\':
		w.escaped = true
	case c == '"':
		w.inString = false
	case w.o.EscapeHTML && (c == '<' || c == '>' || c == '&'):
		w.escapeRune(rune(c))
		return
	case w.o.Safe && (c < 0x20 || c == 0x7f):
		w.escapeRune(rune(c))
		return
	case w.o.Safe && c >= 0x80, w.o.EscapeHTML && c == 0xE2:
		// The start of a character that may need escaping: held until it
		// is whole.
		w.held = append(w.held[:0], c)
		if w.o.Safe && utf8.FullRune(w.held) {
			w.heldByte(0) // a byte that starts no character
		}
		return
	}
	w.put(c)
}

// heldByte adds c to the held start of a character (c is ignored when 0
// and the held bytes are already a whole rune or an invalid byte) and,
// once it is whole or cannot be, writes it: escaped when Options ask.
func (w *Writer) heldByte(c byte) {
	if c != 0 || !utf8.FullRune(w.held) {
		w.held = append(w.held, c)
	}
	if !utf8.FullRune(w.held) {
		return
	}
	r, size := utf8.DecodeRune(w.held)
	held := w.held
	w.held = nil
	switch {
	case r == utf8.RuneError && size == 1:
		if w.o.Safe {
			w.puts(`\ufffd`)
		} else {
			w.put(held[0])
		}
	case w.o.EscapeHTML && (r == '\u2028' || r == '\u2029'),
		w.o.Safe && (r == '\u2028' || r == '\u2029' || termsafe.Unsafe(r)):
		w.escapeRune(r)
	default:
		w.puts(string(held[:size]))
	}
	// What follows an invalid start goes through again.
	for _, b := range held[size:] {
		w.stringByte(b)
	}
	if w.held == nil {
		w.held = held[:0]
	}
}

// escapeRune writes r as \uXXXX, or as a surrogate pair beyond the Basic
// Multilingual Plane.
func (w *Writer) escapeRune(r rune) {
	if r > 0xFFFF {
		hi, lo := utf16.EncodeRune(r)
		w.escapeRune(hi)
		w.escapeRune(lo)
		return
	}
	const hex = "0123456789abcdef"
	w.puts(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		w.put(hex[(r>>shift)&0xF])
	}
}

func (w *Writer) flushHeld() {
	if len(w.held) > 0 {
		held := w.held
		w.held = w.held[:0]
		for _, b := range held {
			if w.o.Safe {
				w.puts(`\ufffd`) // a character cut short
			} else {
				w.put(b)
			}
		}
	}
}

// skipByte follows a skipped region, counting its members, and writes its
// summary when it ends.
func (w *Writer) skipByte(c byte) {
	if w.sInStr {
		switch {
		case w.sEsc:
			w.sEsc = false
		case c == '\\':
			w.sEsc = true
		case c == '"':
			w.sInStr = false
		}
		return
	}
	switch c {
	case ' ', '\t', '\n', '\r':
		return
	case '}', ']', ',':
	default:
		if w.skip == 1 && w.collapse && !w.nonEmpty {
			w.nonEmpty = true // the first member begins
			w.members = 1
		}
	}
	switch c {
	case '"':
		w.sInStr = true
	case '{', '[':
		w.skip++
	case ',':
		if w.skip == 1 {
			w.members++
		}
		return
	case '}', ']':
		w.skip--
		if w.skip > 0 {
			return
		}
		if w.collapse {
			w.collapsed(c)
		} else {
			w.newline(w.open)
			w.puts("… " + strconv.Itoa(w.members) + " more")
			w.closeContainer(c)
		}
	}
}

// collapsed writes a collapsed container.
func (w *Writer) collapsed(closer byte) {
	w.put(w.opener)
	if w.nonEmpty {
		what := " items"
		if w.opener == '{' {
			what = " keys"
		}
		if w.members == 1 {
			what = what[:len(what)-1]
		}
		w.puts("… " + strconv.Itoa(w.members) + what)
	}
	w.put(closer)
}
