package natsjournal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agview/agview/journal/internal/openset"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agview/agview/journal"
)

// Defaults of Options.
const (
	// DefaultStream is the JetStream stream that holds the records.
	DefaultStream = "AGVIEW_JOURNAL"
	// DefaultSubjectPrefix begins every thread's subject: the prefix, then
	// the thread's token (the id in unpadded base64url, or a hash of a long
	// id: see the package documentation).
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
	// DefaultPublishTimeout bounds one request to the server (a publish, a
	// lookup, the making of a consumer): it fails with journal.ErrUnavailable
	// when the server does not answer in this time.
	DefaultPublishTimeout = 2 * time.Second
	// DefaultEndTimeout bounds how long Writer.End keeps trying to store
	// what is pending when its context has no earlier deadline.
	DefaultEndTimeout = 30 * time.Second
	// DefaultMaxPending bounds the bytes a writer keeps while the server is
	// away: past it the run's writer fails with journal.ErrTooLarge.
	DefaultMaxPending = 64 << 20
	// MaxRecordBytes bounds one record's line: an append of a larger record
	// fails with journal.ErrTooLarge, and a reader refuses a stored one as
	// journal.ErrCorrupt.
	MaxRecordBytes = 64 << 20
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
	// PublishTimeout bounds each request to the server; 0 means
	// DefaultPublishTimeout.
	PublishTimeout time.Duration
	// EndTimeout bounds Writer.End's retries; 0 means DefaultEndTimeout.
	EndTimeout time.Duration
	// MaxPending bounds the bytes of records a writer keeps while the
	// server is away; 0 means DefaultMaxPending.
	MaxPending int
	// ConnOptions are passed to nats.Connect (credentials, TLS, a name…).
	// The journal adds unlimited reconnects and its own ClosedHandler (a
	// connection the client library closed, as it does on a protocol error,
	// is dialled again).
	ConnOptions []nats.Option
}

// conn is one connection and the handles made on it. The journal replaces
// it whole when the connection closes under it.
type conn struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	kv     jetstream.KeyValue // leases
	meta   jetstream.KeyValue // journal.Meta per thread
	gen    uint64             // 1 for the first connection, then one more per dial
}

// Journal is the NATS JetStream journal. Create it with Dial; the package
// documentation describes how it stores threads and leases.
type Journal struct {
	opts Options
	url  string

	cur    atomic.Pointer[conn]
	connMu sync.Mutex    // a new connection is stored, or the last one closed, under it
	redial chan struct{} // asks keep to dial again
	ctx    context.Context
	cancel context.CancelFunc // Close cancels ctx: every request ends

	repairMu   sync.Mutex
	repairedAt time.Time

	life openset.Set[*natsWriter]

	mu    sync.Mutex
	hints map[string]hint // per thread, a message seen last
}

// hint says that stream message streamSeq holds the thread's records from
// first on: a read from first or later may start there.
type hint struct{ first, streamSeq uint64 }

var _ journal.Journal = (*Journal)(nil)

// Dial connects to the NATS server at url (e.g. "nats://127.0.0.1:4222")
// and makes sure the stream and the buckets exist. opts may be nil. A
// server that cannot be reached, or that runs without JetStream, is
// journal.ErrUnavailable.
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
	if o.EndTimeout <= 0 {
		o.EndTimeout = DefaultEndTimeout
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	n := &Journal{opts: o, url: url, redial: make(chan struct{}, 1), life: openset.New[*natsWriter](), hints: map[string]hint{}}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	c, err := n.connect(ctx, 1)
	if err != nil {
		n.cancel()
		return nil, err
	}
	n.cur.Store(c)
	go n.keep()
	return n, nil
}

// connect dials the server and makes the stream and buckets.
func (n *Journal) connect(ctx context.Context, gen uint64) (*conn, error) {
	// The library's default error handler prints to stderr; the journal
	// reports what fails through its own errors. ConnOptions may set one.
	copts := append([]nats.Option{nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {})}, n.opts.ConnOptions...)
	copts = append(copts,
		nats.MaxReconnects(-1),
		nats.ReconnectWait(200*time.Millisecond),
		nats.ClosedHandler(func(*nats.Conn) { n.closedUnder() }))
	nc, err := nats.Connect(n.url, copts...)
	if err != nil {
		return nil, journal.Fail(journal.ErrUnavailable, "open", "", err)
	}
	c := &conn{nc: nc, gen: gen}
	sctx, cancel := context.WithTimeout(ctx, 2*n.opts.PublishTimeout)
	defer cancel()
	if err := n.setup(sctx, c); err != nil {
		nc.Close()
		return nil, journal.Fail(journal.ErrUnavailable, "open", "", err)
	}
	return c, nil
}

