package reducer_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heapBytes returns the live heap after collecting garbage.
func heapBytes() uint64 {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestBuilderLetsGoOfReplacedData checks that a Builder folding on, without
// handing out a view, does not keep alive a large state document or message
// that a later event replaced (neither in what it reuses from fold to fold
// nor in views kept by an allocation slab, which the views of refused
// events come from). (Not parallel: it measures the heap.)
func TestBuilderLetsGoOfReplacedData(t *testing.T) {
	const big = 4 << 20
	payload := strings.Repeat("x", big)
	cases := []struct {
		name         string
		large, small string
	}{
		{"state snapshot",
			fmt.Sprintf(`{"type":"STATE_SNAPSHOT","snapshot":{"a":%q}}`, payload),
			`{"type":"STATE_SNAPSHOT","snapshot":{"a":1}}`},
		{"state delta of the whole document",
			fmt.Sprintf(`{"type":"STATE_SNAPSHOT","snapshot":{"a":%q}}`, payload),
			`{"type":"STATE_DELTA","delta":[{"op":"replace","path":"","value":{"a":1}}]}`},
		{"messages snapshot",
			fmt.Sprintf(`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"old","role":"user","content":%q}]}`, payload),
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"new","role":"user","content":"hi"}]}`},
	}
	payload = ""
	for _, refusals := range []int{0, 2} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s after %d refusals", c.name, refusals), func(t *testing.T) {
				letsGo(t, c.large, c.small, refusals, big)
			})
		}
	}
}

// letsGo folds large, then refusals refused events (whose views come from
// an allocation slab), then small, which replaces what large held, and 100
// deltas, and fails when the heap still holds about big bytes more than
// before large.
func letsGo(t *testing.T, largeLine, small string, refusals, big int) {
	b := reducer.NewBuilder(view.New())
	fold := func(line string) {
		t.Helper()
		require.NoError(t, b.FoldJSON([]byte(line)), "%.60s", line)
	}
	fold(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)
	fold(`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}`)
	b.View()
	before := heapBytes()
	large := []byte(largeLine)
	require.NoError(t, b.FoldJSON(large))
	large = nil
	for range refusals {
		b.Refuse("", errors.New("a frame that could not be read"))
	}
	fold(small)
	for range 100 {
		fold(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}`)
	}
	after := heapBytes()
	assert.Less(t, int64(after)-int64(before), int64(big/4),
		"the heap grew by %d bytes over %d folds after a %d-byte value was replaced", after-before, refusals+101, big)
	runtime.KeepAlive(b)
}
