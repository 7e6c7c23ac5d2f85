package journal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultPoll is how often a file journal's Follow looks for records that
// another process appended (records appended through the same *Dir wake it at
// once).
const DefaultPoll = 50 * time.Millisecond

// DirOptions configure a file journal. A nil *DirOptions means all defaults.
type DirOptions struct {
	// Owner names this process in the leases it takes; "" means
	// DefaultOwner().
	Owner string
	// Poll is how often Follow looks for records appended by another
	// process; 0 means DefaultPoll.
	Poll time.Duration
	// Sync makes every append wait for the disk (fsync), so that records
	// survive a power loss too, not only the death of the process. Off by
	// default: a record written is in the kernel's page cache, which a killed
	// process cannot take with it.
	Sync bool
}

// Dir is the embedded file journal: one directory, one JSONL file per
// thread. Create it with OpenDir; the package documentation describes the
// files and their guarantees.
type Dir struct {
	path string
	opts DirOptions

	life openSet[*dirWriter]

	mu     sync.Mutex
	notify map[string]chan struct{} // per thread, closed at the next local append
	counts map[string]lineCount     // per thread, the records up to a line boundary
}

// lineCount says that a thread's file holds lines records in its first size
// bytes.
type lineCount struct {
	size  int64
	lines uint64
}

var _ Journal = (*Dir)(nil)

// OpenDir opens (creating it if needed) the file journal in directory path.
// opts may be nil.
func OpenDir(path string, opts *DirOptions) (*Dir, error) {
	var o DirOptions
	if opts != nil {
		o = *opts
	}
	if o.Owner == "" {
		o.Owner = DefaultOwner()
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if path == "" {
		return nil, fail(ErrInvalid, "open", "", errors.New("empty directory name"))
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fail(ErrUnavailable, "open", "", err)
	}
	return &Dir{
		path: path, opts: o, life: newOpenSet[*dirWriter](),
		notify: map[string]chan struct{}{}, counts: map[string]lineCount{},
	}, nil
}

// Path returns the journal's directory.
func (d *Dir) Path() string { return d.path }

// File returns the path of thread's JSONL file (it may not exist yet).
// agview replay reads it.
func (d *Dir) File(thread string) string {
	return filepath.Join(d.path, fileName(thread)+".jsonl")
}

func (d *Dir) lockFile(thread string) string {
	return filepath.Join(d.path, fileName(thread)+".lock")
}

// metaFile holds the thread's Meta as JSON (Create).
func (d *Dir) metaFile(thread string) string {
	return filepath.Join(d.path, fileName(thread)+".meta")
}

// stopFile is where Stop writes the id of the run to stop.
func (d *Dir) stopFile(thread string) string {
	return filepath.Join(d.path, fileName(thread)+".stop")
}

// fileName is the base name of a thread's files: the id itself when it is
// made of letters, digits, '-', '_' and '.' (not first) and not too long, else
// "~" and the id in unpadded base64url.
func fileName(thread string) string {
	ok := len(thread) <= 200 && thread != "" && thread[0] != '.'
	for i := 0; ok && i < len(thread); i++ {
		c := thread[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	if ok {
		return thread
	}
	return "~" + base64.RawURLEncoding.EncodeToString([]byte(thread))
}

// threadName reverses fileName.
func threadName(name string) (string, bool) {
	if enc, ok := strings.CutPrefix(name, "~"); ok {
		b, err := base64.RawURLEncoding.DecodeString(enc)
		return string(b), err == nil && len(b) > 0
	}
	return name, name != "" && fileName(name) == name
}

func (d *Dir) isClosed() bool { return d.life.isClosed() }

// changed returns the channel closed at the next append to thread through d.
func (d *Dir) changed(thread string) <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch := d.notify[thread]
	if ch == nil {
		ch = make(chan struct{})
		d.notify[thread] = ch
	}
	return ch
}

func (d *Dir) appended(thread string, c lineCount) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if old := d.counts[thread]; c.size > old.size {
		d.counts[thread] = c
	}
	if ch := d.notify[thread]; ch != nil {
		close(ch)
		delete(d.notify, thread)
	}
}

// count returns how many complete records f holds and where the last one
// ends, counting only what was added since the last count.
func (d *Dir) count(thread string, f *os.File) (lineCount, error) {
	d.mu.Lock()
	c := d.counts[thread]
	d.mu.Unlock()
	st, err := f.Stat()
	if err != nil {
		return c, err
	}
	if st.Size() < c.size { // the file was replaced: count afresh
		c = lineCount{}
	}
	buf := make([]byte, 256<<10)
	off := c.size
	for off < st.Size() {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), st.Size()-off)], off)
		chunk := buf[:n]
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			c.lines += uint64(bytes.Count(chunk[:i+1], []byte{'\n'}))
			c.size = off + int64(i) + 1
		}
		off += int64(n)
		if err != nil && err != io.EOF {
			return c, err
		}
		if n == 0 {
			break
		}
	}
	d.mu.Lock()
	if old := d.counts[thread]; c.size > old.size {
		d.counts[thread] = c
	}
	d.mu.Unlock()
	return c, nil
}

