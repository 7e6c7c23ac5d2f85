package natsjournal

import (
	"github.com/agview/agview/journal"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Defaults of Options.
const (
	// DefaultStream is the JetStream stream that holds the records.
	DefaultStream = "AGVIEW_JOURNAL"
	// DefaultSubjectPrefix begins every thread's subject: the prefix, then
	// the thread id in unpadded base64url.
	DefaultSubjectPrefix = "agview."
	// DefaultLeaseBucket is the key-value bucket that holds the leases.
	DefaultLeaseBucket = "AGVIEW_LEASES"
	// DefaultMetaBucket is the key-value bucket that holds each thread's
	// journal.Meta (journal.Journal.Create).
	DefaultMetaBucket = "AGVIEW_THREADS"
	// DefaultLeaseTTL is how long a lease lasts unless its writer refreshes
	// it (every third of it): a writer that died is seen as gone within this
	// time.
	DefaultLeaseTTL = 10 * time.Second
	// DefaultPublishTimeout bounds one publish: an append fails with
	// journal.ErrUnavailable when the server does not acknowledge it in this time.
	DefaultPublishTimeout = 2 * time.Second
	// maxMessageBytes bounds the records of one message (a batch is split
	// beyond it); NATS servers refuse messages over 1 MiB by default.
	maxMessageBytes = 768 << 10
)

// NATS message headers of a batch.
const (
	hdrSeq   = "Agview-Seq"   // the first record's sequence number
	hdrCount = "Agview-Count" // how many records the message holds
)

// Options configure a NATS journal. A nil *Options means all
// defaults.
type Options struct {
	// Owner names this process in the leases it takes; "" means
	// journal.DefaultOwner().
	Owner string
	// Stream, SubjectPrefix, LeaseBucket and MetaBucket name what the
	// journal uses on the server; "" means DefaultStream,
	// DefaultSubjectPrefix, DefaultLeaseBucket and DefaultMetaBucket.
	// Journals that share them share threads.
	Stream, SubjectPrefix, LeaseBucket, MetaBucket string
	// LeaseTTL is how long a lease lasts without a refresh; 0 means
	// DefaultLeaseTTL. All journals sharing a bucket must agree on it (the
	// first to create the bucket decides).
	LeaseTTL time.Duration
	// PublishTimeout bounds each publish; 0 means DefaultPublishTimeout.
	PublishTimeout time.Duration
	// ConnOptions are passed to nats.Connect (credentials, TLS, a name…).
	// The journal adds unlimited reconnects.
	ConnOptions []nats.Option
}

// Journal is the NATS JetStream journal. Create it with Dial; the package
// documentation describes how it stores threads and leases.
type Journal struct {
	opts   Options
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	kv     jetstream.KeyValue // leases
	meta   jetstream.KeyValue // journal.Meta per thread

	life openSet[*natsWriter]

	mu    sync.Mutex
	hints map[string]hint // per thread, a message seen last
}

// hint says that stream message streamSeq holds the thread's records from
// first on: a read from first or later may start there.
type hint struct{ first, streamSeq uint64 }

var _ journal.Journal = (*Journal)(nil)

// Dial connects to the NATS server at url (e.g. "nats://127.0.0.1:4222")
// and makes sure the stream and the lease bucket exist. opts may be nil. A
// server that cannot be reached is journal.ErrUnavailable.
func Dial(ctx context.Context, url string, opts *Options) (*Journal, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Owner == "" {
		o.Owner = journal.DefaultOwner()
	}
	if o.Stream == "" {
		o.Stream = DefaultStream
	}
	if o.SubjectPrefix == "" {
		o.SubjectPrefix = DefaultSubjectPrefix
	}
	if !strings.HasSuffix(o.SubjectPrefix, ".") {
		o.SubjectPrefix += "."
	}
	if o.LeaseBucket == "" {
		o.LeaseBucket = DefaultLeaseBucket
	}
	if o.MetaBucket == "" {
		o.MetaBucket = DefaultMetaBucket
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.PublishTimeout <= 0 {
		o.PublishTimeout = DefaultPublishTimeout
	}
	copts := append(slices.Clone(o.ConnOptions), nats.MaxReconnects(-1), nats.ReconnectWait(200*time.Millisecond))
	nc, err := nats.Connect(url, copts...)
	if err != nil {
		return nil, journal.Fail(journal.ErrUnavailable, "open", "", err)
	}
	n := &Journal{opts: o, nc: nc, life: newOpenSet[*natsWriter](), hints: map[string]hint{}}
	if err := n.setup(ctx); err != nil {
		nc.Close()
		return nil, journal.Fail(journal.ErrUnavailable, "open", "", err)
	}
	return n, nil
}

func (n *Journal) setup(ctx context.Context) error {
	js, err := jetstream.New(n.nc)
	if err != nil {
		return err
	}
	n.js = js
	n.stream, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        n.opts.Stream,
		Description: "agview journal: one subject per thread",
		Subjects:    []string{n.opts.SubjectPrefix + ">"},
		Storage:     jetstream.FileStorage,
		Duplicates:  2 * time.Minute,
	})
	if err != nil {
		return fmt.Errorf("stream %s: %w", n.opts.Stream, err)
	}
	n.kv, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      n.opts.LeaseBucket,
		Description: "agview journal: the run active on each thread",
		TTL:         n.opts.LeaseTTL,
		History:     1,
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return fmt.Errorf("lease bucket %s: %w", n.opts.LeaseBucket, err)
	}
	n.meta, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      n.opts.MetaBucket,
		Description: "agview journal: each thread's owner and creation time",
		History:     1,
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return fmt.Errorf("meta bucket %s: %w", n.opts.MetaBucket, err)
	}
	return nil
}

