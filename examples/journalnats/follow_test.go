package journalnats_test

import (
	"bytes"
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/examples/journalnats"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/journal/natsjournal"
)

// lossyDialer dials TCP connections that drop the client's writes holding a
// given request subject while armed: the request is lost on the way, as one
// in flight is when the server stops, and its reply never comes.
type lossyDialer struct {
	drop  []byte       // the subject whose requests are lost
	armed atomic.Int64 // how many more such writes to drop
	lost  atomic.Int64 // how many were dropped
}

func (d *lossyDialer) Dial(network, address string) (net.Conn, error) {
	c, err := net.Dial(network, address)
	if err != nil {
		return nil, err
	}
	return &lossyConn{Conn: c, d: d}, nil
}

type lossyConn struct {
	net.Conn
	d *lossyDialer
}

// Write drops a write holding the subject: the client writes whole protocol
// commands, so the stream stays well formed without it.
func (c *lossyConn) Write(b []byte) (int, error) {
	if bytes.Contains(b, c.d.drop) && c.d.armed.Add(-1) >= 0 {
		c.d.lost.Add(1)
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// dialLossy dials a journal (with o's names) whose connection loses the
// requests on subject drop while the returned dialer is armed.
func dialLossy(t *testing.T, url string, o *natsjournal.Options, drop string) (*natsjournal.Journal, *lossyDialer) {
	t.Helper()
	d := &lossyDialer{drop: []byte(drop)}
	lo := *o
	lo.ConnOptions = []nats.Option{nats.SetCustomDialer(d)}
	return dial(t, url, &lo), d
}

// TestFollowLostRequest loses the requests that make a follower's consumer,
// as a server restart does with a request in flight: the follower must not
// wait on the reply for as long as its context lasts, but try again.
func TestFollowLostRequest(t *testing.T) {
	tests := []struct {
		name string
		lose int64 // consumer-create requests lost in a row
	}{
		{"one lost", 1},
		{"three lost", 3},
	}
	srv := journalnats.Start(t, t.TempDir())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := unique(30 * time.Second)
			w0 := dial(t, srv.URL(), o)
			defer w0.Close()
			f0, d := dialLossy(t, srv.URL(), o, "$JS.API.CONSUMER.CREATE.")
			defer f0.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()

			w, err := w0.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
			require.NoError(t, err)
			_, err = w.Append(ctx, events(1, 10)...)
			require.NoError(t, err)
			require.NoError(t, w.End(ctx))

			d.armed.Store(tt.lose)
			start := time.Now()
			got := make(chan journal.Record, 10)
			fctx, stop := context.WithCancel(ctx)
			wg := followInto(t, fctx, f0, got)
			for i := range 10 {
				select {
				case r := <-got:
					assert.Equal(t, uint64(i+1), r.Seq)
				case <-time.After(30 * time.Second):
					stop()
					t.Fatalf("the follower saw %d of 10 records in 30 s after %d lost requests", i, d.lost.Load())
				}
			}
			stop()
			wg.Wait()
			assert.Equal(t, tt.lose, d.lost.Load(), "requests lost")
			t.Logf("%d requests lost; all records in %v", d.lost.Load(), time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestStatLostRequest loses a Stat's request: Stat reports the journal
// unavailable within its timeout instead of waiting as long as its context,
// and the next Stat answers.
func TestStatLostRequest(t *testing.T) {
	srv := journalnats.Start(t, t.TempDir())
	o := unique(30 * time.Second)
	w0 := dial(t, srv.URL(), o)
	defer w0.Close()
	s0, d := dialLossy(t, srv.URL(), o, "$JS.API.")
	defer s0.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	w, err := w0.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
	require.NoError(t, err)
	_, err = w.Append(ctx, events(1, 5)...)
	require.NoError(t, err)

	d.armed.Store(1)
	start := time.Now()
	_, err = s0.Stat(ctx, "t1")
	require.ErrorIs(t, err, journal.ErrUnavailable, "a Stat whose request is lost")
	assert.Less(t, time.Since(start), 30*time.Second, "the Stat waited on its context")
	assert.Equal(t, int64(1), d.lost.Load(), "requests lost")
	st, err := s0.Stat(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, uint64(5), st.Last)
}

// followInto follows thread "t1" of j from its first record until ctx ends,
// sending each record to got; wait for the returned group to end.
func followInto(t *testing.T, ctx context.Context, j *natsjournal.Journal, got chan<- journal.Record) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Go(func() {
		for r, err := range j.Follow(ctx, "t1", 1) {
			if !assert.NoError(t, err, "follow") {
				return
			}
			got <- r
		}
	})
	return &wg
}
