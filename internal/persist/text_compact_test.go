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
	assert.Nil(t, c.buf(), "a compact text keeps no growable buffer")
	assert.Equal(t, "hellohellohello", tx.String())
	assert.Equal(t, c, c.Compact(), "a compact text stays as it is")
	long := TextOf(strings.Repeat("x", 100)).Append("y")
	assert.Equal(t, strings.Repeat("x", 100)+"y", long.Compact().String())
	full := TextOf(strings.Repeat("x", 30)).Append("yy") // 32 bytes in a buffer of 64
	for full.buf() != nil && len(full.buf().b) > full.Len()+16 {
		full = full.Append("z")
	}
	fc := full.Compact()
	assert.Equal(t, full.String(), fc.String(), "a nearly full buffer's bytes are kept as they are")
	assert.Equal(t, fc.String()+"!", fc.Append("!").String(), "appending to a finished text copies it")
	assert.Equal(t, full.String(), fc.String(), "and leaves it as it was")
	assert.Equal(t, Text{}, Text{}.Compact())
}
