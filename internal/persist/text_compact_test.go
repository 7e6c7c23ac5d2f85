package persist

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTextCompact: a finished stream gives back its buffer's spare room;
// the compacted text is equal, and the streamed value it came from is
// unchanged.
func TestTextCompact(t *testing.T) {
	var tx Text
	for range 3 {
		tx = tx.Append("hello")
	}
	c := tx.Compact()
	assert.Equal(t, "hellohellohello", c.String())
	assert.Equal(t, len(c.String()), len(c.buf.b), "no spare room left")
	assert.Equal(t, "hellohellohello", tx.String())
	assert.Equal(t, c, c.Compact(), "a compact text stays as it is")
	long := TextOf(strings.Repeat("x", 100)).Append("y")
	assert.Equal(t, strings.Repeat("x", 100)+"y", long.Compact().String())
	assert.Equal(t, Text{}, Text{}.Compact())
}
