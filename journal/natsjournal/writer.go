package natsjournal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agview/agview/journal"
)

// Begin implements journal.Journal: it creates the thread's key in the lease bucket
// (refused when it exists) and refreshes it every third of the lease TTL
// until End.
func (n *Journal) Begin(ctx context.Context, lease journal.Lease) (journal.Writer, error) {
	if err := journal.CheckLease(lease); err != nil {
		return nil, err
	}
	th := lease.Thread
	if n.isClosed() {
		return nil, journal.Fail(journal.ErrClosed, "begin", th, nil)
	}
	if lease.Owner == "" {
		lease.Owner = n.opts.Owner
	}
	ctx, cancel := n.bounded(ctx, 3*n.opts.PublishTimeout)
	defer cancel()
	now := time.Now().UTC()
	lease.Since, lease.Expires = now, now.Add(n.opts.LeaseTTL)
	b, _ := json.Marshal(lease)
	c := n.conn()
	key := token(th)
	rev, err := c.kv.Create(ctx, key, b)
	if errors.Is(err, jetstream.ErrKeyExists) {
		// The key is there; its lease may have lapsed before the server
		// removed it. Take it over then, by revision, so that of two takers
		// one wins and a late refresh by the old holder fails.
		rev, err = n.takeOver(ctx, c, th, b)
	}
	if err != nil {
		var je *journal.Error
		if errors.As(err, &je) {
			return nil, je
		}
		return nil, n.unavailable("begin", th, err)
	}
	release := func() { _ = c.kv.Delete(context.WithoutCancel(ctx), key, jetstream.LastRevision(rev)) }
	var id [8]byte
	_, _ = rand.Read(id[:])
	w := &natsWriter{n: n, key: key, subj: n.subject(th), id: hex.EncodeToString(id[:]), lease: lease, rev: rev,
		stop: make(chan struct{}), stopped: make(chan struct{}), asked: make(chan struct{})}
	if hashed(key) {
		w.idHeader = encodeID(th)
	}
	// The thread's last message: records are numbered after it, and each
	// publish expects it (or the one this writer stored last) to be the
	// subject's last, so that nothing is stored after a message this writer
	// did not see (another writer's, or a stream made again empty).
	m, err := n.lastMsg(ctx, th)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
	case err != nil:
		release()
		return nil, n.unavailable("begin", th, err)
	default:
		bt, err := parseBatch(m.Header, m.Data)
		switch {
		case err != nil:
			release()
			return nil, &journal.Error{Code: journal.ErrCorrupt, Op: "begin", Thread: th, Err: fmt.Errorf("stream message %d: %w", m.Sequence, err)}
		case bt.lost > 0:
			release()
			return nil, lostError("begin", th, bt.lost)
		case bt.whole():
			w.seq = bt.first + bt.count - 1
		case bt.part < bt.parts:
			w.seq = bt.first - 1 // its writer went away in the middle of it
		default:
			w.seq = bt.first
		}
		w.stored, w.lastSS = w.seq, m.Sequence
	}
	if err := w.subscribe(ctx, c); err != nil {
		release()
		return nil, n.unavailable("begin", th, err)
	}
	if !n.life.Add(w) {
		_ = w.sub.Unsubscribe()
		release()
		return nil, journal.Fail(journal.ErrClosed, "begin", th, nil)
	}
	go w.refresh()
	return w, nil
}

// takeOver replaces the lease key of thread with b when the lease it holds
// has expired, and refuses with journal.ErrBusy when it has not.
func (n *Journal) takeOver(ctx context.Context, c *conn, th string, b []byte) (uint64, error) {
	key := token(th)
	e, err := c.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return c.kv.Create(ctx, key, b)
	}
	if err != nil {
		return 0, err
	}
	var l journal.Lease
	if json.Unmarshal(e.Value(), &l) == nil && !l.Expires.IsZero() && time.Now().After(l.Expires) {
		rev, err := c.kv.Update(ctx, key, b, e.Revision())
		if err == nil {
			return rev, nil
		}
		if !conflict(err) {
			return 0, err
		}
		e, err = c.kv.Get(ctx, key) // another taker won
		if err != nil || json.Unmarshal(e.Value(), &l) != nil {
			l = journal.Lease{}
		}
	}
	l.Thread = th
	return 0, &journal.Error{Code: journal.ErrBusy, Op: "begin", Thread: th, Holder: &l}
}