// Conn returns the journal's NATS connection.
func (n *Journal) Conn() *nats.Conn { return n.nc }

// LeaseTTL returns how long a lease lasts without a refresh.
func (n *Journal) LeaseTTL() time.Duration { return n.opts.LeaseTTL }

// token is a thread id as one subject token and key-value key.
func token(thread string) string { return base64.RawURLEncoding.EncodeToString([]byte(thread)) }

func (n *Journal) subject(thread string) string { return n.opts.SubjectPrefix + token(thread) }

// stopSubject is where Stop asks a thread's writer to stop (core NATS, not
// stored).
func (n *Journal) stopSubject(thread string) string {
	return "_agview_stop." + n.opts.Stream + "." + token(thread)
}

func (n *Journal) isClosed() bool { return n.life.isClosed() }

// unavailable classifies a NATS error: a closed connection is journal.ErrClosed,
// anything else journal.ErrUnavailable.
func (n *Journal) unavailable(op, thread string, err error) *journal.Error {
	if n.isClosed() || errors.Is(err, nats.ErrConnectionClosed) {
		return journal.Fail(journal.ErrClosed, op, thread, err)
	}
	return journal.Fail(journal.ErrUnavailable, op, thread, err)
}

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
	now := time.Now().UTC()
	lease.Since, lease.Expires = now, now.Add(n.opts.LeaseTTL)
	b, _ := json.Marshal(lease)
	rev, err := n.kv.Create(ctx, token(th), b)
	if errors.Is(err, jetstream.ErrKeyExists) {
		// The key is there; its lease may have lapsed before the server
		// removed it. Take it over then, by revision, so that of two takers
		// one wins and a late refresh by the old holder fails.
		rev, err = n.takeOver(ctx, th, b)
	}
	if err != nil {
		var je *journal.Error
		if errors.As(err, &je) {
			return nil, je
		}
		return nil, n.unavailable("begin", th, err)
	}
	next, err := n.last(ctx, th)
	if err != nil {
		_ = n.kv.Delete(context.WithoutCancel(ctx), token(th), jetstream.LastRevision(rev))
		return nil, err
	}
	w := &natsWriter{n: n, lease: lease, rev: rev, seq: next, stop: make(chan struct{}), stopped: make(chan struct{}), asked: make(chan struct{})}
	w.sub, err = n.nc.Subscribe(n.stopSubject(th), func(m *nats.Msg) {
		if string(m.Data) == lease.RunID {
			w.askOnce.Do(func() { close(w.asked) })
		}
		_ = m.Respond([]byte(lease.RunID))
	})
	if err == nil {
		fctx, cancel := context.WithTimeout(ctx, n.opts.PublishTimeout)
		err = n.nc.FlushWithContext(fctx) // the server knows the subscription
		cancel()
	}
	if err != nil {
		if w.sub != nil {
			_ = w.sub.Unsubscribe()
		}
		_ = n.kv.Delete(context.WithoutCancel(ctx), token(th), jetstream.LastRevision(rev))
		return nil, n.unavailable("begin", th, err)
	}
	if !n.life.add(w) {
		_ = n.kv.Delete(context.WithoutCancel(ctx), token(th), jetstream.LastRevision(rev))
		return nil, journal.Fail(journal.ErrClosed, "begin", th, nil)
	}
	go w.refresh()
	return w, nil
}

