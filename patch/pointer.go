package patch

import (
	"strconv"
	"strings"
)

// parsePointer splits an RFC 6901 JSON pointer into its unescaped reference
// tokens. "" is the whole document (no tokens). A pointer must otherwise
// start with "/", and "~" may appear only as "~0" (for "~") or "~1" (for "/").
// On failure it returns why s is not a pointer.
func parsePointer(s string) ([]string, string) {
	if s == "" {
		return nil, ""
	}
	toks, bad := appendPointer(make([]string, 0, strings.Count(s, "/")), s)
	if bad != "" {
		return nil, bad
	}
	return toks, ""
}

// appendPointer is parsePointer appending the tokens to dst. A token without
// "~" is a substring of s. On failure it returns dst unchanged and why s is
// not a pointer.
func appendPointer(dst []string, s string) ([]string, string) {
	if s == "" {
		return dst, ""
	}
	if s[0] != '/' {
		return dst, "a JSON pointer must be empty or start with \"/\""
	}
	start := len(dst)
	for rest := s[1:]; ; {
		tok, next, more := strings.Cut(rest, "/")
		if strings.IndexByte(tok, '~') >= 0 {
			var ok bool
			if tok, ok = unescapeToken(tok); !ok {
				return dst[:start], "\"~\" must be followed by \"0\" or \"1\" in a JSON pointer"
			}
		}
		dst = append(dst, tok)
		if !more {
			return dst, ""
		}
		rest = next
	}
}

// unescapeToken replaces "~0" by "~" and "~1" by "/" in a reference token,
// and reports false if it holds any other "~".
func unescapeToken(t string) (string, bool) {
	var b strings.Builder
	b.Grow(len(t))
	for j := 0; j < len(t); j++ {
		if t[j] != '~' {
			b.WriteByte(t[j])
			continue
		}
		if j+1 < len(t) && t[j+1] == '0' {
			b.WriteByte('~')
		} else if j+1 < len(t) && t[j+1] == '1' {
			b.WriteByte('/')
		} else {
			return "", false
		}
		j++
	}
	return b.String(), true
}

// formatPointer is the inverse of parsePointer.
func formatPointer(toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		for j := 0; j < len(t); j++ {
			switch t[j] {
			case '~':
				b.WriteString("~0")
			case '/':
				b.WriteString("~1")
			default:
				b.WriteByte(t[j])
			}
		}
	}
	return b.String()
}

// maxIndexDigits bounds the array index tokens parsed as numbers; longer
// tokens name an index no array can reach.
const maxIndexDigits = 18

// arrayIndex reads tok as an index into an array of length n: "0" or a
// decimal number without a leading zero or sign (RFC 6901 section 4), below
// n, or equal to n when end is true (an add may insert after the last
// element). "-" names the position after the last element, for add only.
func arrayIndex(tok string, n int, end bool) (int, *failure) {
	if tok == "-" {
		if end {
			return n, nil
		}
		return 0, failf(ErrPathNotFound, "\"-\" names the nonexistent element after the last one; only add may use it")
	}
	if tok == "" {
		return 0, failf(ErrInvalidPointer, "an empty reference token is not an array index")
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, failf(ErrInvalidPointer, "%q is not an array index (want digits only)", tok)
		}
	}
	if len(tok) > 1 && tok[0] == '0' {
		return 0, failf(ErrInvalidPointer, "%q is not an array index (leading zero)", tok)
	}
	limit := n
	if end {
		limit = n + 1
	}
	if len(tok) > maxIndexDigits {
		return 0, failf(ErrPathNotFound, "index %s is out of range for an array of length %d", tok, n)
	}
	i, _ := strconv.Atoi(tok) // cannot fail: at most 18 digits
	if i >= limit {
		return 0, failf(ErrPathNotFound, "index %d is out of range for an array of length %d", i, n)
	}
	return i, nil
}
