package journalnats_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/examples/journalnats"
	"github.com/agview/agview/internal/benchlive"
	"github.com/agview/agview/internal/benchwork"
	"github.com/agview/agview/journal/natsjournal"
)

// BenchmarkLiveNATS runs the swarm workload of the shared generator (10k
// events with -short, else 100k) from agenttest over SSE into client.Run,
// without a journal and recording into NATS JetStream (an in-process server
// on loopback), passes alternated, and reports each one's events/s, the
// ratio x-none (events/s with NATS over events/s without; the target is
// ≥ 0.75) and cpu-x-none, the same ratio in the process's CPU time (which
// here includes the NATS server's work). It skips when the generator is
// absent.
func BenchmarkLiveNATS(b *testing.B) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	stream, _ := benchwork.Stream(b, "swarm", n)
	frames := benchwork.Frames(b, stream)
	agent := agenttest.NewServer(agenttest.Frames(frames...), nil)
	defer agent.Close()
	srv := journalnats.Start(b, b.TempDir())
	j, err := natsjournal.Dial(b.Context(), srv.URL(), nil)
	require.NoError(b, err)
	defer j.Close()

	benchlive.Compare(b, agent.URL(), n, benchlive.Mode{Name: "nats", Journal: j})
}