// conflict reports whether a key-value write failed because the key is not
// at the revision the writer knew.
func conflict(err error) bool {
	return errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyNotFound)
}

// natsWriter appends one run's records and keeps its lease alive.
type natsWriter struct {
	n        *Journal
	key      string // the thread's token
	subj     string
	id       string // random: names this writer's messages (Nats-Msg-Id)
	idHeader string // the thread's id for hdrThread, "" when the token is plain

	stop, stopped chan struct{} // end refresh; closed when refresh returns
	stopOnce      sync.Once

	asked   chan struct{} // closed when Stop asked this run to stop
	askOnce sync.Once

	// The lease: lmu serialises its key-value requests; lapsed and lost are
	// read without it.
	lmu    sync.Mutex
	lease  journal.Lease
	rev    uint64             // the lease key's revision
	sub    *nats.Subscription // Stop requests
	gen    uint64             // the connection sub is on
	lapsed atomic.Bool        // not refreshed before it expired: taken again when the server answers
	lost   atomic.Pointer[journal.Error]

	// overflow is set once more than Options.MaxPending bytes were to be
	// kept: later appends are refused with it, what was kept is still
	// stored, and End returns it.
	overflow atomic.Pointer[journal.Error]

	mu           sync.Mutex
	seq          uint64      // records numbered so far (stored or pending)
	stored       uint64      // records stored
	lastSS       uint64      // the stream sequence of the subject's last message, as this writer knows it
	pending      []*nats.Msg // numbered, not yet acknowledged, in order
	pendingBytes int
	ended        bool
}

func (w *natsWriter) Lease() journal.Lease {
	w.lmu.Lock()
	defer w.lmu.Unlock()
	return w.lease
}

func (w *natsWriter) Stopped() <-chan struct{} { return w.asked }

// subscribe listens to Stop requests on c; lmu is held or w not yet shared.
func (w *natsWriter) subscribe(ctx context.Context, c *conn) error {
	runID := w.lease.RunID
	sub, err := c.nc.Subscribe(w.n.stopSubject(w.lease.Thread), func(m *nats.Msg) {
		if string(m.Data) == runID {
			w.askOnce.Do(func() { close(w.asked) })
		}
		_ = m.Respond([]byte(runID))
	})
	if err != nil {
		return err
	}
	if err := c.nc.FlushWithContext(ctx); err != nil { // the server knows the subscription
		_ = sub.Unsubscribe()
		return err
	}
	if w.sub != nil {
		_ = w.sub.Unsubscribe()
	}
	w.sub, w.gen = sub, c.gen
	return nil
}

// fail makes err the writer's lasting failure (the first one wins).
func (w *natsWriter) fail(err *journal.Error) *journal.Error {
	if w.lost.CompareAndSwap(nil, err) {
		return err
	}
	return w.lost.Load()
}

// failure returns the writer's lasting failure as an error of op, nil when
// none.
func (w *natsWriter) failure(op string) error {
	e := w.lost.Load()
	if e == nil {
		return nil
	}
	c := *e
	c.Op = op
	return &c
}

// refresh renews the lease every third of its TTL until halted.
func (w *natsWriter) refresh() {
	defer close(w.stopped)
	ttl := w.n.opts.LeaseTTL
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		if w.lost.Load() != nil {
			return
		}
		w.lmu.Lock()
		ctx, cancel := w.n.bounded(context.Background(), max(ttl/3, 100*time.Millisecond))
		w.renew(ctx)
		cancel()
		w.lmu.Unlock()
	}
}