// takeOver replaces the lease key of thread with b when the lease it holds
// has expired, and refuses with journal.ErrBusy when it has not.
func (n *Journal) takeOver(ctx context.Context, th string, b []byte) (uint64, error) {
	e, err := n.kv.Get(ctx, token(th))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return n.kv.Create(ctx, token(th), b)
	}
	if err != nil {
		return 0, err
	}
	var l journal.Lease
	if json.Unmarshal(e.Value(), &l) == nil && !l.Expires.IsZero() && time.Now().After(l.Expires) {
		rev, err := n.kv.Update(ctx, token(th), b, e.Revision())
		if err == nil {
			return rev, nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) && !errors.Is(err, jetstream.ErrKeyExists) {
			return 0, err
		}
		e, err = n.kv.Get(ctx, token(th)) // another taker won
		if err != nil || json.Unmarshal(e.Value(), &l) != nil {
			l = journal.Lease{}
		}
	}
	l.Thread = th
	return 0, &journal.Error{Code: journal.ErrBusy, Op: "begin", Thread: th, Holder: &l}
}

// last returns the sequence number of thread's last record.
func (n *Journal) last(ctx context.Context, thread string) (uint64, error) {
	seq, _, err := n.lastAt(ctx, thread)
	return seq, err
}

// lastAt returns the sequence number of thread's last record and when it was
// stored.
func (n *Journal) lastAt(ctx context.Context, thread string) (uint64, time.Time, error) {
	m, err := n.stream.GetLastMsgForSubject(ctx, n.subject(thread))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, time.Time{}, nil
	}
	if err != nil {
		return 0, time.Time{}, n.unavailable("stat", thread, err)
	}
	first, count, err := batchHeader(m.Header)
	if err != nil {
		return 0, time.Time{}, &journal.Error{Code: journal.ErrCorrupt, Op: "stat", Thread: thread, Err: fmt.Errorf("stream message %d: %w", m.Sequence, err)}
	}
	n.remember(thread, first, m.Sequence)
	return first + count - 1, m.Time, nil
}

func (n *Journal) remember(thread string, first, streamSeq uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if h := n.hints[thread]; streamSeq > h.streamSeq {
		n.hints[thread] = hint{first, streamSeq}
	}
}

// startAt returns the stream sequence a read of thread from record from may
// start at, 0 for the beginning.
func (n *Journal) startAt(thread string, from uint64) uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	if h, ok := n.hints[thread]; ok && h.first <= from {
		return h.streamSeq
	}
	return 0
}

func batchHeader(h nats.Header) (first, count uint64, err error) {
	first, err1 := strconv.ParseUint(h.Get(hdrSeq), 10, 64)
	count, err2 := strconv.ParseUint(h.Get(hdrCount), 10, 64)
	if err1 != nil || err2 != nil || first == 0 || count == 0 {
		return 0, 0, fmt.Errorf("no valid %s/%s headers", hdrSeq, hdrCount)
	}
	return first, count, nil
}

