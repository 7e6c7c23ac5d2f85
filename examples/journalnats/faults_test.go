package journalnats_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/examples/journalnats"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/journal/natsjournal"
	"github.com/agview/agview/view"
)

// readAll reads thread from record 1 and returns its records and the error
// that ended the read, if any.
func readAll(ctx context.Context, j journal.Journal, thread string) ([]journal.Record, error) {
	var recs []journal.Record
	for r, err := range j.Read(ctx, thread, 1) {
		if err != nil {
			return recs, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// within fails the test when f takes longer than d.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	assert.Less(t, time.Since(start), d, "%s took %v", what, time.Since(start))
}

// writing starts a nats-server process and a journal on it (lease TTL 1 s,
// requests bounded at 500 ms; tune may change the options), and begins run
// r1 on thread t1 with records 1..3. Closing the journal is the caller's.
func writing(t *testing.T, tune func(*natsjournal.Options)) (*journalnats.Proc, *natsjournal.Journal, journal.Writer, context.Context) {
	t.Helper()
	srv := journalnats.StartProc(t, t.TempDir(), true)
	o := unique(time.Second)
	o.PublishTimeout = 500 * time.Millisecond
	if tune != nil {
		tune(o)
	}
	j := dial(t, srv.URL(), o)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	w, err := j.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
	require.NoError(t, err)
	_, err = w.Append(ctx, events(1, 3)...)
	require.NoError(t, err)
	return srv, j, w, ctx
}

// TestLongIDs: every id journal.CheckID accepts works end to end, its
// subject and keys bounded (a hash past 192 bytes); a longer one (a
// 3,050-character GET) is refused before anything is sent, and the
// connection stays up. On the old code a 3,050-character id became a
// subject over the server's control line limit, and the client library
// closed the connection for good.
func TestLongIDs(t *testing.T) {
	srv := journalnats.StartProc(t, t.TempDir(), true)
	j := dial(t, srv.URL(), unique(time.Second))
	defer j.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	for _, tc := range []struct{ name, id string }{
		{"one byte", "a"},
		{"a uuid", "3f2b6c1e-8a4d-4e7b-9c2a-1d5e6f7a8b9c"},
		{"192 bytes, the longest plain token", strings.Repeat("x", 192)},
		{"193 bytes, hashed", strings.Repeat("y", 193)},
		{"multi-byte", strings.Repeat("é", 200)},
		{"subject characters", strings.Repeat("a. b>*", 80)},
		{"journal.MaxIDBytes", strings.Repeat("z", journal.MaxIDBytes-1) + "!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := tc.id
			require.LessOrEqual(t, len(id), journal.MaxIDBytes)
			require.NoError(t, j.Create(ctx, id, journal.Meta{Owner: "alice"}))
			w, err := j.Begin(ctx, journal.Lease{Thread: id, RunID: id})
			require.NoError(t, err)
			last, err := w.Append(ctx, events(1, 3)...)
			require.NoError(t, err)
			assert.Equal(t, uint64(3), last)
			l, err := j.Stop(ctx, id)
			require.NoError(t, err, "stop reaches the writer")
			assert.Equal(t, id, l.RunID)
			select {
			case <-w.Stopped():
			case <-time.After(5 * time.Second):
				t.Fatal("the writer was not asked to stop")
			}
			require.NoError(t, w.End(ctx))

			st, err := j.Stat(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, uint64(3), st.Last)
			assert.Equal(t, "alice", st.Meta.Owner)
			assert.Nil(t, st.Active)
			recs, err := readAll(ctx, j, id)
			require.NoError(t, err)
			require.Len(t, recs, 3)
			fctx, fcancel := context.WithTimeout(ctx, 10*time.Second)
			var followed int
			for r, err := range j.Follow(fctx, id, 2) {
				require.NoError(t, err)
				followed++
				if r.Seq == 3 {
					break
				}
			}
			fcancel()
			assert.Equal(t, 2, followed)
			ids, err := j.Threads(ctx)
			require.NoError(t, err)
			assert.Contains(t, ids, id, "Threads gives the id back, hashed or not")
			require.NoError(t, j.Delete(ctx, id))
			ids, err = j.Threads(ctx)
			require.NoError(t, err)
			assert.NotContains(t, ids, id)
		})
	}

	before := j.Conn().Stats()
	for _, n := range []int{journal.MaxIDBytes + 1, 3050} {
		id := strings.Repeat("v", n)
		t.Run(fmt.Sprintf("%d bytes refused", n), func(t *testing.T) {
			_, err := j.Stat(ctx, id)
			assert.ErrorIs(t, err, journal.ErrTooLarge, "stat")
			_, err = readAll(ctx, j, id)
			assert.ErrorIs(t, err, journal.ErrTooLarge, "read")
			for _, err := range j.Follow(ctx, id, 1) {
				assert.ErrorIs(t, err, journal.ErrTooLarge, "follow")
				break
			}
			_, err = j.Begin(ctx, journal.Lease{Thread: id, RunID: "r"})
			assert.ErrorIs(t, err, journal.ErrTooLarge, "begin")
			_, err = j.Begin(ctx, journal.Lease{Thread: "t", RunID: id})
			assert.ErrorIs(t, err, journal.ErrTooLarge, "begin, a long run id")
			assert.ErrorIs(t, j.Create(ctx, id, journal.Meta{}), journal.ErrTooLarge, "create")
			assert.ErrorIs(t, j.Delete(ctx, id), journal.ErrTooLarge, "delete")
			_, err = j.Stop(ctx, id)
			assert.ErrorIs(t, err, journal.ErrTooLarge, "stop")
		})
	}
	after := j.Conn().Stats()
	assert.Equal(t, before.OutMsgs, after.OutMsgs, "refused before anything is sent")
	assert.Equal(t, before.OutBytes, after.OutBytes, "refused before anything is sent")
	assert.True(t, j.Conn().IsConnected())
	_, err := j.Stat(ctx, "a")
	require.NoError(t, err, "the journal still answers")
}

// TestRedialAfterProtocolError: a protocol error makes the client library
// close the connection (here a subject over the server's control line
// limit, published on the journal's connection); the journal dials again,
// and a writer that was running goes on (appends, Stop) on the new
// connection. The old code answered "journal closed" from then on.
func TestRedialAfterProtocolError(t *testing.T) {
	_, j, w, ctx := writing(t, func(o *natsjournal.Options) { o.PublishTimeout = 2 * time.Second })
	defer j.Close()

	old := j.Conn()
	_ = old.Publish("x."+strings.Repeat("a", 5000), nil)
	_ = old.Flush()
	require.Eventually(t, old.IsClosed, 10*time.Second, 10*time.Millisecond, "the client library closes the connection on -ERR")
	require.Eventually(t, func() bool { return j.Conn() != old && j.Conn().IsConnected() }, 10*time.Second, 10*time.Millisecond, "the journal dials again")

	last, err := w.Append(ctx, events(4, 6)...)
	require.NoError(t, err, "the writer appends on the new connection")
	assert.Equal(t, uint64(6), last)
	st, err := j.Stat(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, uint64(6), st.Last)
	require.NotNil(t, st.Active)
	require.Eventually(t, func() bool {
		_, err := j.Stop(ctx, "t1")
		return err == nil
	}, 10*time.Second, 50*time.Millisecond, "Stop reaches the writer on its new connection")
	select {
	case <-w.Stopped():
	case <-time.After(5 * time.Second):
		t.Fatal("the writer was not asked to stop")
	}
	require.NoError(t, w.End(ctx))
	recs, err := readAll(ctx, j, "t1")
	require.NoError(t, err)
	assert.Len(t, recs, 6)
}

// TestEndAndCloseBounded: with the server gone, End retries with a
// deadline, Stat and Read answer within theirs, and Close returns at once
// and ends End's retries; no goroutine is started per attempt. The old
// End retried for as long as its context lasted (for ever with
// context.Background()), deaf to Close.
func TestEndAndCloseBounded(t *testing.T) {
	srv, j, w, ctx := writing(t, nil)
	srv.Stop()
	var err error
	within(t, 2*time.Second, "an append while the server is away", func() {
		_, err = w.Append(ctx, events(4, 6)...)
	})
	require.ErrorIs(t, err, journal.ErrUnavailable)
	ended := make(chan error, 1)
	go func() { ended <- w.End(context.Background()) }()
	time.Sleep(time.Second)
	g1 := runtime.NumGoroutine()
	within(t, 3*time.Second, "Stat", func() {
		_, err = j.Stat(ctx, "t1")
	})
	assert.ErrorIs(t, err, journal.ErrUnavailable)
	within(t, 5*time.Second, "Read", func() {
		_, err = readAll(ctx, j, "t1")
	})
	assert.ErrorIs(t, err, journal.ErrUnavailable)
	time.Sleep(time.Second)
	assert.Less(t, runtime.NumGoroutine()-g1, 5, "goroutines while End retries")
	select {
	case err := <-ended:
		t.Fatalf("End returned while the server is away and its deadline is not reached: %v", err)
	default:
	}

	within(t, time.Second, "Close", func() { require.NoError(t, j.Close()) })
	select {
	case err := <-ended:
		require.Error(t, err, "End could not store records 4..6")
		t.Logf("End: %v", err)
	case <-time.After(2 * time.Second):
		t.Fatal("End still retries after Close")
	}
}

// TestBigRecord stores and reads back a 6 MB event, and batches of
// records over a server's 1 MiB max_payload: each is split across messages
// and joined again. The old code published it whole, which the server
// refused for ever.
func TestBigRecord(t *testing.T) {
	srv := journalnats.StartProc(t, t.TempDir(), true)
	o := unique(time.Second)
	j := dial(t, srv.URL(), o)
	defer j.Close()
	require.EqualValues(t, 1<<20, j.Conn().MaxPayload(), "the server's default max_payload")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	value := func(n int, c string) journal.Record {
		return journal.Record{Kind: journal.KindEvent, Data: json.RawMessage(`{"type":"STATE_SNAPSHOT","snapshot":"` + strings.Repeat(c, n) + `"}`)}
	}
	want := slices.Concat(events(1, 2), []journal.Record{value(6<<20, "x")}, events(4, 5),
		[]journal.Record{value(600<<10, "a"), value(600<<10, "b"), value(600<<10, "c")})

	w, err := j.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
	require.NoError(t, err)
	_, err = w.Append(ctx, want[:2]...)
	require.NoError(t, err)
	last, err := w.Append(ctx, want[2])
	require.NoError(t, err, "a 6 MB record")
	assert.Equal(t, uint64(3), last)
	last, err = w.Append(ctx, want[3:]...)
	require.NoError(t, err, "1.8 MB of records in one append")
	assert.Equal(t, uint64(8), last)
	require.NoError(t, w.End(ctx))

	recs, err := readAll(ctx, j, "t1")
	require.NoError(t, err)
	require.Len(t, recs, len(want))
	for i, r := range recs {
		assert.Equal(t, uint64(i+1), r.Seq)
		assert.True(t, string(want[i].Data) == string(r.Data), "record %d: %d bytes, want %d", i+1, len(r.Data), len(want[i].Data))
	}
	st, err := j.Stat(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, uint64(8), st.Last)
	fctx, fcancel := context.WithTimeout(ctx, 20*time.Second)
	defer fcancel()
	for r, err := range j.Follow(fctx, "t1", 3) {
		require.NoError(t, err)
		assert.Equal(t, uint64(3), r.Seq)
		assert.Len(t, r.Data, len(want[2].Data), "the big record, followed")
		break
	}
	js, err := jetstream.New(j.Conn())
	require.NoError(t, err)
	s, err := js.Stream(ctx, o.Stream)
	require.NoError(t, err)
	info, err := s.Info(ctx)
	require.NoError(t, err)
	assert.Greater(t, info.State.Msgs, uint64(9), "the big records were split")
}

// TestOutageLongerThanLease stops the server for three times the lease TTL
// while a writer appends: the writer keeps what it is given, takes its
// lease again when the server is back, and stores everything in order. The
// old writer dropped its lease, then every record, once the TTL passed.
func TestOutageLongerThanLease(t *testing.T) {
	const ttl = time.Second
	srv := journalnats.StartProc(t, t.TempDir(), true)
	o := unique(ttl)
	o.PublishTimeout = 500 * time.Millisecond
	j := dial(t, srv.URL(), o)
	defer j.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	w, err := j.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
	require.NoError(t, err)

	n := 0
	appendFor := func(d time.Duration) (failed int) {
		for end := time.Now().Add(d); time.Now().Before(end); {
			n++
			_, err := w.Append(ctx, events(n, n)...)
			if err != nil {
				require.ErrorIs(t, err, journal.ErrUnavailable, "record %d", n)
				failed++
			}
			time.Sleep(10 * time.Millisecond)
		}
		return failed
	}
	appendFor(500 * time.Millisecond)
	srv.Stop()
	failed := appendFor(3 * ttl)
	assert.Positive(t, failed, "appends fail while the server is away")
	require.NoError(t, srv.Restart())
	appendFor(2 * time.Second)
	require.NoError(t, w.End(ctx), "End stores what is left")

	other := dial(t, srv.URL(), o)
	defer other.Close()
	recs, err := readAll(ctx, other, "t1")
	require.NoError(t, err)
	require.Len(t, recs, n, "every record the writer was given")
	for i, r := range recs {
		assert.Equal(t, uint64(i+1), r.Seq)
		assert.JSONEq(t, string(events(i+1, i+1)[0].Data), string(r.Data), "record %d", i+1)
	}
	t.Logf("%d records, %d appended while the server was away", n, failed)
}

// proxy forwards TCP connections to a server until cut: then it closes
// them and refuses new ones, as a network that loses one process does.
type proxy struct {
	ln       net.Listener
	upstream string
	mu       sync.Mutex
	cutOff   bool
	conns    []net.Conn
}

func newProxy(t *testing.T, upstream string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{ln: ln, upstream: strings.TrimPrefix(upstream, "nats://")}
	go p.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		p.cut()
	})
	return p
}

