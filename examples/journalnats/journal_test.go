package journalnats_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/examples/journalnats"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/journal/journaltest"
	"github.com/agview/agview/journal/natsjournal"
)

var names atomic.Int64

// unique returns options naming a stream, subjects and a bucket of their
// own, so that parallel cases share one server without sharing threads.
func unique(ttl time.Duration) *natsjournal.Options {
	n := names.Add(1)
	return &natsjournal.Options{
		Stream:         fmt.Sprintf("J%d", n),
		SubjectPrefix:  fmt.Sprintf("j%d.", n),
		LeaseBucket:    fmt.Sprintf("L%d", n),
		MetaBucket:     fmt.Sprintf("M%d", n),
		LeaseTTL:       ttl,
		PublishTimeout: 2 * time.Second,
	}
}

func dial(t *testing.T, url string, o *natsjournal.Options) *natsjournal.Journal {
	t.Helper()
	j, err := natsjournal.Dial(t.Context(), url, o)
	require.NoError(t, err, "DialNATS %s", url)
	return j
}

func TestContract(t *testing.T) {
	srv := journalnats.Start(t, t.TempDir())
	opts := map[journal.Journal]*natsjournal.Options{}
	var mu sync.Mutex
	journaltest.Run(t, journaltest.Harness{
		New: func(t *testing.T) journal.Journal {
			o := unique(0)
			j := dial(t, srv.URL(), o)
			mu.Lock()
			opts[j] = o
			mu.Unlock()
			return j
		},
		Peer: func(t *testing.T, j journal.Journal) journal.Journal {
			mu.Lock()
			o := *opts[j]
			mu.Unlock()
			o.Owner = "peer"
			return dial(t, srv.URL(), &o)
		},
	})
}

func events(from, to int) []journal.Record {
	var out []journal.Record
	for i := from; i <= to; i++ {
		out = append(out, journal.Record{Kind: journal.KindEvent, Data: json.RawMessage(fmt.Sprintf(`{"type":"CUSTOM","name":"n","value":%d}`, i))})
	}
	return out
}

// TestServerRestart stops the server under a writer and a follower: appends
// fail with ErrUnavailable while it is away, and once it is back the records
// that failed are stored (once), and the follower, resuming after its last
// record, sees every record exactly once, in order.
func TestServerRestart(t *testing.T) {
	srv := journalnats.Start(t, t.TempDir())
	o := unique(30 * time.Second)
	w0 := dial(t, srv.URL(), o)
	defer w0.Close()
	f0 := dial(t, srv.URL(), o)
	defer f0.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	got := make(chan journal.Record, 1000)
	fctx, stop := context.WithCancel(ctx)
	wg := followInto(t, fctx, f0, got)
	w, err := w0.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
	require.NoError(t, err)
	_, err = w.Append(ctx, events(1, 10)...)
	require.NoError(t, err)

	srv.Stop()
	_, err = w.Append(ctx, events(11, 20)...)
	require.ErrorIs(t, err, journal.ErrUnavailable, "append while the server is away")
	var je *journal.Error
	require.ErrorAs(t, err, &je)
	assert.Equal(t, uint64(11), je.Seq, "the error names the first record not stored")

	require.NoError(t, srv.Restart())
	// The records that failed are stored with the next append, in order:
	// they are not given again.
	require.Eventually(t, func() bool {
		_, err := w0.Stat(ctx, "t1")
		return err == nil
	}, 20*time.Second, 100*time.Millisecond, "the server answers again")
	_, err = w.Append(ctx, events(21, 30)...)
	require.NoError(t, err, "appends succeed again once the server is back")
	require.NoError(t, w.End(ctx))

	var recs []journal.Record
	for len(recs) < 30 {
		select {
		case r := <-got:
			recs = append(recs, r)
		case <-ctx.Done():
			t.Fatalf("the follower saw %d of 30 records", len(recs))
		}
	}
	stop()
	wg.Wait()
	close(got)
	for r := range got {
		recs = append(recs, r)
	}
	require.Len(t, recs, 30, "no record lost or delivered twice")
	want := events(1, 30)
	for i, r := range recs {
		assert.Equal(t, uint64(i+1), r.Seq, "record %d", i)
		assert.JSONEq(t, string(want[i].Data), string(r.Data), "record %d", i)
	}
	st, err := f0.Stat(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, uint64(30), st.Last)
}