// renew refreshes the lease, or takes it again when it lapsed; lmu is
// held. A lease another run holds now fails the writer with
// journal.ErrLeaseLost.
func (w *natsWriter) renew(ctx context.Context) {
	c := w.n.conn()
	if c.gen != w.gen {
		_ = w.subscribe(ctx, c) // a new connection: listen to Stop there
	}
	now := time.Now().UTC()
	l := w.lease
	l.Expires = now.Add(w.n.opts.LeaseTTL)
	b, _ := json.Marshal(l)
	if !w.lapsed.Load() {
		rev, err := c.kv.Update(ctx, w.key, b, w.rev)
		if err == nil {
			w.rev, w.lease.Expires = rev, l.Expires
			return
		}
		if !conflict(err) {
			if now.After(w.lease.Expires) {
				w.lapsed.Store(true) // kept: taken again when the server answers
			}
			return
		}
	}
	// The key is not as this writer left it: it expired (the server was
	// away longer than the TTL), or another run took it.
	e, err := c.kv.Get(ctx, w.key)
	var rev uint64
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		rev, err = c.kv.Create(ctx, w.key, b)
	case err != nil:
	default:
		var h journal.Lease
		_ = json.Unmarshal(e.Value(), &h)
		mine := h.RunID == w.lease.RunID && h.Owner == w.lease.Owner && h.Since.Equal(w.lease.Since)
		if !mine && (h.Expires.IsZero() || now.Before(h.Expires)) {
			h.Thread = w.lease.Thread
			w.fail(&journal.Error{Code: journal.ErrLeaseLost, Op: "append", Thread: w.lease.Thread, Holder: &h,
				Err: errors.New("another run took the thread while this writer could not reach the server")})
			return
		}
		rev, err = c.kv.Update(ctx, w.key, b, e.Revision())
	}
	if err != nil {
		if now.After(w.lease.Expires) {
			w.lapsed.Store(true)
		}
		return
	}
	w.rev, w.lease.Expires = rev, l.Expires
	w.lapsed.Store(false)
}

func (w *natsWriter) halt() {
	w.stopOnce.Do(func() { close(w.stop) })
	<-w.stopped
	w.lmu.Lock()
	if w.sub != nil {
		_ = w.sub.Unsubscribe()
	}
	w.lmu.Unlock()
}

// budget returns how many bytes of records one message may carry: the
// server's max_payload less room for the headers.
func (w *natsWriter) budget(c *conn) int {
	return max(int(c.nc.MaxPayload())-1024-len(w.idHeader), 1024)
}

func (w *natsWriter) newMsg(first uint64, count int, part, parts int, data []byte) *nats.Msg {
	m := nats.NewMsg(w.subj)
	m.Data = data
	m.Header.Set(hdrSeq, strconv.FormatUint(first, 10))
	m.Header.Set(hdrCount, strconv.Itoa(count))
	id := w.id + ":" + strconv.FormatUint(first, 10)
	if parts > 0 {
		m.Header.Set(hdrChunk, strconv.Itoa(part)+"/"+strconv.Itoa(parts))
		id += ":" + strconv.Itoa(part)
	}
	m.Header.Set(jetstream.MsgIDHeader, id)
	if w.idHeader != "" {
		m.Header.Set(hdrThread, w.idHeader)
	}
	return m
}