func (p *proxy) url() string { return "nats://" + p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cutOff {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		u, err := net.Dial("tcp", p.upstream)
		if err != nil {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(u, c); _ = u.Close() }()
		go func() { _, _ = io.Copy(c, u); _ = c.Close() }()
	}
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutOff = true
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

func (p *proxy) restore() {
	p.mu.Lock()
	p.cutOff = false
	p.mu.Unlock()
}

// TestLeaseTakenDuringOutage: a writer cut off from the server past its
// lease, whose thread another run took meanwhile, stops with
// journal.ErrLeaseLost naming that run, and stores nothing after it.
func TestLeaseTakenDuringOutage(t *testing.T) {
	const ttl = time.Second
	srv := journalnats.StartProc(t, t.TempDir(), true)
	o := unique(ttl)
	o.PublishTimeout = 500 * time.Millisecond
	peer := dial(t, srv.URL(), o)
	defer peer.Close()
	px := newProxy(t, srv.URL())
	j := dial(t, px.url(), o)
	defer j.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	w, err := j.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
	require.NoError(t, err)
	_, err = w.Append(ctx, events(1, 3)...)
	require.NoError(t, err)

	px.cut()
	_, err = w.Append(ctx, events(4, 4)...)
	require.ErrorIs(t, err, journal.ErrUnavailable)
	require.Eventually(t, func() bool {
		st, err := peer.Stat(ctx, "t1")
		return err == nil && st.Active == nil
	}, 10*time.Second, 50*time.Millisecond, "the lease lapses")
	w2, err := peer.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r2"})
	require.NoError(t, err)
	_, err = w2.Append(ctx, events(100, 100)...)
	require.NoError(t, err)
	px.restore()

	require.Eventually(t, func() bool {
		_, err = w.Append(ctx, events(5, 5)...)
		return err != nil && codeOf(err) != journal.ErrUnavailable
	}, 20*time.Second, 100*time.Millisecond, "the writer finds the other holder")
	require.ErrorIs(t, err, journal.ErrLeaseLost)
	var je *journal.Error
	require.ErrorAs(t, err, &je)
	if assert.NotNil(t, je.Holder, "the error names the holder") {
		assert.Equal(t, "r2", je.Holder.RunID)
	}
	require.NoError(t, w2.End(ctx))
	_ = w.End(ctx)
	recs, err := readAll(ctx, peer, "t1")
	require.NoError(t, err)
	require.Len(t, recs, 4, "r1's stored records, then r2's")
	assert.JSONEq(t, string(events(100, 100)[0].Data), string(recs[3].Data))
}

func codeOf(err error) journal.Code {
	if je, ok := err.(*journal.Error); ok {
		return je.Code
	}
	return 0
}

// TestDeletedStream deletes the journal's stream under a run: the writer
// stops with journal.ErrLost and marks its thread, which then reads as lost
// (Read, Stat, Follow, Begin) instead of as a run that starts mid-way, the
// stream is made again and other threads work, and deleting the thread
// makes it new again. Nothing hangs. The old code answered "stream not
// found" to every call until a restart.
func TestDeletedStream(t *testing.T) {
	srv := journalnats.StartProc(t, t.TempDir(), true)
	o := unique(time.Second)
	wj := dial(t, srv.URL(), o)
	defer wj.Close()
	rj := dial(t, srv.URL(), o)
	defer rj.Close()
	fj := dial(t, srv.URL(), o)
	defer fj.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	w, err := wj.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
	require.NoError(t, err)
	_, err = w.Append(ctx, events(1, 20)...)
	require.NoError(t, err)
	got := make(chan journal.Record, 100)
	ferr := make(chan error, 1)
	go func() {
		for r, err := range fj.Follow(ctx, "t1", 1) {
			if err != nil {
				ferr <- err
				return
			}
			got <- r
		}
		ferr <- nil
	}()
	for range 20 {
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("the follower is behind")
		}
	}
	recs, err := readAll(ctx, rj, "t1")
	require.NoError(t, err)
	require.Len(t, recs, 20)

	js, err := jetstream.New(rj.Conn())
	require.NoError(t, err)
	require.NoError(t, js.DeleteStream(ctx, o.Stream))

	within(t, 10*time.Second, "the writer's appends", func() {
		for i := 21; ; i++ {
			_, err = w.Append(ctx, events(i, i)...)
			if err == nil || codeOf(err) == journal.ErrUnavailable {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			break
		}
	})
	require.ErrorIs(t, err, journal.ErrLost, "the writer finds its records gone")
	within(t, 5*time.Second, "End", func() { _ = w.End(ctx) })

	within(t, 15*time.Second, "the follower", func() {
		select {
		case err := <-ferr:
			assert.ErrorIs(t, err, journal.ErrLost, "the follower")
		case <-time.After(15 * time.Second):
			t.Error("the follower hangs")
		}
	})
	within(t, 5*time.Second, "Stat", func() {
		_, err = rj.Stat(ctx, "t1")
		assert.ErrorIs(t, err, journal.ErrLost, "stat")
	})
	within(t, 5*time.Second, "Read", func() {
		recs, err = readAll(ctx, rj, "t1")
		assert.ErrorIs(t, err, journal.ErrLost, "read")
		assert.Empty(t, recs, "no record of a thread that lost its beginning")
	})
	within(t, 5*time.Second, "Begin", func() {
		_, err = rj.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r2"})
		assert.ErrorIs(t, err, journal.ErrLost, "begin")
	})
	within(t, 5*time.Second, "another thread", func() {
		w3, err := rj.Begin(ctx, journal.Lease{Thread: "t2", RunID: "r1"})
		require.NoError(t, err, "the stream was made again")
		_, err = w3.Append(ctx, events(1, 2)...)
		require.NoError(t, err)
		require.NoError(t, w3.End(ctx))
		st, err := rj.Stat(ctx, "t2")
		require.NoError(t, err)
		assert.Equal(t, uint64(2), st.Last)
	})
	ids, err := rj.Threads(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"t1", "t2"}, ids)

	require.NoError(t, rj.Delete(ctx, "t1"), "a lost thread can be deleted")
	w4, err := rj.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r3"})
	require.NoError(t, err, "and is new again")
	last, err := w4.Append(ctx, events(1, 1)...)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), last)
	require.NoError(t, w4.End(ctx))
}