// Read implements journal.Journal.
func (n *Journal) Read(ctx context.Context, thread string, from uint64) iter.Seq2[journal.Record, error] {
	return n.iterate(ctx, thread, from, false)
}

// Follow implements journal.Journal. While the server is away it keeps trying; it
// then resumes after the last message it delivered.
func (n *Journal) Follow(ctx context.Context, thread string, from uint64) iter.Seq2[journal.Record, error] {
	return n.iterate(ctx, thread, from, true)
}

func (n *Journal) iterate(ctx context.Context, thread string, from uint64, follow bool) iter.Seq2[journal.Record, error] {
	op := "read"
	if follow {
		op = "follow"
	}
	return func(yield func(journal.Record, error) bool) {
		if n.isClosed() {
			yield(journal.Record{}, journal.Fail(journal.ErrClosed, op, thread, nil))
			return
		}
		subj := n.subject(thread)
		var end uint64 // Read: the stream sequence of the last message when it started
		if !follow {
			m, err := n.stream.GetLastMsgForSubject(ctx, subj)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				return
			}
			if err != nil {
				yield(journal.Record{}, n.unavailable(op, thread, err))
				return
			}
			end = m.Sequence
		}
		next := max(from, 1) // the next record to yield
		var streamSeq uint64 // the last stream message handled
		if s := n.startAt(thread, next); s > 0 {
			streamSeq = s - 1
		}
		backoff := 50 * time.Millisecond
		for {
			// MaxResetAttempts 1: when the library cannot make its consumer
			// again at once, consume ends with the error and this loop
			// (whose calls are bounded and which watches ctx) tries again,
			// instead of the library retrying without end, deaf to ctx.
			cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}, InactiveThreshold: time.Minute, MaxResetAttempts: 1}
			if streamSeq > 0 {
				cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, streamSeq+1
			}
			// behind reports whether the subject holds messages past the
			// last one handled: a consumer that stays silent then is stuck
			// (its server restarted under it) and is made again.
			behind := func() bool {
				bctx, cancel := context.WithTimeout(ctx, n.opts.PublishTimeout)
				defer cancel()
				m, err := n.stream.GetLastMsgForSubject(bctx, subj)
				return err == nil && m.Sequence > streamSeq
			}
			err := n.consume(ctx, cfg, behind, func(m jetstream.Msg) (bool, error) {
				meta, err := m.Metadata()
				if err != nil {
					return false, err
				}
				streamSeq = meta.Sequence.Stream
				first, _, err := batchHeader(m.Headers())
				if err != nil {
					return false, &journal.Error{Code: journal.ErrCorrupt, Op: op, Thread: thread, Err: fmt.Errorf("stream message %d: %w", streamSeq, err)}
				}
				n.remember(thread, first, streamSeq)
				seq := first
				for line := range bytes.Lines(m.Data()) {
					if seq >= next {
						if !yield(parseLine(bytes.TrimSuffix(line, []byte{'\n'}), seq), nil) {
							return false, nil
						}
						next = seq + 1
					}
					seq++
				}
				return follow || streamSeq < end, nil
			})
			var je *journal.Error
			switch {
			case err == nil:
				return // the consumer stopped it: the caller, or the end of a Read
			case ctx.Err() != nil:
				if !follow {
					yield(journal.Record{}, journal.Fail(journal.ErrUnavailable, op, thread, ctx.Err()))
				}
				return
			case errors.As(err, &je):
				yield(journal.Record{}, err)
				return
			case n.isClosed() || errors.Is(err, nats.ErrConnectionClosed):
				yield(journal.Record{}, journal.Fail(journal.ErrClosed, op, thread, err))
				return
			case !follow:
				yield(journal.Record{}, n.unavailable(op, thread, err))
				return
			}
			// Follow: the server went away; try again from where we were.
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return
			case <-n.life.done:
			}
			backoff = min(2*backoff, 2*time.Second)
		}
	}
}

// stallCheck is how long a consumer may stay silent before consume asks
// whether it should have delivered something.
const stallCheck = 2 * time.Second

