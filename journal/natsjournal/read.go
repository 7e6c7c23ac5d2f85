package natsjournal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agview/agview/journal"
)

// NATS message headers of a batch.
const (
	hdrSeq    = "Agview-Seq"    // the first record's sequence number
	hdrCount  = "Agview-Count"  // how many records the message holds
	hdrChunk  = "Agview-Chunk"  // "i/k": part i of k of one record's line, when it is split
	hdrThread = "Agview-Thread" // the thread's id in base64url, when its token is a hash
	hdrLost   = "Agview-Lost"   // a mark: the thread lost its records 1..N (the value)
)

// maxParts bounds the parts of one split record (a header that claims more
// is corrupt).
const maxParts = 1 << 16

// batch is what a message's headers say, checked against its data.
type batch struct {
	first, count uint64
	part, parts  int    // part i of parts of one record; 0, 0 when whole
	lost         uint64 // a mark of lost records (first and count are 0)
}

// whole reports whether the message holds whole records.
func (b batch) whole() bool { return b.parts == 0 }

// parseBatch reads a message's headers and checks them against its data:
// a whole-record message holds exactly count lines, each ending in '\n'; a
// part of a split record holds one record (count 1), its last part ending
// the line.
func parseBatch(h nats.Header, data []byte) (batch, error) {
	if v := h.Get(hdrLost); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return batch{}, fmt.Errorf("%s header %q", hdrLost, v)
		}
		return batch{lost: max(n, 1)}, nil
	}
	first, err1 := strconv.ParseUint(h.Get(hdrSeq), 10, 64)
	count, err2 := strconv.ParseUint(h.Get(hdrCount), 10, 64)
	if err1 != nil || err2 != nil || first == 0 || count == 0 || first > 1<<62 || count > 1<<62 {
		return batch{}, fmt.Errorf("no valid %s/%s headers", hdrSeq, hdrCount)
	}
	b := batch{first: first, count: count}
	lines := uint64(bytes.Count(data, []byte{'\n'}))
	if c := h.Get(hdrChunk); c != "" {
		i, k, ok := strings.Cut(c, "/")
		part, err1 := strconv.Atoi(i)
		parts, err2 := strconv.Atoi(k)
		if !ok || err1 != nil || err2 != nil || parts < 2 || parts > maxParts || part < 1 || part > parts || count != 1 {
			return batch{}, fmt.Errorf("%s header %q with %s %d", hdrChunk, c, hdrCount, count)
		}
		b.part, b.parts = part, parts
		last := part == parts
		if len(data) == 0 || (!last && lines != 0) || (last && (lines != 1 || data[len(data)-1] != '\n')) {
			return batch{}, fmt.Errorf("part %d of %d holds %d line ends in %d bytes", part, parts, lines, len(data))
		}
		return b, nil
	}
	if lines != count || data[len(data)-1] != '\n' {
		return batch{}, fmt.Errorf("headers claim records %d..%d, the message holds %d lines", first, first+count-1, lines)
	}
	return b, nil
}

// lost is the error of a thread that lost records.
func lostError(op, thread string, n uint64) *journal.Error {
	what := "records it had stored were lost"
	if n > 0 {
		what = fmt.Sprintf("its records 1..%d were lost", n)
	}
	return journal.Fail(journal.ErrLost, op, thread, fmt.Errorf("%s (the journal's stream was deleted or reset under it)", what))
}

// lastAt returns the sequence number of thread's last whole record and
// when it was stored. ctx should be bounded.
func (n *Journal) lastAt(ctx context.Context, op, thread string) (uint64, time.Time, error) {
	m, err := n.lastMsg(ctx, thread)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, time.Time{}, nil
	}
	if err != nil {
		return 0, time.Time{}, n.unavailable(op, thread, err)
	}
	b, err := parseBatch(m.Header, m.Data)
	if err != nil {
		return 0, time.Time{}, &journal.Error{Code: journal.ErrCorrupt, Op: op, Thread: thread, Err: fmt.Errorf("stream message %d: %w", m.Sequence, err)}
	}
	if b.lost > 0 {
		return 0, time.Time{}, lostError(op, thread, b.lost)
	}
	if !b.whole() {
		if b.part == 1 {
			n.remember(thread, b.first, m.Sequence)
		}
		if b.part < b.parts {
			return b.first - 1, m.Time, nil // the record is being written
		}
		return b.first, m.Time, nil
	}
	n.remember(thread, b.first, m.Sequence)
	return b.first + b.count - 1, m.Time, nil
}

