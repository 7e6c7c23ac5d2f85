package reducer_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agview/agview/event"
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
// that a later event replaced, whether or not refused events came between.
// (Not parallel: it measures the heap.)
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

// letsGo folds large, then refusals refused events, then small, which replaces what large held, and 100
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

// TestFoldLetsGoOfReplacedSnapshots checks that the pure fold does not keep
// alive the large snapshots that later ones replaced (a store folds with
// Fold, and keeps only its latest view). (Not parallel: it measures the
// heap.)
func TestFoldLetsGoOfReplacedSnapshots(t *testing.T) {
	const big, n = 1 << 20, 8
	payload := strings.Repeat("x", big)
	cases := []struct {
		name         string
		large, small string
	}{
		{"messages snapshot",
			fmt.Sprintf(`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"user","content":%q}]}`, payload),
			`{"type":"MESSAGES_SNAPSHOT","messages":[]}`},
		{"state snapshot",
			fmt.Sprintf(`{"type":"STATE_SNAPSHOT","snapshot":{"a":%q}}`, payload),
			`{"type":"STATE_SNAPSHOT","snapshot":{}}`},
		{"state delta",
			fmt.Sprintf(`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":%q}]}`, payload),
			`{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a"}]}`},
		{"activity snapshot",
			fmt.Sprintf(`{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN","content":{"a":%q}}`, payload),
			`{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"PLAN","content":{}}`},
		{"run input",
			fmt.Sprintf(`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":%q}]}}`, payload),
			`{"type":"MESSAGES_SNAPSHOT","messages":[]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := view.New()
			fold := func(line string) {
				t.Helper()
				var err error
				v, err = reducer.FoldJSON(v, []byte(line))
				require.NoError(t, err, "%.60s", line)
			}
			fold(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)
			fold(`{"type":"STATE_SNAPSHOT","snapshot":{}}`)
			before := heapBytes()
			for i := range n {
				if strings.HasPrefix(c.large, `{"type":"RUN_STARTED"`) {
					fold(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`)
				}
				// A new id each time: a run input restating the message
				// the view holds would keep that one.
				fold(strings.Replace(c.large, `"id":"m"`, fmt.Sprintf(`"id":"m%d"`, i), 1))
			}
			fold(c.small)
			after := heapBytes()
			assert.Less(t, int64(after)-int64(before), int64(3*big),
				"the heap grew by %d bytes after %d snapshots of %d bytes, all but the last replaced", after-before, n, big)
			runtime.KeepAlive(v)
		})
	}
}

// TestInputLetsGoOfReplacedHistory is TestFoldLetsGoOfReplacedSnapshots
// for run inputs folded with Input, each replacing the history before it.
func TestInputLetsGoOfReplacedHistory(t *testing.T) {
	const big, n = 1 << 20, 8
	payload, err := json.Marshal(strings.Repeat("x", big))
	require.NoError(t, err)
	v := view.New()
	before := heapBytes()
	for i := range n {
		in := &event.RunAgentInput{ThreadID: "t", RunID: fmt.Sprint("r", i), Messages: []event.Message{
			{ID: fmt.Sprint("m", i), Role: event.RoleUser, Content: payload},
		}}
		v, err = reducer.Input(v, in)
		require.NoError(t, err)
	}
	payload = nil
	v, err = reducer.Input(v, &event.RunAgentInput{ThreadID: "t", RunID: "last"})
	require.NoError(t, err)
	after := heapBytes()
	assert.Less(t, int64(after)-int64(before), int64(3*big),
		"the heap grew by %d bytes after %d inputs of %d bytes, all but the last replaced", after-before, n, big)
	runtime.KeepAlive(v)
}