// errStalled ends a consumer that stayed silent while messages waited.
var errStalled = errors.New("consumer stalled")

// consume runs an ordered consumer and hands each message to fn until fn
// returns false (consume then returns nil) or an error. When no message
// comes for stallCheck and behind reports messages waiting, it returns
// errStalled.
func (n *Journal) consume(ctx context.Context, cfg jetstream.OrderedConsumerConfig, behind func() bool, fn func(jetstream.Msg) (bool, error)) error {
	// Making the consumer is bounded by a timeout of its own: a request in
	// flight when the server stops never gets its reply, and waiting on ctx
	// alone would hold a follower until ctx ends.
	cctx, cancel := context.WithTimeout(ctx, n.opts.PublishTimeout)
	cons, err := n.stream.OrderedConsumer(cctx, cfg)
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
			if behind() {
				return errStalled
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

// Threads implements journal.Journal.
func (n *Journal) Threads(ctx context.Context) ([]string, error) {
	if n.isClosed() {
		return nil, journal.Fail(journal.ErrClosed, "threads", "", nil)
	}
	info, err := n.stream.Info(ctx, jetstream.WithSubjectFilter(n.opts.SubjectPrefix+">"))
	if err != nil {
		return nil, n.unavailable("threads", "", err)
	}
	var ids []string
	for subj := range info.State.Subjects {
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(subj, n.opts.SubjectPrefix))
		if err == nil && len(b) > 0 {
			ids = append(ids, string(b))
		}
	}
	keys, err := n.meta.ListKeys(ctx)
	if err != nil {
		return nil, n.unavailable("threads", "", err)
	}
	for k := range keys.Keys() {
		b, err := base64.RawURLEncoding.DecodeString(k)
		if err == nil && len(b) > 0 {
			ids = append(ids, string(b))
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// Create implements journal.Journal: it creates the thread's key in the meta
// bucket, refused when it exists or the thread holds records.
func (n *Journal) Create(ctx context.Context, thread string, meta journal.Meta) error {
	if err := journal.CheckID("create", thread); err != nil {
		return err
	}
	if n.isClosed() {
		return journal.Fail(journal.ErrClosed, "create", thread, nil)
	}
	ctx, cancel := context.WithTimeout(ctx, n.opts.PublishTimeout)
	defer cancel()
	last, err := n.last(ctx, thread)
	if err != nil {
		return err
	}
	if last > 0 {
		return journal.Fail(journal.ErrExists, "create", thread, nil)
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now().UTC()
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return journal.Fail(journal.ErrInvalid, "create", thread, err)
	}
	if _, err := n.meta.Create(ctx, token(thread), b); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return journal.Fail(journal.ErrExists, "create", thread, nil)
		}
		return n.unavailable("create", thread, err)
	}
	return nil
}

// Delete implements journal.Journal: refused while a lease is active, it
// purges the thread's subject and deletes its meta.
func (n *Journal) Delete(ctx context.Context, thread string) error {
	if err := journal.CheckID("delete", thread); err != nil {
		return err
	}
	st, err := n.Stat(ctx, thread)
	if err != nil {
		if e, ok := err.(*journal.Error); ok {
			e.Op = "delete"
		}
		return err
	}
	if st.Active != nil {
		return &journal.Error{Code: journal.ErrBusy, Op: "delete", Thread: thread, Holder: st.Active}
	}
	ctx, cancel := context.WithTimeout(ctx, n.opts.PublishTimeout)
	defer cancel()
	if err := n.stream.Purge(ctx, jetstream.WithPurgeSubject(n.subject(thread))); err != nil {
		return n.unavailable("delete", thread, err)
	}
	if err := n.meta.Purge(ctx, token(thread)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return n.unavailable("delete", thread, err)
	}
	n.mu.Lock()
	delete(n.hints, thread)
	n.mu.Unlock()
	return nil
}

// Stat implements journal.Journal. A lease whose Expires has passed is not active,
// even before the server removes it. A server that does not answer within
// PublishTimeout is journal.ErrUnavailable.
func (n *Journal) Stat(ctx context.Context, thread string) (journal.Thread, error) {
	th := journal.Thread{ID: thread}
	if n.isClosed() {
		return th, journal.Fail(journal.ErrClosed, "stat", thread, nil)
	}
	// Bounded by a timeout of its own: a request in flight when the server
	// stops never gets its reply, and callers poll Stat while it is away.
	ctx, cancel := context.WithTimeout(ctx, n.opts.PublishTimeout)
	defer cancel()
	e, err := n.kv.Get(ctx, token(thread))
	switch {
	case err == nil:
		var l journal.Lease
		if json.Unmarshal(e.Value(), &l) == nil && (l.Expires.IsZero() || time.Now().Before(l.Expires)) {
			l.Thread = thread
			th.Active = &l
		}
	case !errors.Is(err, jetstream.ErrKeyNotFound):
		return th, n.unavailable("stat", thread, err)
	}
	m, err := n.meta.Get(ctx, token(thread))
	switch {
	case err == nil:
		if err := json.Unmarshal(m.Value(), &th.Meta); err != nil {
			return th, journal.Fail(journal.ErrCorrupt, "stat", thread, fmt.Errorf("meta: %w", err))
		}
		th.Updated = th.Meta.Created
	case !errors.Is(err, jetstream.ErrKeyNotFound):
		return th, n.unavailable("stat", thread, err)
	}
	var at time.Time
	if th.Last, at, err = n.lastAt(ctx, thread); err != nil {
		return th, err
	}
	if at.After(th.Updated) {
		th.Updated = at
	}
	return th, nil
}

// Close implements journal.Journal: writers stop refreshing their leases (which then
// lapse) and the connection closes.
func (n *Journal) Close() error {
	ws, first := n.life.close()
	for w := range ws {
		w.halt()
	}
	if first {
		n.nc.Close()
	}
	return nil
}

// natsWriter appends one run's batches and keeps its lease alive.
type natsWriter struct {
	n     *Journal
	lease journal.Lease

	stop, stopped chan struct{} // end refresh; closed when refresh returns
	stopOnce      sync.Once

	sub     *nats.Subscription // Stop requests
	asked   chan struct{}      // closed when Stop asked this run to stop
	askOnce sync.Once

	mu      sync.Mutex
	rev     uint64      // the lease key's revision
	lost    error       // why the lease was lost, nil while held
	seq     uint64      // records numbered so far (stored or pending)
	pending []*nats.Msg // numbered, not yet acknowledged, in order
	ended   bool
	buf     []byte
}

func (w *natsWriter) Lease() journal.Lease {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lease
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
		w.mu.Lock()
		if w.lost != nil {
			w.mu.Unlock()
			return
		}
		l := w.lease
		rev := w.rev
		w.mu.Unlock()
		now := time.Now().UTC()
		l.Expires = now.Add(ttl)
		b, _ := json.Marshal(l)
		ctx, cancel := context.WithTimeout(context.Background(), ttl/3)
		nrev, err := w.n.kv.Update(ctx, token(l.Thread), b, rev)
		cancel()
		w.mu.Lock()
		switch {
		case err == nil:
			w.rev, w.lease.Expires = nrev, l.Expires
		case errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyNotFound):
			w.lost = err // it lapsed, and maybe another writer took it
		case now.After(w.lease.Expires):
			w.lost = fmt.Errorf("not refreshed before it expired: %w", err)
		}
		w.mu.Unlock()
	}
}