// TestForgedBatch publishes forged messages on a thread's subject (as any
// client allowed to publish there can): each is journal.ErrCorrupt for
// that thread within a bounded time, for Read and client.Attach, without a
// storm of consumers. The old code trusted the headers: a message claiming
// records up to 1e9 made Attach loop creating consumers.
func TestForgedBatch(t *testing.T) {
	srv := journalnats.StartProc(t, t.TempDir(), true)
	o := unique(time.Second)
	j := dial(t, srv.URL(), o)
	defer j.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	js, err := jetstream.New(j.Conn())
	require.NoError(t, err)
	line := `{"type":"CUSTOM","name":"forged","value":0}` + "\n"
	for i, tc := range []struct {
		name    string
		headers map[string]string
		data    string
	}{
		{"records 6..1e9 in one line", map[string]string{"Agview-Seq": "6", "Agview-Count": "1000000000"}, line},
		{"records 1..1e9 in one line", map[string]string{"Agview-Seq": "1", "Agview-Count": "1000000000"}, line},
		{"a gap", map[string]string{"Agview-Seq": "100", "Agview-Count": "1"}, line},
		{"more lines than records", map[string]string{"Agview-Seq": "6", "Agview-Count": "1"}, line + line},
		{"a part out of order", map[string]string{"Agview-Seq": "6", "Agview-Count": "1", "Agview-Chunk": "2/3"}, `{"type"`},
		{"no headers", nil, line},
	} {
		t.Run(tc.name, func(t *testing.T) {
			thread := fmt.Sprintf("forged-%d", i)
			w, err := j.Begin(ctx, journal.Lease{Thread: thread, RunID: "r1"})
			require.NoError(t, err)
			_, err = w.Append(ctx, events(1, 5)...)
			require.NoError(t, err)
			require.NoError(t, w.End(ctx))
			m := nats.NewMsg(o.SubjectPrefix + base64.RawURLEncoding.EncodeToString([]byte(thread)))
			for k, v := range tc.headers {
				m.Header.Set(k, v)
			}
			m.Data = []byte(tc.data)
			_, err = js.PublishMsg(ctx, m)
			require.NoError(t, err)

			s, err := js.Stream(ctx, o.Stream)
			require.NoError(t, err)
			info, err := s.Info(ctx)
			require.NoError(t, err)
			consumers := info.State.Consumers
			r := dial(t, srv.URL(), o) // a reader that knows nothing of the thread
			defer r.Close()
			within(t, 5*time.Second, "Read", func() {
				recs, err := readAll(ctx, r, thread)
				require.ErrorIs(t, err, journal.ErrCorrupt)
				assert.Len(t, recs, 5, "the records before the forged message")
			})
			within(t, 10*time.Second, "Attach", func() {
				actx, acancel := context.WithTimeout(ctx, 30*time.Second)
				defer acancel()
				a, err := client.Attach(actx, r, thread, nil)
				if err == nil {
					a.Stop()
					a.Store().Close()
				}
				require.ErrorIs(t, err, journal.ErrCorrupt, "attach")
			})
			info, err = s.Info(ctx)
			require.NoError(t, err)
			assert.LessOrEqual(t, info.State.Consumers-consumers, 4, "consumers made by a Read and an Attach")
		})
	}
}