// Append implements journal.Writer. A record over the server's max_payload
// is split across messages. While the server is away the records are kept
// (up to Options.MaxPending bytes, beyond which the writer fails with
// journal.ErrTooLarge) and the error is journal.ErrUnavailable; they are
// stored, in order and once, by a later Append or End.
func (w *natsWriter) Append(ctx context.Context, recs ...journal.Record) (uint64, error) {
	th := w.lease.Thread
	if err := journal.CheckRecords("append", th, recs); err != nil {
		return 0, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended || w.n.isClosed() {
		return 0, journal.Fail(journal.ErrClosed, "append", th, nil)
	}
	if err := w.failure("append"); err != nil {
		return w.stored, err
	}
	if e := w.overflow.Load(); e != nil {
		_ = w.flush(ctx) // what was kept is still stored
		return w.stored, e
	}
	// Every record's line, in one buffer: the messages' data are slices of
	// it (it is not reused).
	var all []byte
	ends := make([]int, len(recs))
	for i := range recs {
		n := len(all)
		all = journal.AppendLine(all, &recs[i])
		if len(all)-n > MaxRecordBytes+1 {
			return w.stored, &journal.Error{Code: journal.ErrTooLarge, Op: "append", Thread: th, Seq: w.seq + uint64(i) + 1,
				Err: fmt.Errorf("a record of %d bytes, over the limit of %d", len(all)-n-1, MaxRecordBytes)}
		}
		ends[i] = len(all)
	}
	size := len(all)
	if w.pendingBytes+size > w.n.opts.MaxPending {
		e := &journal.Error{Code: journal.ErrTooLarge, Op: "append", Thread: th, Seq: w.seq + 1,
			Err: fmt.Errorf("%d bytes of records kept while the server is away, over the limit of %d (Options.MaxPending): records from %d on are not journalled", w.pendingBytes+size, w.n.opts.MaxPending, w.seq+1)}
		w.overflow.CompareAndSwap(nil, e)
		return w.stored, w.overflow.Load()
	}
	budget := w.budget(w.n.conn())
	first, start, count := w.seq+1, 0, 0 // the batch being cut: all[start:] holds its count records
	cut := func(end int) {
		if count > 0 {
			w.pending = append(w.pending, w.newMsg(first, count, 0, 0, all[start:end:end]))
			first, count = first+uint64(count), 0
		}
		start = end
	}
	prev := 0
	for _, end := range ends {
		line := all[prev:end]
		switch {
		case len(line) > budget:
			cut(prev)
			parts := (len(line) + budget - 1) / budget
			for p := range parts {
				w.pending = append(w.pending, w.newMsg(first, 1, p+1, parts, line[p*budget:min((p+1)*budget, len(line)):min((p+1)*budget, len(line))]))
			}
			first++
			start = end
		case end-start > budget:
			cut(prev)
			count = 1
		default:
			count++
		}
		prev = end
	}
	cut(prev)
	w.seq += uint64(len(recs))
	w.pendingBytes += size
	if err := w.flush(ctx); err != nil {
		return w.stored, err
	}
	return w.seq, nil
}

// flush publishes the pending messages in order; w.mu is held. Each
// publish expects the subject's last message to be the one this writer
// stored last: a message published again after a lost acknowledgement is
// then recognised (by its id) instead of stored twice, a stream made again
// empty under the run fails the writer with journal.ErrLost (and marks the
// thread so), another writer's message with journal.ErrLeaseLost.
func (w *natsWriter) flush(ctx context.Context) error {
	th := w.lease.Thread
	repaired, retook := false, false
	for len(w.pending) > 0 {
		if err := w.failure("append"); err != nil {
			return err
		}
		m := w.pending[0]
		unavailable := func(err error) error {
			e := w.n.unavailable("append", th, err)
			e.Seq = w.stored + 1
			return e
		}
		if w.lapsed.Load() && !retook && w.lmu.TryLock() {
			retook = true
			rctx, cancel := w.n.bounded(ctx, w.n.opts.PublishTimeout)
			w.renew(rctx)
			cancel()
			w.lmu.Unlock()
			continue
		}
		if w.lapsed.Load() {
			return unavailable(errors.New("the lease lapsed while the server was away; it is taken again when the server answers"))
		}
		c := w.n.conn()
		if !c.nc.IsConnected() {
			return unavailable(nats.ErrDisconnected)
		}
		m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(w.lastSS, 10))
		pctx, cancel := w.n.bounded(ctx, w.n.opts.PublishTimeout)
		ack, err := c.js.PublishMsg(pctx, m)
		if err == nil {
			cancel()
			w.stored2(ack.Sequence)
			continue
		}
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
			err = w.resolve(pctx, c, m)
			cancel()
			if err != nil {
				return err
			}
			continue
		}
		cancel()
		if gone(err) && !repaired && !w.n.isClosed() {
			// The stream is gone: make it again, then publish once more,
			// which tells whether what this run stored was lost.
			repaired = true
			w.n.repair()
			continue
		}
		return unavailable(err)
	}
	w.pending, w.pendingBytes = nil, 0
	return nil
}