// TestLeaseExpires kills a writer (its connection closes without End): the
// others see its lease expire within the TTL and may take the thread.
func TestLeaseExpires(t *testing.T) {
	srv := journalnats.Start(t, t.TempDir())
	o := unique(time.Second)
	dead := dial(t, srv.URL(), o)
	other := dial(t, srv.URL(), o)
	defer other.Close()
	ctx := t.Context()
	w, err := dead.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1", Owner: "replica-1"})
	require.NoError(t, err)
	_, err = w.Append(ctx, events(1, 3)...)
	require.NoError(t, err)

	// While the writer lives, its lease is refreshed beyond the TTL.
	time.Sleep(2 * time.Second)
	st, err := other.Stat(ctx, "t1")
	require.NoError(t, err)
	require.NotNil(t, st.Active, "a live writer keeps its lease past the TTL")
	assert.Equal(t, "replica-1", st.Active.Owner)
	_, err = other.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r2"})
	require.ErrorIs(t, err, journal.ErrBusy)

	require.NoError(t, dead.Close()) // the process dies: no End, no refresh
	died := time.Now()
	require.Eventually(t, func() bool {
		st, err := other.Stat(ctx, "t1")
		return err == nil && st.Active == nil
	}, 5*time.Second, 50*time.Millisecond, "the lease expires")
	assert.Less(t, time.Since(died), 2*time.Second, "seen within the TTL (1s) and a poll")
	w2, err := other.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r2"})
	require.NoError(t, err, "the thread is free once the lease expired")
	last, err := w2.Append(ctx, events(4, 4)...)
	require.NoError(t, err)
	assert.Equal(t, uint64(4), last)
	require.NoError(t, w2.End(ctx))
}

// TestDuplicatePublishStoredOnce publishes a batch a second time, as a
// writer retrying after a lost acknowledgement does: the server refuses it
// (each message expects the subject's last to be the one before it), so it
// is stored once.
func TestDuplicatePublishStoredOnce(t *testing.T) {
	srv := journalnats.Start(t, t.TempDir())
	o := unique(0)
	j := dial(t, srv.URL(), o)
	defer j.Close()
	ctx := t.Context()
	w, err := j.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
	require.NoError(t, err)
	_, err = w.Append(ctx, events(1, 5)...)
	require.NoError(t, err)

	js, err := jetstream.New(j.Conn())
	require.NoError(t, err)
	s, err := js.Stream(ctx, o.Stream)
	require.NoError(t, err)
	raw, err := s.GetLastMsgForSubject(ctx, o.SubjectPrefix+">")
	require.NoError(t, err)
	again := &nats.Msg{Subject: raw.Subject, Header: raw.Header, Data: raw.Data}
	_, err = js.PublishMsg(ctx, again)
	var apiErr *jetstream.APIError
	require.ErrorAs(t, err, &apiErr, "the copy of %s is refused", raw.Header.Get(jetstream.MsgIDHeader))
	assert.Equal(t, jetstream.JSErrCodeStreamWrongLastSequence, apiErr.ErrorCode)

	_, err = w.Append(ctx, events(6, 6)...)
	require.NoError(t, err)
	require.NoError(t, w.End(ctx))
	var seqs []uint64
	for r, err := range j.Read(ctx, "t1", 1) {
		require.NoError(t, err)
		seqs = append(seqs, r.Seq)
	}
	assert.Equal(t, []uint64{1, 2, 3, 4, 5, 6}, seqs)
}