// errNoJetStream says what to do about a server without JetStream.
var errNoJetStream = errors.New("the NATS server runs without JetStream: start nats-server with -js (or a jetstream block in its configuration)")

// setup makes sure the stream and the buckets exist on c (it changes
// nothing of those that do).
func (n *Journal) setup(ctx context.Context, c *conn) error {
	js, err := jetstream.New(c.nc)
	if err != nil {
		return err
	}
	c.js = js
	c.stream, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        n.opts.Stream,
		Description: "agview journal: one subject per thread",
		Subjects:    []string{n.opts.SubjectPrefix + ">"},
		Storage:     jetstream.FileStorage,
		Duplicates:  2 * time.Minute,
	})
	if err != nil {
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return fmt.Errorf("%w (%w)", errNoJetStream, err)
		}
		return fmt.Errorf("stream %s: %w", n.opts.Stream, err)
	}
	c.kv, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      n.opts.LeaseBucket,
		Description: "agview journal: the run active on each thread",
		TTL:         n.opts.LeaseTTL,
		History:     1,
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return fmt.Errorf("lease bucket %s: %w", n.opts.LeaseBucket, err)
	}
	c.meta, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
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

// closedUnder is the ClosedHandler of every connection: a connection that
// closes while the journal is open (the client library closes it on a
// protocol error such as "maximum control line exceeded") is dialled again.
func (n *Journal) closedUnder() {
	if n.isClosed() {
		return
	}
	select {
	case n.redial <- struct{}{}:
	default:
	}
}

// keep dials again whenever a connection closed under the journal, with a
// growing pause between attempts, until the journal closes. It is the one
// goroutine that does.
func (n *Journal) keep() {
	for {
		select {
		case <-n.life.Done():
			return
		case <-n.redial:
		}
		old := n.cur.Load()
		if !old.nc.IsClosed() {
			continue
		}
		pause := 100 * time.Millisecond
		for {
			c, err := n.connect(n.ctx, old.gen+1)
			if err == nil {
				n.connMu.Lock()
				closed := n.isClosed()
				if !closed {
					n.cur.Store(c)
				}
				n.connMu.Unlock()
				if closed {
					c.nc.Close()
					return
				}
				n.clearHints()
				break
			}
			select {
			case <-n.life.Done():
				return
			case <-time.After(pause):
			}
			pause = min(2*pause, 5*time.Second)
		}
	}
}

// conn returns the current connection.
func (n *Journal) conn() *conn { return n.cur.Load() }

// Conn returns the journal's NATS connection (the current one: the journal
// dials again when a connection closes under it).
func (n *Journal) Conn() *nats.Conn { return n.conn().nc }

// LeaseTTL returns how long a lease lasts without a refresh.
func (n *Journal) LeaseTTL() time.Duration { return n.opts.LeaseTTL }

// bounded returns ctx with a deadline of d at the latest, also cancelled
// when the journal closes.
func (n *Journal) bounded(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c, cancel := context.WithTimeout(ctx, d)
	stop := context.AfterFunc(n.ctx, cancel)
	return c, func() {
		stop()
		cancel()
	}
}

func (n *Journal) subject(thread string) string { return n.opts.SubjectPrefix + token(thread) }

// stopSubject is where Stop asks a thread's writer to stop (core NATS, not
// stored).
func (n *Journal) stopSubject(thread string) string {
	return "_agview_stop." + n.opts.Stream + "." + token(thread)
}

func (n *Journal) isClosed() bool { return n.life.IsClosed() }

// unavailable classifies a NATS error: once the journal is closed
// journal.ErrClosed, else journal.ErrUnavailable (a connection closed under
// an open journal is dialled again). A stream or bucket that is gone is
// made again (repair) for the next call.
func (n *Journal) unavailable(op, thread string, err error) *journal.Error {
	if n.isClosed() {
		return journal.Fail(journal.ErrClosed, op, thread, err)
	}
	if gone(err) {
		n.repair()
	}
	return journal.Fail(journal.ErrUnavailable, op, thread, err)
}

