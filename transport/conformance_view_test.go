package transport_test

import (
	"encoding/json"
	"errors"
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// foldInMemory folds a vector's frames straight into a view, as a consumer
// with no transport would, and ends the stream.
func foldInMemory(v *conformance.Vector) *view.View {
	vw := view.New()
	for _, f := range v.Events {
		vw, _ = reducer.FoldJSON(vw, f)
	}
	return reducer.End(vw, nil)
}

// foldStream folds what a transport yields, as a client does: decoded events
// with Fold, per-event errors with Refuse, and the end of the stream with
// End (an incomplete run is the stream simply ending).
func foldStream(seq iter.Seq2[event.Event, error]) *view.View {
	vw := view.New()
	for e, err := range seq {
		var te *transport.Error
		switch {
		case errors.As(err, &te):
			if te.Kind == transport.KindIncomplete {
				return reducer.End(vw, nil)
			}
			return reducer.End(vw, err)
		case err != nil:
			vw = reducer.Refuse(vw, "", err)
		default:
			vw, _ = reducer.Fold(vw, e)
		}
	}
	return reducer.End(vw, nil)
}

// TestConformanceFinalView folds every conformance vector received over SSE
// and over WebSocket, and checks the final view equals the one folding its
// frames in memory gives.
func TestConformanceFinalView(t *testing.T) {
	t.Parallel()
	srv, vectors := vectorServer(t)
	for _, r := range runners {
		src := r.new(srv, nil)
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			for _, v := range vectors {
				want, err := json.Marshal(foldInMemory(v))
				require.NoError(t, err)
				got, err := json.Marshal(foldStream(src.Run(t.Context(), &event.RunAgentInput{ThreadID: v.Name, RunID: "replay"})))
				require.NoError(t, err)
				assert.JSONEq(t, string(want), string(got), "%s: the final view", v.Name)
			}
		})
	}
}
