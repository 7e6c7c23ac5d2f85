package transport_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agview/agview/transport"
)

func TestTap(t *testing.T) {
	const stream = "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n{\"type\":\"NOPE\"}\n{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n"
	lines := strings.Split(strings.TrimSpace(stream), "\n")
	for _, tc := range []struct {
		name string
		read func(ctx context.Context) int
	}{
		{"events", func(ctx context.Context) (n int) {
			for range transport.Read(ctx, strings.NewReader(stream), transport.FormatJSONL, nil) {
				n++
			}
			return n
		}},
		{"frames", func(ctx context.Context) (n int) {
			for range transport.ReadFrames(ctx, strings.NewReader(stream), transport.FormatJSONL, nil) {
				n++
			}
			return n
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			var idx []int
			ctx := transport.WithTap(t.Context(), func(i int, data []byte) {
				idx = append(idx, i)
				seen = append(seen, string(data))
			})
			n := tc.read(ctx)
			assert.Equal(t, 3, n, "yielded values")
			assert.Equal(t, lines, seen, "the tap sees every frame's bytes, decodable or not")
			assert.Equal(t, []int{0, 1, 2}, idx, "frame indices")
		})
	}
}
