package journal

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"slices"
	"sync"
	"time"
)

// Memory is a journal held in memory: for tests and demos. It is lost when
// the process ends. Its leases last until their writer ends or the journal is
// closed. Create it with NewMemory.
type Memory struct {
	owner string

	mu      sync.Mutex
	closed  bool
	threads map[string]*memThread
	born    chan struct{} // closed and replaced when a thread is added
	done    chan struct{} // closed by Close
}

type memThread struct {
	meta    Meta
	created bool
	updated time.Time
	recs    []Record
	lease   *Lease
	writer  *memWriter
	grown   chan struct{} // closed and replaced at each append
}

var _ Journal = (*Memory)(nil)

// NewMemory returns an empty in-memory journal whose leases name owner
// ("" means DefaultOwner()).
func NewMemory(owner string) *Memory {
	if owner == "" {
		owner = DefaultOwner()
	}
	return &Memory{owner: owner, threads: map[string]*memThread{}, born: make(chan struct{}), done: make(chan struct{})}
}

// thread returns the thread named id, creating it; m.mu is held. Only
// writers (Begin, Create) add threads: readers of an unknown thread add
// nothing, so that reading ids at random costs no memory.
func (m *Memory) thread(id string) *memThread {
	t := m.threads[id]
	if t == nil {
		t = &memThread{grown: make(chan struct{})}
		m.threads[id] = t
		close(m.born)
		m.born = make(chan struct{})
	}
	return t
}

// Begin implements Journal.
func (m *Memory) Begin(ctx context.Context, lease Lease) (Writer, error) {
	if err := CheckLease(lease); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fail(ErrUnavailable, "begin", lease.Thread, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fail(ErrClosed, "begin", lease.Thread, nil)
	}
	t := m.thread(lease.Thread)
	if t.lease != nil {
		h := *t.lease
		return nil, &Error{Code: ErrBusy, Op: "begin", Thread: lease.Thread, Holder: &h}
	}
	if lease.Owner == "" {
		lease.Owner = m.owner
	}
	lease.Since, lease.Expires = time.Now(), time.Time{}
	t.lease = &lease
	w := &memWriter{m: m, lease: lease, stopped: make(chan struct{})}
	t.writer = w
	return w, nil
}

// Read implements Journal.
func (m *Memory) Read(ctx context.Context, thread string, from uint64) iter.Seq2[Record, error] {
	return m.iterate(ctx, thread, from, false)
}

// Follow implements Journal.
func (m *Memory) Follow(ctx context.Context, thread string, from uint64) iter.Seq2[Record, error] {
	return m.iterate(ctx, thread, from, true)
}

func (m *Memory) iterate(ctx context.Context, thread string, from uint64, follow bool) iter.Seq2[Record, error] {
	op := "read"
	if follow {
		op = "follow"
	}
	return func(yield func(Record, error) bool) {
		if err := CheckID(op, thread); err != nil {
			yield(Record{}, err)
			return
		}
		next := max(from, 1)
		end := uint64(0)   // Read stops at the end it saw first
		var cur *memThread // the thread read, once it exists
		for {
			m.mu.Lock()
			if m.closed {
				m.mu.Unlock()
				yield(Record{}, fail(ErrClosed, op, thread, nil))
				return
			}
			t := m.threads[thread]
			if cur != nil && t != cur {
				m.mu.Unlock()
				yield(Record{}, &Error{Code: ErrLost, Op: op, Thread: thread, Seq: next, Err: errors.New("the thread was deleted")})
				return
			}
			var recs []Record
			grown := m.born // an unknown thread: wait for threads to be added
			if t != nil {
				cur, recs, grown = t, t.recs, t.grown
			}
			m.mu.Unlock()
			if !follow && end == 0 {
				end = uint64(len(recs))
			}
			for next <= uint64(len(recs)) && (follow || next <= end) {
				if ctx.Err() != nil {
					if !follow {
						yield(Record{}, fail(ErrUnavailable, op, thread, ctx.Err()))
					}
					return
				}
				r := recs[next-1]
				r.Data = bytes.Clone(r.Data)
				if !yield(r, nil) {
					return
				}
				next++
			}
			if !follow {
				return
			}
			select {
			case <-grown:
			case <-ctx.Done():
				return
			case <-m.done:
			}
		}
	}
}

