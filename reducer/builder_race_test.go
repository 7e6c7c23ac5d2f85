package reducer_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// TestBuilderViewsReadConcurrently hands views out of a Builder, as a
// front end does once per frame, to a goroutine that reads them while the
// Builder goes on folding (run with -race): the streamed deltas a Builder
// appends in place must never touch memory a handed-out view reads, and
// every handed-out view reads as Fold's view after the same events.
func TestBuilderViewsReadConcurrently(t *testing.T) {
	path, _ := benchwork.Stream(t, "swarm", 2000)
	lines := benchwork.Lines(t, path)
	type handed struct {
		v    *view.View
		want []byte
		at   int
	}
	ch := make(chan handed, 8)
	var wg sync.WaitGroup
	errs := make(chan string, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for h := range ch {
			for range 2 { // read it twice, the second time after more folds
				got, err := h.v.MarshalJSON()
				if err != nil || !bytes.Equal(got, h.want) {
					select {
					case errs <- string(h.want) + "\n" + string(got):
					default:
					}
				}
			}
		}
	}()
	b := reducer.NewBuilder(view.New())
	ref := view.New()
	for i, line := range lines {
		var err error
		ref, err = reducer.FoldJSON(ref, line)
		bErr := b.FoldJSON(line)
		require.Equal(t, err == nil, bErr == nil, "event %d", i)
		if i%10 == 0 {
			want, err := ref.MarshalJSON()
			require.NoError(t, err)
			ch <- handed{b.View(), want, i}
		}
	}
	close(ch)
	wg.Wait()
	select {
	case e := <-errs:
		t.Fatalf("a handed-out view changed while the Builder folded on:\n%s", e)
	default:
	}
}
