package client_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/client"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// quietAgent sends RUN_STARTED over SSE, then nothing until the client goes.
func quietAgent(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t1\",\"runId\":\"r1\"}\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestWithIdleTimeout(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		opts []client.Option
	}{
		{"alone", []client.Option{client.WithIdleTimeout(200 * time.Millisecond)}},
		{"kept by WithTransportOptions", []client.Option{
			client.WithIdleTimeout(200 * time.Millisecond),
			client.WithTransportOptions(&transport.Options{MaxEventBytes: 1 << 20}),
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := client.New(quietAgent(t), tt.opts...)
			defer c.Close()
			v, err := c.Run(t.Context(), nil)
			var te *transport.Error
			require.ErrorAs(t, err, &te, "Run gives up on a quiet agent")
			assert.Equal(t, transport.KindIdle, te.Kind)
			assert.Equal(t, 200*time.Millisecond, te.Idle)
			require.Len(t, v.Runs(), 1)
			assert.Equal(t, view.RunFailed, v.Runs()[0].Status, "the run is marked failed")
		})
	}
}