// Begin implements Journal: it takes the lock of THREAD.lock, records the
// lease in it, and cuts off a torn last line left by a writer that died in
// the middle of a write.
func (d *Dir) Begin(ctx context.Context, lease Lease) (Writer, error) {
	if err := CheckLease(lease); err != nil {
		return nil, err
	}
	th := lease.Thread
	if d.isClosed() {
		return nil, fail(ErrClosed, "begin", th, nil)
	}
	if err := ctx.Err(); err != nil {
		return nil, fail(ErrUnavailable, "begin", th, err)
	}
	lf, err := os.OpenFile(d.lockFile(th), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fail(ErrUnavailable, "begin", th, err)
	}
	if err := tryLock(lf); err != nil {
		defer lf.Close()
		if errors.Is(err, errLocked) {
			h := readLease(lf, th)
			return nil, &Error{Code: ErrBusy, Op: "begin", Thread: th, Holder: &h}
		}
		return nil, fail(ErrUnavailable, "begin", th, err)
	}
	if lease.Owner == "" {
		lease.Owner = d.opts.Owner
	}
	lease.Since, lease.Expires = time.Now().UTC(), time.Time{}
	w, err := d.begin(lease, lf)
	if err != nil {
		lf.Close() // releases the lock
		return nil, fail(ErrUnavailable, "begin", th, err)
	}
	if !d.life.add(w) {
		w.close()
		return nil, fail(ErrClosed, "begin", th, nil)
	}
	return w, nil
}

func (d *Dir) begin(lease Lease, lf *os.File) (*dirWriter, error) {
	b, _ := json.Marshal(lease)
	if err := lf.Truncate(0); err != nil {
		return nil, err
	}
	if _, err := lf.WriteAt(append(b, '\n'), 0); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(d.File(lease.Thread), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	c, err := d.count(lease.Thread, f)
	if err == nil {
		// A torn last line (its writer died mid-write) is cut off, so that
		// what this writer appends starts on a line of its own.
		err = f.Truncate(c.size)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	w := &dirWriter{d: d, lease: lease, lf: lf, f: f, size: c.size, seq: c.lines,
		stopped: make(chan struct{}), quit: make(chan struct{}), watching: make(chan struct{})}
	go w.watchStop()
	return w, nil
}

// Stop implements Journal: it writes the active run's id to THREAD.stop,
// which the writing process, wherever it runs, reads within
// DirOptions.Poll.
func (d *Dir) Stop(ctx context.Context, thread string) (Lease, error) {
	st, err := d.Stat(ctx, thread)
	if err != nil {
		err.(*Error).Op = "stop"
		return Lease{}, err
	}
	if st.Active == nil {
		return Lease{}, fail(ErrIdle, "stop", thread, nil)
	}
	tmp, err := os.CreateTemp(d.path, ".stop-*")
	if err == nil {
		_, err = tmp.WriteString(st.Active.RunID)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), d.stopFile(thread))
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		return Lease{}, fail(ErrUnavailable, "stop", thread, err)
	}
	return *st.Active, nil
}

