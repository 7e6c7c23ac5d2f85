package reducer_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/internal/persist"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// arenaOf returns the arena v's stream copies its short strings into.
func arenaOf(v *view.View) *persist.Arena { return (*model.View)(v).Data().Strings() }

// messageLines returns the events of n short messages of stream s: each a
// start, one 60-byte delta and an end, as a chat's short answers are.
func messageLines(s, n int) []string {
	var lines []string
	for i := range n {
		id := fmt.Sprintf("m%d-%d", s, i)
		lines = append(lines,
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_START","messageId":%q,"role":"assistant"}`, id),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":%q,"delta":%q}`, id, strings.Repeat(string(rune('a'+s%26)), 60)),
			fmt.Sprintf(`{"type":"TEXT_MESSAGE_END","messageId":%q}`, id))
	}
	return lines
}

// TestArenaOnePerStream folds streams from one empty view in parallel
// goroutines: no arena of one stream's views, the views of refused events
// and detached views included, is another stream's (none is global), and
// the strings copied into them read back right. Run with -race.
func TestArenaOnePerStream(t *testing.T) {
	t.Parallel()
	empty := view.New()
	require.Nil(t, arenaOf(empty), "an empty view has no arena yet")
	const streams = 4
	views := make([][]*view.View, streams)
	var wg sync.WaitGroup
	for s := range streams {
		wg.Go(func() {
			v := mustFoldOn(t, empty, `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)
			views[s] = append(views[s], v)
			for _, l := range messageLines(s, 50) {
				v = mustFoldOn(t, v, l)
				views[s] = append(views[s], v)
			}
			refused, err := reducer.FoldJSON(v, []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"nope","delta":"x"}`))
			if err == nil {
				t.Errorf("stream %d: a delta to no message was accepted", s)
			}
			views[s] = append(views[s], refused, (*view.View)((*model.View)(v).Detached()))
		})
	}
	wg.Wait()
	owner := map[*persist.Arena]int{}
	for s, vs := range views {
		for i, v := range vs {
			a := arenaOf(v)
			require.NotNil(t, a, "stream %d, view %d has no arena", s, i)
			if o, ok := owner[a]; ok && o != s {
				t.Fatalf("streams %d and %d share an arena", o, s)
			}
			owner[a] = s
		}
		for i := range 50 {
			m, ok := vs[len(vs)-1].Message(fmt.Sprintf("m%d-%d", s, i))
			require.True(t, ok, "stream %d message %d", s, i)
			assert.JSONEq(t, fmt.Sprintf("%q", strings.Repeat(string(rune('a'+s%26)), 60)), string(m.Content), "stream %d message %d", s, i)
		}
	}
}

// TestArenaForksDoNotPinEachOther folds many streams from one published,
// non-empty view (a view folded from a recording, given as
// store.Options.Initial to a store per session), their events interleaved
// as concurrent sessions' are, then keeps one stream and drops the others
// and the view they started from: the heap the stream kept holds must stay
// near that of the same stream folded alone. Strings of every stream
// copied into chunks they all fill together would keep every stream's
// strings alive as long as any one stream. The view they start from is
// folded by Fold or by a Builder (whose views are detached), and the
// streams are folded by Fold or each by a Builder. (Not parallel: it
// measures the heap.)
func TestArenaForksDoNotPinEachOther(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const streams, msgs = 40, 400
	baseLines := []string{`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"greeting","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"greeting","delta":"hello"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"greeting"}`}
	lines := make([][]string, streams)
	for s := range streams {
		lines[s] = messageLines(s, msgs)
	}
	// A stream's folder: fold folds one line and view returns the latest
	// view.
	type folder struct {
		fold func(line string)
		view func() *view.View
	}
	byFold := func(v *view.View) folder {
		return folder{func(l string) { v = mustFoldOn(t, v, l) }, func() *view.View { return v }}
	}
	byBuilder := func(v *view.View) folder {
		b := reducer.NewBuilder(v)
		return folder{func(l string) { require.NoError(t, b.FoldJSON([]byte(l))) }, b.View}
	}
	for _, c := range []struct {
		name   string
		base   func() *view.View
		stream func(*view.View) folder
	}{
		{"Fold from a folded view", func() *view.View { return mustFoldOn(t, view.New(), baseLines...) }, byFold},
		{"Fold from a Builder's view", func() *view.View {
			f := byBuilder(view.New())
			for _, l := range baseLines {
				f.fold(l)
			}
			return f.view()
		}, byFold},
		{"Builders from a folded view", func() *view.View { return mustFoldOn(t, view.New(), baseLines...) }, byBuilder},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The stream alone.
			before := heapBytes()
			alone := c.stream(c.base())
			for _, l := range lines[0] {
				alone.fold(l)
			}
			aloneHeap := int64(heapBytes()) - int64(before)
			require.Equal(t, msgs+1, alone.view().MessageCount())
			alone = folder{}

			// The same stream among others forked from one view.
			before = heapBytes()
			b := c.base()
			fs := make([]folder, streams)
			for s := range fs {
				fs[s] = c.stream(b)
			}
			b = nil
			for i := range lines[0] {
				for s := range fs {
					fs[s].fold(lines[s][i])
				}
			}
			kept := fs[0]
			clear(fs)
			keptHeap := int64(heapBytes()) - int64(before)
			require.Equal(t, msgs+1, kept.view().MessageCount())
			runtime.KeepAlive(lines)

			t.Logf("one stream of %d messages holds %d bytes alone, %d bytes when folded among %d forks", msgs, aloneHeap, keptHeap, streams)
			assert.Less(t, keptHeap, 2*aloneHeap+64<<10,
				"the stream kept holds %d bytes, %.1fx what it holds folded alone (%d): the dropped forks' strings are still reachable",
				keptHeap, float64(keptHeap)/float64(max(aloneHeap, 1)), aloneHeap)
		})
	}
}