// gone reports whether err says the stream or a bucket does not exist (it
// was deleted, or the server restarted without its store).
func gone(err error) bool {
	return errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrNoStreamResponse) ||
		errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, nats.ErrNoResponders)
}

// repair makes the stream and buckets again, at most once a second: what
// they held is lost, and readers of a thread that lost records see
// journal.ErrLost (see the package documentation).
func (n *Journal) repair() {
	n.repairMu.Lock()
	defer n.repairMu.Unlock()
	if time.Since(n.repairedAt) < time.Second {
		return
	}
	n.repairedAt = time.Now()
	c := n.conn()
	ctx, cancel := n.bounded(context.Background(), n.opts.PublishTimeout)
	defer cancel()
	nc := *c
	if n.setup(ctx, &nc) == nil {
		n.cur.CompareAndSwap(c, &nc)
		n.clearHints()
	}
}

func (n *Journal) clearHints() {
	n.mu.Lock()
	clear(n.hints)
	n.mu.Unlock()
}

// metaValue is the value of a thread's key in the meta bucket: its Meta and
// its id (so that Threads lists threads whose token is a hash).
type metaValue struct {
	journal.Meta
	Thread string `json:"thread,omitempty"`
}

// Threads implements journal.Journal.
func (n *Journal) Threads(ctx context.Context) ([]string, error) {
	if n.isClosed() {
		return nil, journal.Fail(journal.ErrClosed, "threads", "", nil)
	}
	ctx, cancel := n.bounded(ctx, 4*n.opts.PublishTimeout)
	defer cancel()
	c := n.conn()
	info, err := c.stream.Info(ctx, jetstream.WithSubjectFilter(n.opts.SubjectPrefix+">"))
	if err != nil {
		return nil, n.unavailable("threads", "", err)
	}
	var ids []string
	for subj := range info.State.Subjects {
		tok := strings.TrimPrefix(subj, n.opts.SubjectPrefix)
		if id, ok := plainID(tok); ok {
			ids = append(ids, id)
			continue
		}
		if !hashed(tok) {
			continue
		}
		m, err := c.stream.GetLastMsgForSubject(ctx, subj)
		if err != nil {
			return nil, n.unavailable("threads", "", err)
		}
		if id, ok := decodeID(m.Header.Get(hdrThread)); ok && token(id) == tok {
			ids = append(ids, id)
		}
	}
	keys, err := c.meta.ListKeys(ctx)
	if err != nil {
		return nil, n.unavailable("threads", "", err)
	}
	var hashedKeys []string
	for k := range keys.Keys() {
		if id, ok := plainID(k); ok {
			ids = append(ids, id)
		} else if hashed(k) {
			hashedKeys = append(hashedKeys, k)
		}
	}
	for _, k := range hashedKeys {
		e, err := c.meta.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, n.unavailable("threads", "", err)
		}
		var v metaValue
		if json.Unmarshal(e.Value(), &v) == nil && v.Thread != "" && token(v.Thread) == k {
			ids = append(ids, v.Thread)
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
	ctx, cancel := n.bounded(ctx, 2*n.opts.PublishTimeout)
	defer cancel()
	last, _, err := n.lastAt(ctx, "create", thread)
	if err != nil {
		return err
	}
	if last > 0 {
		return journal.Fail(journal.ErrExists, "create", thread, nil)
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now().UTC()
	}
	v := metaValue{Meta: meta}
	if hashed(token(thread)) {
		v.Thread = thread
	}
	b, err := json.Marshal(v)
	if err != nil {
		return journal.Fail(journal.ErrInvalid, "create", thread, err)
	}
	if _, err := n.conn().meta.Create(ctx, token(thread), b); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return journal.Fail(journal.ErrExists, "create", thread, nil)
		}
		return n.unavailable("create", thread, err)
	}
	return nil
}

// Delete implements journal.Journal: refused while a lease is active, it
// purges the thread's subject and deletes its meta. A thread that lost
// records (journal.ErrLost) can be deleted, and is then new again.
func (n *Journal) Delete(ctx context.Context, thread string) error {
	if err := journal.CheckID("delete", thread); err != nil {
		return err
	}
	if n.isClosed() {
		return journal.Fail(journal.ErrClosed, "delete", thread, nil)
	}
	ctx, cancel := n.bounded(ctx, 3*n.opts.PublishTimeout)
	defer cancel()
	active, err := n.activeLease(ctx, "delete", thread)
	if err != nil {
		return err
	}
	if active != nil {
		return &journal.Error{Code: journal.ErrBusy, Op: "delete", Thread: thread, Holder: active}
	}
	c := n.conn()
	if err := c.stream.Purge(ctx, jetstream.WithPurgeSubject(n.subject(thread))); err != nil {
		return n.unavailable("delete", thread, err)
	}
	if err := c.meta.Purge(ctx, token(thread)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return n.unavailable("delete", thread, err)
	}
	n.mu.Lock()
	delete(n.hints, thread)
	n.mu.Unlock()
	return nil
}