// readLease reads the lease recorded in a lock file; what cannot be read
// leaves the lease's fields empty but its thread.
func readLease(lf *os.File, thread string) Lease {
	var l Lease
	b, err := io.ReadAll(io.NewSectionReader(lf, 0, 64<<10))
	if err == nil {
		_ = json.Unmarshal(bytes.TrimSpace(b), &l)
	}
	l.Thread = thread
	return l
}

// Read implements Journal.
func (d *Dir) Read(ctx context.Context, thread string, from uint64) iter.Seq2[Record, error] {
	return d.iterate(ctx, thread, from, false)
}

// Follow implements Journal. It sees at once what is appended through the
// same *Dir, and within DirOptions.Poll what other processes append.
func (d *Dir) Follow(ctx context.Context, thread string, from uint64) iter.Seq2[Record, error] {
	return d.iterate(ctx, thread, from, true)
}

func (d *Dir) iterate(ctx context.Context, thread string, from uint64, follow bool) iter.Seq2[Record, error] {
	op := "read"
	if follow {
		op = "follow"
	}
	return func(yield func(Record, error) bool) {
		var f *os.File
		defer func() {
			if f != nil {
				f.Close()
			}
		}()
		var (
			off   int64  // where the next line starts
			seq   uint64 // records read so far
			limit int64  = -1
			tick  *time.Ticker
			lines lineReader
		)
		for {
			if d.isClosed() {
				yield(Record{}, fail(ErrClosed, op, thread, nil))
				return
			}
			if ctx.Err() != nil {
				if !follow {
					yield(Record{}, fail(ErrUnavailable, op, thread, ctx.Err()))
				}
				return
			}
			wake := d.changed(thread)
			if f == nil {
				var err error
				f, err = os.Open(d.File(thread))
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					yield(Record{}, fail(ErrUnavailable, op, thread, err))
					return
				}
				if f != nil && from > 1 {
					// Start after the records counted last time when they
					// all come before from (attaching reads, then follows).
					d.mu.Lock()
					if c := d.counts[thread]; c.lines < from {
						off, seq = c.size, c.lines
					}
					d.mu.Unlock()
				}
			}
			if f != nil {
				st, err := f.Stat()
				if err != nil {
					yield(Record{}, fail(ErrUnavailable, op, thread, err))
					return
				}
				end := st.Size()
				if !follow {
					if limit < 0 {
						limit = end
					}
					end = limit
				}
				if end > off {
					lines.reset(io.NewSectionReader(f, off, end-off))
					for {
						line, err := lines.next()
						if err != nil {
							break // the end, or a torn line not yet complete
						}
						off += int64(len(line)) + 1
						seq++
						if seq < from {
							continue
						}
						if !yield(parseLine(line, seq), nil) {
							return
						}
					}
				}
			}
			if !follow {
				return
			}
			if tick == nil {
				tick = time.NewTicker(d.opts.Poll)
				defer tick.Stop()
			}
			select {
			case <-wake:
			case <-tick.C:
			case <-ctx.Done():
				return
			case <-d.life.done:
			}
		}
	}
}

// lineReader yields the complete lines ('\n'-terminated) of a reader, of any
// length, without their '\n'. A line is valid until the next call.
type lineReader struct {
	br   *bufio.Reader
	long []byte
}

func (l *lineReader) reset(r io.Reader) {
	if l.br == nil {
		l.br = bufio.NewReaderSize(r, 256<<10)
	} else {
		l.br.Reset(r)
	}
}

func (l *lineReader) next() ([]byte, error) {
	line, err := l.br.ReadSlice('\n')
	if err == nil {
		return line[:len(line)-1], nil
	}
	if err != bufio.ErrBufferFull {
		return nil, err // io.EOF, possibly after a torn line
	}
	l.long = append(l.long[:0], line...)
	for {
		line, err = l.br.ReadSlice('\n')
		l.long = append(l.long, line...)
		switch err {
		case nil:
			return l.long[:len(l.long)-1], nil
		case bufio.ErrBufferFull:
		default:
			return nil, err
		}
	}
}