// TestArenaForksOfDetachedViewConcurrent folds streams in parallel
// goroutines from one view a Builder handed out (detached: its forks make
// their views one at a time and split the arena as they age), each by Fold
// and by a Builder of its own, far past the age at which they split: each
// reaches the view the same stream folded alone reaches. Run with -race.
func TestArenaForksOfDetachedViewConcurrent(t *testing.T) {
	t.Parallel()
	b := reducer.NewBuilder(view.New())
	require.NoError(t, b.FoldJSON([]byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)))
	base := b.View()
	const streams = 4
	want := make([]string, streams)
	for s := range streams {
		want[s] = marshal(t, mustFoldOn(t, base, messageLines(s, 100)...))
	}
	got := make([]string, 2*streams)
	var wg sync.WaitGroup
	for s := range streams {
		wg.Go(func() {
			v := base
			for _, l := range messageLines(s, 100) {
				next, err := reducer.FoldJSON(v, []byte(l))
				if err != nil {
					t.Errorf("stream %d: %v", s, err)
					return
				}
				v = next
			}
			got[s] = marshalled(v)
		})
		wg.Go(func() {
			sb := reducer.NewBuilder(base)
			for i, l := range messageLines(s, 100) {
				if err := sb.FoldJSON([]byte(l)); err != nil {
					t.Errorf("stream %d: %v", s, err)
					return
				}
				if i%7 == 0 {
					sb.View() // a view handed out: the next fold detaches a copy
				}
			}
			got[streams+s] = marshalled(sb.View())
		})
	}
	wg.Wait()
	for s := range streams {
		assert.Equal(t, want[s], got[s], "stream %d by Fold", s)
		assert.Equal(t, want[s], got[streams+s], "stream %d by a Builder", s)
	}
}

// marshalled is marshal for a goroutine other than the test's: an error
// reads as its text.
func marshalled(v *view.View) string {
	b, err := v.MarshalJSON()
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}