func (w *natsWriter) halt() {
	w.stopOnce.Do(func() {
		close(w.stop)
		_ = w.sub.Unsubscribe()
	})
	<-w.stopped
}

func (w *natsWriter) Stopped() <-chan struct{} { return w.asked }

// Stop implements journal.Journal: it sends a request on a core NATS subject the
// thread's writer listens to. A writer that holds the lease but does not
// answer (its process is gone and the lease not yet expired) is
// journal.ErrUnavailable.
func (n *Journal) Stop(ctx context.Context, thread string) (journal.Lease, error) {
	st, err := n.Stat(ctx, thread)
	if err != nil {
		err.(*journal.Error).Op = "stop"
		return journal.Lease{}, err
	}
	if st.Active == nil {
		return journal.Lease{}, journal.Fail(journal.ErrIdle, "stop", thread, nil)
	}
	rctx, cancel := context.WithTimeout(ctx, n.opts.PublishTimeout)
	defer cancel()
	if _, err := n.nc.RequestWithContext(rctx, n.stopSubject(thread), []byte(st.Active.RunID)); err != nil {
		return journal.Lease{}, n.unavailable("stop", thread, err)
	}
	return *st.Active, nil
}

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
	if w.lost != nil {
		return 0, &journal.Error{Code: journal.ErrLeaseLost, Op: "append", Thread: th, Seq: w.seq + 1, Err: w.lost}
	}
	for i := 0; i < len(recs); {
		w.buf = w.buf[:0]
		first := w.seq + 1
		j := i
		for j < len(recs) && (j == i || len(w.buf)+len(recs[j].Data) < maxMessageBytes) {
			w.buf = journal.AppendLine(w.buf, &recs[j])
			j++
		}
		m := nats.NewMsg(w.n.subject(th))
		m.Data = bytes.Clone(w.buf)
		m.Header.Set(hdrSeq, strconv.FormatUint(first, 10))
		m.Header.Set(hdrCount, strconv.Itoa(j-i))
		m.Header.Set(jetstream.MsgIDHeader, token(th)+":"+strconv.FormatUint(first, 10))
		w.pending = append(w.pending, m)
		w.seq += uint64(j - i)
		i = j
	}
	if err := w.flush(ctx); err != nil {
		return w.seq - w.pendingCount(), err
	}
	return w.seq, nil
}