// Threads implements Journal.
func (d *Dir) Threads(ctx context.Context) ([]string, error) {
	if d.isClosed() {
		return nil, fail(ErrClosed, "threads", "", nil)
	}
	ents, err := os.ReadDir(d.path)
	if err != nil {
		return nil, fail(ErrUnavailable, "threads", "", err)
	}
	var ids []string
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		base, ok := strings.CutSuffix(e.Name(), ".jsonl")
		meta := false
		if !ok {
			base, meta = strings.CutSuffix(e.Name(), ".meta")
			if !meta {
				continue
			}
		}
		id, ok := threadName(base)
		if !ok {
			continue
		}
		if info, err := e.Info(); err == nil && (meta || info.Size() > 0) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// Stat implements Journal. A lease is active while the process that took it
// holds the lock of THREAD.lock: the kernel drops that lock when the process
// dies, so a run whose process was killed reads as not active at once.
func (d *Dir) Stat(ctx context.Context, thread string) (Thread, error) {
	th := Thread{ID: thread}
	if d.isClosed() {
		return th, fail(ErrClosed, "stat", thread, nil)
	}
	lf, err := os.Open(d.lockFile(thread))
	switch {
	case err == nil:
		held, lerr := locked(lf)
		if lerr == nil && held {
			l := readLease(lf, thread)
			th.Active = &l
		}
		lf.Close()
		if lerr != nil {
			return th, fail(ErrUnavailable, "stat", thread, lerr)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return th, fail(ErrUnavailable, "stat", thread, err)
	}
	if b, err := os.ReadFile(d.metaFile(thread)); err == nil {
		if err := json.Unmarshal(b, &th.Meta); err != nil {
			return th, fail(ErrCorrupt, "stat", thread, fmt.Errorf("meta: %w", err))
		}
		th.Updated = th.Meta.Created
	} else if !errors.Is(err, fs.ErrNotExist) {
		return th, fail(ErrUnavailable, "stat", thread, err)
	}
	f, err := os.Open(d.File(thread))
	if errors.Is(err, fs.ErrNotExist) {
		return th, nil
	}
	if err != nil {
		return th, fail(ErrUnavailable, "stat", thread, err)
	}
	defer f.Close()
	c, err := d.count(thread, f)
	if err != nil {
		return th, fail(ErrUnavailable, "stat", thread, err)
	}
	th.Last = c.lines
	if fi, err := f.Stat(); err == nil && c.lines > 0 && fi.ModTime().After(th.Updated) {
		th.Updated = fi.ModTime()
	}
	return th, nil
}

// Create implements Journal: it writes THREAD.meta, failing when it or
// THREAD.jsonl (with records) exists.
func (d *Dir) Create(ctx context.Context, thread string, meta Meta) error {
	if err := CheckID("create", thread); err != nil {
		return err
	}
	if d.isClosed() {
		return fail(ErrClosed, "create", thread, nil)
	}
	if fi, err := os.Stat(d.File(thread)); err == nil && fi.Size() > 0 {
		return fail(ErrExists, "create", thread, nil)
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now().UTC()
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return fail(ErrInvalid, "create", thread, err)
	}
	tmp, err := os.CreateTemp(d.path, ".meta-*")
	if err != nil {
		return fail(ErrUnavailable, "create", thread, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(ErrUnavailable, "create", thread, err)
	}
	// A hard link fails when the name exists: Create is atomic between
	// processes.
	if err := os.Link(tmp.Name(), d.metaFile(thread)); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fail(ErrExists, "create", thread, nil)
		}
		return fail(ErrUnavailable, "create", thread, err)
	}
	return nil
}

// Delete implements Journal: it takes the thread's lock (ErrBusy while a
// run holds it) and removes the thread's files.
func (d *Dir) Delete(ctx context.Context, thread string) error {
	if err := CheckID("delete", thread); err != nil {
		return err
	}
	if d.isClosed() {
		return fail(ErrClosed, "delete", thread, nil)
	}
	lf, err := os.OpenFile(d.lockFile(thread), os.O_RDWR, 0)
	switch {
	case err == nil:
		defer lf.Close()
		if err := tryLock(lf); err != nil {
			if errors.Is(err, errLocked) {
				h := readLease(lf, thread)
				return &Error{Code: ErrBusy, Op: "delete", Thread: thread, Holder: &h}
			}
			return fail(ErrUnavailable, "delete", thread, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fail(ErrUnavailable, "delete", thread, err)
	}
	for _, name := range []string{d.File(thread), d.metaFile(thread), d.stopFile(thread), d.lockFile(thread)} {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fail(ErrUnavailable, "delete", thread, err)
		}
	}
	d.mu.Lock()
	delete(d.counts, thread)
	d.mu.Unlock()
	return nil
}

// Close implements Journal: writers still open are closed (their locks
// released, as a dead process's would be), followers end.
func (d *Dir) Close() error {
	ws, _ := d.life.close()
	for w := range ws {
		w.mu.Lock()
		w.close()
		w.mu.Unlock()
	}
	return nil
}

type dirWriter struct {
	d     *Dir
	lease Lease

	stopped  chan struct{} // closed when THREAD.stop names the run
	quit     chan struct{} // closed to end watchStop
	watching chan struct{} // closed when watchStop returns

	mu    sync.Mutex
	lf, f *os.File // nil once closed
	size  int64    // bytes of complete lines
	seq   uint64   // records stored
	buf   []byte
}

func (w *dirWriter) Lease() Lease { return w.lease }

func (w *dirWriter) Stopped() <-chan struct{} { return w.stopped }

// watchStop looks for THREAD.stop naming the run every DirOptions.Poll.
func (w *dirWriter) watchStop() {
	defer close(w.watching)
	t := time.NewTicker(w.d.opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-t.C:
		}
		if b, err := os.ReadFile(w.d.stopFile(w.lease.Thread)); err == nil && string(b) == w.lease.RunID {
			close(w.stopped)
			return
		}
	}
}

func (w *dirWriter) Append(ctx context.Context, recs ...Record) (uint64, error) {
	th := w.lease.Thread
	if err := CheckRecords("append", th, recs); err != nil {
		return 0, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return 0, fail(ErrClosed, "append", th, nil)
	}
	if err := ctx.Err(); err != nil {
		return w.seq, &Error{Code: ErrUnavailable, Op: "append", Thread: th, Seq: w.seq + 1, Err: err}
	}
	w.buf = w.buf[:0]
	for i := range recs {
		w.buf = appendLine(w.buf, &recs[i])
	}
	if _, err := w.f.Write(w.buf); err != nil {
		// Whatever part was written is cut off again, so that the next
		// append starts on a line boundary.
		_ = w.f.Truncate(w.size)
		return w.seq, &Error{Code: ErrUnavailable, Op: "append", Thread: th, Seq: w.seq + 1, Err: err}
	}
	if w.d.opts.Sync {
		if err := w.f.Sync(); err != nil {
			return w.seq, &Error{Code: ErrUnavailable, Op: "append", Thread: th, Seq: w.seq + 1, Err: err}
		}
	}
	w.size += int64(len(w.buf))
	w.seq += uint64(len(recs))
	if cap(w.buf) > 1<<20 {
		w.buf = nil // do not keep a large batch's buffer
	}
	w.d.appended(th, lineCount{size: w.size, lines: w.seq})
	return w.seq, nil
}

func (w *dirWriter) End(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	var err error
	if w.d.opts.Sync {
		err = w.f.Sync()
	}
	w.close()
	w.d.life.remove(w)
	if err != nil {
		return fail(ErrUnavailable, "end", w.lease.Thread, err)
	}
	return nil
}

// close closes the files, releasing the lock, and ends watchStop; w.mu is
// held.
func (w *dirWriter) close() {
	if w.f != nil {
		close(w.quit)
		<-w.watching
		if b, err := os.ReadFile(w.d.stopFile(w.lease.Thread)); err == nil && string(b) == w.lease.RunID {
			os.Remove(w.d.stopFile(w.lease.Thread)) // the request was for this run
		}
		w.f.Close()
		w.lf.Close()
		w.f, w.lf = nil, nil
	}
}

// errLocked is tryLock's refusal: another open of the file holds the lock.
var errLocked = errors.New("locked by another writer")