// TestDialWithoutJetStream: a server without JetStream is refused with an
// error that says what to do.
func TestDialWithoutJetStream(t *testing.T) {
	srv := journalnats.StartProc(t, t.TempDir(), false)
	_, err := natsjournal.Dial(t.Context(), srv.URL(), unique(0))
	require.ErrorIs(t, err, journal.ErrUnavailable)
	assert.Contains(t, err.Error(), "start nats-server with -js")
}

// TestPendingLimit: a writer keeps at most Options.MaxPending bytes while
// the server is away; past it, appends fail loudly with
// journal.ErrTooLarge, what was kept is stored once the server is back, in
// order, and End reports the refusal. The old writer kept records without
// bound.
func TestPendingLimit(t *testing.T) {
	srv, j, w, ctx := writing(t, func(o *natsjournal.Options) { o.MaxPending = 4 << 10 })
	defer j.Close()
	srv.Stop()
	var err error
	n := 3
	for {
		n++
		require.Less(t, n, 1000, "appends never refused")
		_, err = w.Append(ctx, events(n, n)...)
		if codeOf(err) != journal.ErrUnavailable {
			break
		}
	}
	require.ErrorIs(t, err, journal.ErrTooLarge, "record %d", n)
	kept := n - 1
	_, err = w.Append(ctx, events(n+1, n+1)...)
	require.ErrorIs(t, err, journal.ErrTooLarge, "later appends are refused too")
	require.NoError(t, srv.Restart())
	err = w.End(ctx)
	require.ErrorIs(t, err, journal.ErrTooLarge, "End says the run was not journalled whole")

	recs, err := readAll(ctx, j, "t1")
	require.NoError(t, err)
	require.Len(t, recs, kept, "every record kept is stored")
	for i, r := range recs {
		assert.JSONEq(t, string(events(i+1, i+1)[0].Data), string(r.Data), "record %d", i+1)
	}
	st, err := j.Stat(ctx, "t1")
	require.NoError(t, err)
	assert.Nil(t, st.Active, "End released the lease")
}