// lastMsg returns the last message of thread's subject. A stream that is
// gone is made again (repair) and asked once more.
func (n *Journal) lastMsg(ctx context.Context, thread string) (*jetstream.RawStreamMsg, error) {
	m, err := n.conn().stream.GetLastMsgForSubject(ctx, n.subject(thread))
	if err != nil && gone(err) && !n.isClosed() {
		n.repair()
		m, err = n.conn().stream.GetLastMsgForSubject(ctx, n.subject(thread))
	}
	return m, err
}

func (n *Journal) remember(thread string, first, streamSeq uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if h := n.hints[thread]; streamSeq > h.streamSeq {
		n.hints[thread] = hint{first, streamSeq}
	}
}

func (n *Journal) forget(thread string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.hints, thread)
}

// startAt returns where a read of thread from record from may start: a
// message known to hold records from h.first on; the zero hint for the
// beginning.
func (n *Journal) startAt(thread string, from uint64) hint {
	n.mu.Lock()
	defer n.mu.Unlock()
	if h, ok := n.hints[thread]; ok && h.first <= from {
		return h
	}
	return hint{}
}

// Read implements journal.Journal. It checks every message against the
// records it holds and against the one before it: a thread whose messages
// do not follow each other is journal.ErrCorrupt, one that lost its
// beginning journal.ErrLost. It returns within a bounded time whatever the
// server does.
func (n *Journal) Read(ctx context.Context, thread string, from uint64) iter.Seq2[journal.Record, error] {
	return n.iterate(ctx, thread, from, false)
}

// Follow implements journal.Journal. While the server is away it keeps trying; it
// then resumes after the last message it delivered. A stream deleted under
// it is journal.ErrLost.
func (n *Journal) Follow(ctx context.Context, thread string, from uint64) iter.Seq2[journal.Record, error] {
	return n.iterate(ctx, thread, from, true)
}

// readInactive is how long the server keeps a Read's consumer without
// interest.
const readInactive = 15 * time.Second

// Bounds of a Read: how many times it makes its consumer again (after one
// that stalled, or a start that was wrong) before it gives up.
const maxReadAttempts = 4

// errStale ends a consumer that started at a hint no longer true (the
// stream was reset, the thread deleted).
var errStale = errors.New("stale start")

// reader checks a thread's messages in order and yields their records.
type reader struct {
	n              *Journal
	op, thread     string
	next           uint64 // the next record to yield
	expect         uint64 // the record the next message must begin with
	start          hint   // where the consumer started; zero: the beginning
	started        bool   // a message was handled since start
	partSeq        uint64 // the record whose parts are being joined, 0 when none
	partsOf, partN int    // its number of parts, and of parts joined
	part           []byte
}

func (r *reader) corrupt(streamSeq uint64, format string, args ...any) error {
	return &journal.Error{Code: journal.ErrCorrupt, Op: r.op, Thread: r.thread, Err: fmt.Errorf("stream message %d: "+format, append([]any{streamSeq}, args...)...)}
}