// activeLease returns the lease of the run active on thread, nil when none
// is. A lease whose Expires has passed is not active, even before the
// server removes it.
func (n *Journal) activeLease(ctx context.Context, op, thread string) (*journal.Lease, error) {
	e, err := n.conn().kv.Get(ctx, token(thread))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, n.unavailable(op, thread, err)
	}
	var l journal.Lease
	if json.Unmarshal(e.Value(), &l) == nil && (l.Expires.IsZero() || time.Now().Before(l.Expires)) {
		l.Thread = thread
		return &l, nil
	}
	return nil, nil
}

// Stat implements journal.Journal. A lease whose Expires has passed is not active,
// even before the server removes it. A server that does not answer within
// PublishTimeout is journal.ErrUnavailable; a thread that lost records
// (its stream was deleted under it) is journal.ErrLost.
func (n *Journal) Stat(ctx context.Context, thread string) (journal.Thread, error) {
	th := journal.Thread{ID: thread}
	if err := journal.CheckID("stat", thread); err != nil {
		return th, err
	}
	if n.isClosed() {
		return th, journal.Fail(journal.ErrClosed, "stat", thread, nil)
	}
	// Bounded by a timeout of its own: a request in flight when the server
	// stops never gets its reply, and callers poll Stat while it is away.
	ctx, cancel := n.bounded(ctx, n.opts.PublishTimeout)
	defer cancel()
	var err error
	if th.Active, err = n.activeLease(ctx, "stat", thread); err != nil {
		return th, err
	}
	m, err := n.conn().meta.Get(ctx, token(thread))
	switch {
	case err == nil:
		var v metaValue
		if err := json.Unmarshal(m.Value(), &v); err != nil {
			return th, journal.Fail(journal.ErrCorrupt, "stat", thread, fmt.Errorf("meta: %w", err))
		}
		th.Meta = v.Meta
		th.Updated = th.Meta.Created
	case !errors.Is(err, jetstream.ErrKeyNotFound):
		return th, n.unavailable("stat", thread, err)
	}
	var at time.Time
	if th.Last, at, err = n.lastAt(ctx, "stat", thread); err != nil {
		return th, err
	}
	if at.After(th.Updated) {
		th.Updated = at
	}
	return th, nil
}

// Stop implements journal.Journal: it sends a request on a core NATS subject the
// thread's writer listens to. A writer that holds the lease but does not
// answer (its process is gone and the lease not yet expired) is
// journal.ErrUnavailable.
func (n *Journal) Stop(ctx context.Context, thread string) (journal.Lease, error) {
	if err := journal.CheckID("stop", thread); err != nil {
		return journal.Lease{}, err
	}
	if n.isClosed() {
		return journal.Lease{}, journal.Fail(journal.ErrClosed, "stop", thread, nil)
	}
	rctx, cancel := n.bounded(ctx, 2*n.opts.PublishTimeout)
	defer cancel()
	active, err := n.activeLease(rctx, "stop", thread)
	if err != nil {
		return journal.Lease{}, err
	}
	if active == nil {
		return journal.Lease{}, journal.Fail(journal.ErrIdle, "stop", thread, nil)
	}
	if _, err := n.conn().nc.RequestWithContext(rctx, n.stopSubject(thread), []byte(active.RunID)); err != nil {
		return journal.Lease{}, n.unavailable("stop", thread, err)
	}
	return *active, nil
}

// Close implements journal.Journal: every request in flight is cancelled,
// writers stop refreshing their leases (which then lapse) and the
// connection closes. It returns promptly whatever the server does.
func (n *Journal) Close() error {
	ws, first := n.life.Close()
	if !first {
		return nil
	}
	n.cancel()
	for w := range ws {
		w.halt()
	}
	n.connMu.Lock()
	c := n.conn()
	n.connMu.Unlock()
	c.nc.Close()
	return nil
}