// TestClientRunThroughOutage stops the server for three times the lease
// TTL while client.Run records a run: the run is unharmed, and once the
// server is back every event is in the journal, in order, so that a
// follower ends with exactly the recorder's view.
func TestClientRunThroughOutage(t *testing.T) {
	const ttl = time.Second
	srv := journalnats.StartProc(t, t.TempDir(), true)
	o := unique(ttl)
	o.PublishTimeout = 500 * time.Millisecond
	r1 := dial(t, srv.URL(), o)
	defer r1.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 7, Rounds: 60}), &agenttest.Options{Delay: 2 * time.Millisecond})
	defer agent.Close()
	var failed appendFailures
	c := client.New(agent.URL(), client.WithJournal(r1, failed.add))
	defer c.Close()
	var want *view.View
	var runErr error
	var wg sync.WaitGroup
	wg.Go(func() { want, runErr = c.Run(ctx, &event.RunAgentInput{ThreadID: "t1", RunID: "r1"}) })

	require.Eventually(t, func() bool {
		st, err := r1.Stat(ctx, "t1")
		return err == nil && st.Last >= 50
	}, 30*time.Second, 10*time.Millisecond, "the run is journalled")
	srv.Stop()
	time.Sleep(3 * ttl)
	require.NoError(t, srv.Restart())
	wg.Wait()
	require.NoError(t, runErr, "the recorder's run is unharmed")

	failures := failed.list()
	for _, err := range failures {
		assert.ErrorIs(t, err, journal.ErrUnavailable, "only the outage is reported")
	}
	t.Logf("%d appends failed while the server was away; %d events", len(failures), want.EventCount())
	r2 := dial(t, srv.URL(), o)
	defer r2.Close()
	a, err := client.Attach(ctx, r2, "t1", &client.AttachOptions{Poll: 50 * time.Millisecond})
	require.NoError(t, err)
	defer a.Store().Close()
	defer a.Stop()
	got, err := a.Store().Wait(ctx, func(v *view.View) bool { return v.Ended() })
	require.NoError(t, err)
	assert.Equal(t, viewJSON(t, want), viewJSON(t, got), "no event lost or duplicated")
}