// stored2 records that the head of pending was stored as stream message
// streamSeq.
func (w *natsWriter) stored2(streamSeq uint64) {
	m := w.pending[0]
	w.lastSS = streamSeq
	w.pendingBytes -= len(m.Data)
	if m.Header.Get(hdrChunk) == "" || chunkLast(m.Header.Get(hdrChunk)) {
		b, _ := strconv.ParseUint(m.Header.Get(hdrSeq), 10, 64)
		c, _ := strconv.ParseUint(m.Header.Get(hdrCount), 10, 64)
		w.stored = b + c - 1
	}
	w.pending[0] = nil
	w.pending = w.pending[1:]
}

func chunkLast(v string) bool {
	for i := range len(v) {
		if v[i] == '/' {
			return v[:i] == v[i+1:]
		}
	}
	return false
}

// resolve handles a publish refused because the subject's last message is
// not the one expected: it was m itself (stored by an earlier attempt whose
// acknowledgement was lost), the stream lost messages, or another writer
// stored one.
func (w *natsWriter) resolve(ctx context.Context, c *conn, m *nats.Msg) error {
	th := w.lease.Thread
	last, err := c.stream.GetLastMsgForSubject(ctx, w.subj)
	if err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		e := w.n.unavailable("append", th, err)
		e.Seq = w.stored + 1
		return e
	}
	if err == nil && last.Header.Get(jetstream.MsgIDHeader) == m.Header.Get(jetstream.MsgIDHeader) {
		w.stored2(last.Sequence)
		return nil
	}
	if err != nil || last.Sequence < w.lastSS {
		// The stream was made again without what this thread held: mark
		// the thread, so that readers see it lost its beginning instead of
		// reading a run that starts mid-way.
		first, _ := strconv.ParseUint(m.Header.Get(hdrSeq), 10, 64)
		mark := nats.NewMsg(w.subj)
		mark.Header.Set(hdrLost, strconv.FormatUint(max(first-1, 1), 10))
		if w.idHeader != "" {
			mark.Header.Set(hdrThread, w.idHeader)
		}
		_, _ = c.js.PublishMsg(ctx, mark)
		w.n.forget(th)
		return w.fail(lostError("append", th, max(first-1, 1)))
	}
	return w.fail(&journal.Error{Code: journal.ErrLeaseLost, Op: "append", Thread: th, Seq: w.stored + 1,
		Err: fmt.Errorf("stream message %d was stored on the thread by another writer", last.Sequence)})
}

// End implements journal.Writer: it stores what is pending, retrying while
// the server is away until ctx ends, Options.EndTimeout passes or the
// journal closes, and releases the lease.
func (w *natsWriter) End(ctx context.Context) error {
	w.mu.Lock()
	if w.ended {
		w.mu.Unlock()
		return nil
	}
	w.ended = true
	ctx, cancel := w.n.bounded(ctx, w.n.opts.EndTimeout)
	defer cancel()
	ferr := w.flush(ctx)
	pause := 50 * time.Millisecond
	for ferr != nil && errors.Is(ferr, journal.ErrUnavailable) && ctx.Err() == nil {
		select {
		case <-time.After(pause):
		case <-ctx.Done():
		}
		pause = min(2*pause, time.Second)
		ferr = w.flush(ctx)
	}
	left := len(w.pending)
	w.mu.Unlock()
	w.halt()
	w.n.life.Remove(w)
	if w.lost.Load() == nil && !w.lapsed.Load() {
		w.lmu.Lock()
		rev := w.rev
		w.lmu.Unlock()
		dctx, dcancel := w.n.bounded(context.WithoutCancel(ctx), w.n.opts.PublishTimeout)
		err := w.n.conn().kv.Delete(dctx, w.key, jetstream.LastRevision(rev))
		dcancel()
		if err != nil && ferr == nil {
			// The lease lapses by itself within its TTL.
			return w.n.unavailable("end", w.lease.Thread, err)
		}
	}
	if ferr == nil {
		if e := w.overflow.Load(); e != nil {
			ferr = e // what was kept is stored; the rest was refused
		}
	}
	if ferr != nil {
		var e *journal.Error
		if errors.As(ferr, &e) {
			c := *e
			c.Op = "end"
			if left > 0 && c.Code == journal.ErrUnavailable {
				c.Err = fmt.Errorf("%d messages of records not stored: %w", left, c.Err)
			}
			return &c
		}
	}
	return ferr
}