// handle checks one message and yields its records from r.next on; false
// when yield asked to stop.
func (r *reader) handle(streamSeq uint64, h nats.Header, data []byte, yield func(journal.Record, error) bool) (bool, error) {
	b, err := parseBatch(h, data)
	if err != nil {
		return false, r.corrupt(streamSeq, "%w", err)
	}
	if b.lost > 0 {
		return false, lostError(r.op, r.thread, b.lost)
	}
	if !r.started {
		r.started = true
		if r.start.streamSeq > 0 {
			if streamSeq != r.start.streamSeq || b.first != r.start.first {
				return false, errStale
			}
			r.expect = b.first
		}
	}
	// Every message begins with the record expected: a split record's
	// parts all begin with it (it is counted once its last part is in), and
	// a record left unfinished by a writer that went away begins again.
	if b.first != r.expect {
		if r.expect == 1 {
			return false, lostError(r.op, r.thread, b.first-1)
		}
		if b.first == 1 {
			// The thread begins again: it was deleted (Journal.Delete) or
			// its records purged, and a new run of the same id started.
			return false, journal.Fail(journal.ErrLost, r.op, r.thread,
				fmt.Errorf("the thread was deleted and begun again after its records up to %d", r.expect-1))
		}
		return false, r.corrupt(streamSeq, "records from %d, after the records up to %d", b.first, r.expect-1)
	}
	if b.whole() {
		r.partSeq, r.part = 0, r.part[:0] // a split record left unfinished was written again whole
		seq := b.first
		for line := range bytes.Lines(data) {
			if seq >= r.next {
				if !yield(parseLine(bytes.TrimSuffix(line, []byte{'\n'}), seq), nil) {
					return false, nil
				}
				r.next = seq + 1
			}
			seq++
		}
		r.expect = b.first + b.count
		r.n.remember(r.thread, b.first, streamSeq)
		return true, nil
	}
	switch {
	case b.part == 1:
		r.partSeq, r.partsOf, r.partN, r.part = b.first, b.parts, 0, r.part[:0]
		r.n.remember(r.thread, b.first, streamSeq)
	case b.first != r.partSeq || b.parts != r.partsOf || b.part != r.partN+1:
		return false, r.corrupt(streamSeq, "part %d of %d of record %d out of order", b.part, b.parts, b.first)
	}
	r.partN = b.part
	if len(r.part)+len(data) > MaxRecordBytes+1 {
		return false, r.corrupt(streamSeq, "record %d over %d bytes", b.first, MaxRecordBytes)
	}
	r.part = append(r.part, data...)
	if b.part < b.parts {
		return true, nil
	}
	r.partSeq, r.expect = 0, b.first+1
	if b.first >= r.next {
		line := bytes.Clone(bytes.TrimSuffix(r.part, []byte{'\n'}))
		r.part = r.part[:0]
		if !yield(parseLine(line, b.first), nil) {
			return false, nil
		}
		r.next = b.first + 1
	}
	return true, nil
}

func (n *Journal) iterate(ctx context.Context, thread string, from uint64, follow bool) iter.Seq2[journal.Record, error] {
	op := "read"
	if follow {
		op = "follow"
	}
	return func(yield func(journal.Record, error) bool) {
		if err := journal.CheckID(op, thread); err != nil {
			yield(journal.Record{}, err)
			return
		}
		if n.isClosed() {
			yield(journal.Record{}, journal.Fail(journal.ErrClosed, op, thread, nil))
			return
		}
		// The journal's Close ends the iteration too.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(n.ctx, cancel)()
		subj := n.subject(thread)
		var end uint64 // Read: the stream sequence of the last message when it started
		if !follow {
			lctx, lcancel := n.bounded(ctx, n.opts.PublishTimeout)
			m, err := n.lastMsg(lctx, thread)
			lcancel()
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				return
			}
			if err != nil {
				yield(journal.Record{}, n.unavailable(op, thread, err))
				return
			}
			end = m.Sequence
		}
		var created time.Time // Follow: when the stream was made, to notice it made again
		if follow {
			ictx, icancel := n.bounded(ctx, n.opts.PublishTimeout)
			if info, err := n.conn().stream.Info(ictx); err == nil {
				created = info.Created
			}
			icancel()
		}
		r := &reader{n: n, op: op, thread: thread, next: max(from, 1), expect: 1}
		if h := n.startAt(thread, r.next); h.streamSeq > 0 && (follow || h.streamSeq <= end) {
			r.start = h
		}
		var streamSeq uint64 // the last stream message handled
		if r.start.streamSeq > 0 {
			streamSeq = r.start.streamSeq - 1
		}
		backoff := 50 * time.Millisecond
		attempts := 0
		for {
			attempts++
			// MaxResetAttempts 1: when the library cannot make its consumer
			// again at once, consume ends with the error and this loop
			// (whose calls are bounded and which watches ctx) tries again,
			// instead of the library retrying without end, deaf to ctx.
			// A Read's consumer goes away soon after it (the library does not
			// delete it), so that many reads leave few consumers behind.
			cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}, InactiveThreshold: readInactive, MaxResetAttempts: 1}
			if follow {
				cfg.InactiveThreshold = time.Minute
			}
			if streamSeq > 0 {
				cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, streamSeq+1
			}
			err := n.consume(ctx, cfg, func() error { return n.check(ctx, op, thread, subj, streamSeq, follow, &created) }, func(m jetstream.Msg) (bool, error) {
				meta, err := m.Metadata()
				if err != nil {
					return false, err
				}
				more, err := r.handle(meta.Sequence.Stream, m.Headers(), m.Data(), yield)
				if err != nil || !more {
					return false, err
				}
				streamSeq = meta.Sequence.Stream
				return follow || streamSeq < end, nil
			})
			var je *journal.Error
			switch {
			case err == nil || errors.Is(err, errDone):
				return // the consumer stopped it: the caller, or the end of a Read
			case n.isClosed():
				yield(journal.Record{}, journal.Fail(journal.ErrClosed, op, thread, err))
				return
			case ctx.Err() != nil:
				if !follow {
					yield(journal.Record{}, journal.Fail(journal.ErrUnavailable, op, thread, ctx.Err()))
				}
				return
			case errors.Is(err, errStale):
				// Start again from the beginning of the thread, once.
				n.forget(thread)
				if r.start.streamSeq == 0 {
					yield(journal.Record{}, r.corrupt(streamSeq, "the stream changed under the read"))
					return
				}
				r.start, r.started, r.expect, streamSeq = hint{}, false, 1, 0
				continue
			case errors.As(err, &je):
				yield(journal.Record{}, err)
				return
			case !follow && attempts >= maxReadAttempts:
				yield(journal.Record{}, n.unavailable(op, thread, err))
				return
			}
			// The server went away or the consumer stalled; try again from
			// where we were, paced.
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				if !follow {
					yield(journal.Record{}, journal.Fail(journal.ErrUnavailable, op, thread, ctx.Err()))
				}
				return
			}
			backoff = min(2*backoff, 2*time.Second)
		}
	}
}