// Threads implements Journal.
func (m *Memory) Threads(ctx context.Context) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fail(ErrClosed, "threads", "", nil)
	}
	var ids []string
	for id, t := range m.threads {
		if len(t.recs) > 0 || t.created {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Stat implements Journal.
func (m *Memory) Stat(ctx context.Context, thread string) (Thread, error) {
	if err := CheckID("stat", thread); err != nil {
		return Thread{ID: thread}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Thread{}, fail(ErrClosed, "stat", thread, nil)
	}
	th := Thread{ID: thread}
	if t := m.threads[thread]; t != nil {
		th.Last = uint64(len(t.recs))
		th.Meta, th.Updated = t.meta, t.updated
		if t.lease != nil {
			l := *t.lease
			th.Active = &l
		}
	}
	return th, nil
}

// Create implements Journal.
func (m *Memory) Create(ctx context.Context, thread string, meta Meta) error {
	if err := CheckID("create", thread); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fail(ErrClosed, "create", thread, nil)
	}
	if t := m.threads[thread]; t != nil && (t.created || len(t.recs) > 0) {
		return fail(ErrExists, "create", thread, nil)
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now()
	}
	t := m.thread(thread)
	t.meta, t.created, t.updated = meta, true, meta.Created
	return nil
}

// Delete implements Journal.
func (m *Memory) Delete(ctx context.Context, thread string) error {
	if err := CheckID("delete", thread); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fail(ErrClosed, "delete", thread, nil)
	}
	t := m.threads[thread]
	if t == nil {
		return nil
	}
	if t.lease != nil {
		l := *t.lease
		return &Error{Code: ErrBusy, Op: "delete", Thread: thread, Holder: &l}
	}
	delete(m.threads, thread)
	close(t.grown) // wake followers: they find the thread gone (ErrLost)
	return nil
}

// Close implements Journal: every writer stops and every lease is released.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		close(m.done)
	}
	return nil
}

type memWriter struct {
	m       *Memory
	lease   Lease
	ended   bool          // under m.mu
	stopped chan struct{} // closed under m.mu
	stop    bool          // under m.mu
}

func (w *memWriter) Lease() Lease { return w.lease }

func (w *memWriter) Stopped() <-chan struct{} { return w.stopped }

// Stop implements Journal.
func (m *Memory) Stop(ctx context.Context, thread string) (Lease, error) {
	if err := CheckID("stop", thread); err != nil {
		return Lease{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Lease{}, fail(ErrClosed, "stop", thread, nil)
	}
	t := m.threads[thread]
	if t == nil || t.writer == nil {
		return Lease{}, fail(ErrIdle, "stop", thread, nil)
	}
	if w := t.writer; !w.stop {
		w.stop = true
		close(w.stopped)
	}
	return *t.lease, nil
}

func (w *memWriter) Append(ctx context.Context, recs ...Record) (uint64, error) {
	th := w.lease.Thread
	if err := CheckRecords("append", th, recs); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, fail(ErrUnavailable, "append", th, err)
	}
	m := w.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if w.ended || m.closed {
		return 0, fail(ErrClosed, "append", th, nil)
	}
	t := m.thread(th)
	if t.writer != w {
		return 0, fail(ErrLeaseLost, "append", th, nil)
	}
	for _, r := range recs {
		t.recs = append(t.recs, Record{Seq: uint64(len(t.recs)) + 1, Kind: r.Kind, Data: bytes.Clone(r.Data)})
	}
	t.updated = time.Now()
	close(t.grown)
	t.grown = make(chan struct{})
	return uint64(len(t.recs)), nil
}

func (w *memWriter) End(ctx context.Context) error {
	m := w.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if w.ended {
		return nil
	}
	w.ended = true
	if t := m.threads[w.lease.Thread]; t != nil && t.writer == w {
		t.writer, t.lease = nil, nil
	}
	return nil
}
