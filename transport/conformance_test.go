package transport_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/conformance"
	"github.com/agview/agview/transport"
)

// pair is one (event, error) an iterator yielded, in comparable form.
type pair struct {
	Event event.Event
	Err   string // "<type>: <message>", "" for none
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf("%T: %v", err, err)
}

// inMemory decodes a vector's frames without any transport: the sequence
// every transport must reproduce, and whether the stream is complete (its
// last run lifecycle event is RUN_FINISHED or RUN_ERROR).
func inMemory(v *conformance.Vector) (pairs []pair, complete bool) {
	for _, f := range v.Events {
		e, err := event.Decode(f)
		pairs = append(pairs, pair{e, errString(err)})
		switch e.(type) {
		case *event.RunStarted:
			complete = false
		case *event.RunFinished, *event.RunError:
			complete = true
		}
	}
	return pairs, complete
}

// pairsOf collects what a transport yielded, and its fatal error.
func pairsOf(seq iter.Seq2[event.Event, error]) ([]pair, error) {
	var out []pair
	for e, err := range seq {
		if errors.As(err, new(*transport.Error)) {
			return out, err
		}
		out = append(out, pair{e, errString(err)})
	}
	return out, nil
}

// vectorServer serves every conformance vector, verbatim from its file: a
// run plays the vector its thread id names.
func vectorServer(t *testing.T) (*agenttest.Server, []*conformance.Vector) {
	vectors, err := conformance.Load()
	require.NoError(t, err)
	scripts := map[string]agenttest.Script{}
	for _, v := range vectors {
		s, err := agenttest.VectorFile(filepath.Join(conformance.Dir(), v.Name+".json"))
		require.NoError(t, err)
		scripts[v.Name] = s
	}
	srv := agenttest.NewServer(agenttest.ScriptFunc(func(in *event.RunAgentInput) iter.Seq[json.RawMessage] {
		return scripts[in.ThreadID].Frames(in)
	}), nil)
	t.Cleanup(srv.Close)
	return srv, vectors
}

// TestConformanceVectorsOverTheWire replays every conformance vector, served
// verbatim by agenttest from its file, over SSE and over WebSocket: each must
// yield exactly the events and per-event errors that decoding its frames in
// memory gives, and end as the in-memory stream does (complete, or with
// KindIncomplete). TestConformanceFinalView compares the views they fold into.
func TestConformanceVectorsOverTheWire(t *testing.T) {
	t.Parallel()
	srv, vectors := vectorServer(t)
	t.Run("transports", func(t *testing.T) { // returns when its parallel subtests are done
		for _, r := range runners {
			src := r.new(srv, nil)
			t.Run(r.name, func(t *testing.T) {
				t.Parallel()
				for _, v := range vectors {
					want, complete := inMemory(v)
					got, fatal := pairsOf(src.Run(t.Context(), &event.RunAgentInput{ThreadID: v.Name, RunID: "replay"}))
					if !assert.Equal(t, want, got, "%s: the events and errors of the vector (fatal: %v)", v.Name, fatal) {
						continue
					}
					if complete {
						assert.NoError(t, fatal, "%s", v.Name)
					} else {
						assert.ErrorIs(t, fatal, transport.ErrIncomplete, "%s", v.Name)
					}
				}
			})
		}
	})
	assert.Len(t, srv.Inputs(), 2*len(vectors), "one recorded input per run")
}