// check runs when a consumer stayed silent for stallCheck. It returns
// errStalled when the subject holds messages past the last one handled (the
// consumer is stuck: its server restarted under it), a journal.ErrLost error
// when the stream holds fewer messages than were read (it was deleted and
// made again, or was made again since the iteration began), errDone for a Read when the subject holds nothing more (the
// thread was deleted under it), nil when all is well.
func (n *Journal) check(ctx context.Context, op, thread, subj string, streamSeq uint64, follow bool, created *time.Time) error {
	bctx, cancel := n.bounded(ctx, n.opts.PublishTimeout)
	defer cancel()
	c := n.conn()
	m, err := c.stream.GetLastMsgForSubject(bctx, subj)
	switch {
	case err == nil && m.Sequence > streamSeq:
		return errStalled
	case err != nil && !errors.Is(err, jetstream.ErrMsgNotFound):
		if gone(err) {
			n.repair()
		}
		return errStalled // the server answers badly: ask again, paced and bounded
	}
	if streamSeq > 0 || follow {
		info, err := c.stream.Info(bctx)
		if err != nil {
			return errStalled
		}
		if streamSeq > 0 && (info.State.LastSeq < streamSeq || !created.IsZero() && !info.Created.Equal(*created)) {
			return lostError(op, thread, 0)
		}
		if created.IsZero() || streamSeq == 0 {
			*created = info.Created
		}
	}
	if !follow {
		return errDone
	}
	return nil
}

// errDone ends a Read whose subject holds nothing more to deliver.
var errDone = errors.New("read done")

// stallCheck is how long a consumer may stay silent before consume asks
// whether it should have delivered something.
const stallCheck = 2 * time.Second

// errStalled ends a consumer that stayed silent while messages waited.
var errStalled = errors.New("consumer stalled")

// consume runs an ordered consumer and hands each message to fn until fn
// returns false (consume then returns nil) or an error. When no message
// comes for stallCheck it calls check, and returns its error if any.
func (n *Journal) consume(ctx context.Context, cfg jetstream.OrderedConsumerConfig, check func() error, fn func(jetstream.Msg) (bool, error)) error {
	// Making the consumer is bounded by a timeout of its own: a request in
	// flight when the server stops never gets its reply, and waiting on ctx
	// alone would hold a follower until ctx ends.
	cctx, cancel := n.bounded(ctx, n.opts.PublishTimeout)
	cons, err := n.conn().stream.OrderedConsumer(cctx, cfg)
	cancel()
	if err != nil {
		return err
	}
	// Short pull requests and heartbeats notice a server that restarted
	// within a second, instead of the default half a minute.
	it, err := cons.Messages(jetstream.PullExpiry(2*time.Second), jetstream.PullHeartbeat(500*time.Millisecond))
	if err != nil {
		return err
	}
	defer it.Stop()
	for {
		nctx, cancel := context.WithTimeout(ctx, stallCheck)
		m, err := it.Next(jetstream.NextContext(nctx))
		cancel()
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			if err := check(); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		more, err := fn(m)
		if err != nil || !more {
			return err
		}
	}
}

// parseLine reads a record's line (journal.ParseLine) and numbers it seq.
func parseLine(line []byte, seq uint64) journal.Record {
	r := journal.ParseLine(line)
	r.Seq = seq
	return r
}