func (w *natsWriter) pendingCount() uint64 {
	var c uint64
	for _, m := range w.pending {
		_, n, _ := batchHeader(m.Header)
		c += n
	}
	return c
}

// flush publishes the pending messages in order; w.mu is held. A message
// published again after a lost acknowledgement is stored once: the server
// drops it as a duplicate of its message id.
func (w *natsWriter) flush(ctx context.Context) error {
	for len(w.pending) > 0 {
		m := w.pending[0]
		pctx, cancel := context.WithTimeout(ctx, w.n.opts.PublishTimeout)
		_, err := w.n.js.PublishMsg(pctx, m)
		cancel()
		if err != nil {
			first, _, _ := batchHeader(m.Header)
			e := w.n.unavailable("append", w.lease.Thread, err)
			e.Seq = first
			return e
		}
		w.pending[0] = nil
		w.pending = w.pending[1:]
	}
	w.pending = nil
	return nil
}

func (w *natsWriter) End(ctx context.Context) error {
	w.mu.Lock()
	if w.ended {
		w.mu.Unlock()
		return nil
	}
	w.ended = true
	// What could not be stored yet is retried until ctx ends: a run that
	// ends while the server restarts keeps its last records.
	ferr := w.flush(ctx)
	for ferr != nil && errors.Is(ferr, journal.ErrUnavailable) && ctx.Err() == nil {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
		}
		ferr = w.flush(ctx)
	}
	rev, lost := w.rev, w.lost
	w.mu.Unlock()
	w.halt()
	w.n.life.remove(w)
	if lost == nil {
		if err := w.n.kv.Delete(ctx, token(w.lease.Thread), jetstream.LastRevision(rev)); err != nil && ferr == nil {
			// The lease lapses by itself within its TTL.
			return w.n.unavailable("end", w.lease.Thread, err)
		}
	}
	if ferr != nil {
		ferr.(*journal.Error).Op = "end"
	}
	return ferr
}

// parseLine reads a record's line (journal.ParseLine) and numbers it seq.
func parseLine(line []byte, seq uint64) journal.Record {
	r := journal.ParseLine(line)
	r.Seq = seq
	return r
}
