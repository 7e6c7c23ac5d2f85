package journal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agview/agview/journal/internal/openset"
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

// DefaultMaxRecordBytes is the default limit on one record of a file
// journal: 8 MiB of data, the largest event package transport accepts by
// default and agview replay reads.
const DefaultMaxRecordBytes = 8 << 20

// lineOverhead is the most a record's line adds to its data: the prefix of
// an input line and its closing brace.
var lineOverhead = len(inputPrefix) + 1

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
	// MaxRecordBytes bounds one record's data; 0 means
	// DefaultMaxRecordBytes. Append refuses a larger record, and Read and
	// Follow end with an ErrTooLarge error at a line too long for it, without
	// holding the line in memory.
	MaxRecordBytes int
}

// Dir is the embedded file journal: one directory, one JSONL file per
// thread. Create it with OpenDir; the package documentation describes the
// files and their guarantees.
type Dir struct {
	path string
	opts DirOptions

	life openset.Set[*dirWriter]

	mu     sync.Mutex
	notify map[string]*watchers // per thread followed through d
	counts map[string]lineCount // per thread, the records up to a line boundary
}

// watchers are the followers of one thread through a Dir: ch is closed and
// replaced at each local append or delete; the entry goes with the last one.
type watchers struct {
	ch chan struct{}
	n  int
}

// lineCount says that a thread's file (fi) holds lines records in its first
// size bytes, and that the torn bytes after them hold no line end.
type lineCount struct {
	fi    fs.FileInfo
	size  int64
	lines uint64
	torn  int64
}

var _ Journal = (*Dir)(nil)

// OpenDir opens (creating it if needed, mode 0700) the file journal in
// directory path. opts may be nil.
//
// The directory must belong to the process's effective user and be writable
// by no one else (group and others): whoever can create files in it could
// plant links or FIFOs under the journal's names, or read its threads.
// OpenDir refuses another with an ErrInvalid error: the directory given is
// unfit, and trying again will not help.
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
	if o.MaxRecordBytes <= 0 {
		o.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if path == "" {
		return nil, fail(ErrInvalid, "open", "", errors.New("empty directory name"))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fail(ErrUnavailable, "open", "", scrub("create", "journal directory's parent", err))
	}
	if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fail(ErrUnavailable, "open", "", scrub("create", roleDir, err))
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fail(ErrUnavailable, "open", "", scrub("stat", roleDir, err))
	}
	if err := checkDirOwner(fi); err != nil {
		return nil, fail(ErrInvalid, "open", "", &fileError{op: "check", role: roleDir, err: err})
	}
	return &Dir{
		path: path, opts: o, life: openset.New[*dirWriter](),
		notify: map[string]*watchers{}, counts: map[string]lineCount{},
	}, nil
}

// Path returns the journal's directory.
func (d *Dir) Path() string { return d.path }

// File returns the path of thread's JSONL file (it may not exist yet).
// agview replay reads it.
func (d *Dir) File(thread string) string {
	return filepath.Join(d.path, fileName(thread)+".jsonl")
}

// The names of thread's files in the directory.
func jsonlName(thread string) string { return fileName(thread) + ".jsonl" }
func lockName(thread string) string  { return fileName(thread) + ".lock" }
func metaName(thread string) string  { return fileName(thread) + ".meta" } // its Meta as JSON (Create)
func stopName(thread string) string  { return fileName(thread) + ".stop" } // the id of the run to stop

// maxLine is the longest line a reader accepts.
func (d *Dir) maxLine() int { return d.opts.MaxRecordBytes + lineOverhead }

func (d *Dir) isClosed() bool { return d.life.IsClosed() }

// watch registers a follower of thread until unwatch.
func (d *Dir) watch(thread string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	w := d.notify[thread]
	if w == nil {
		w = &watchers{ch: make(chan struct{})}
		d.notify[thread] = w
	}
	w.n++
}

func (d *Dir) unwatch(thread string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.notify[thread]; w != nil {
		if w.n--; w.n == 0 {
			delete(d.notify, thread)
		}
	}
}

// changed returns the channel closed at the next append to (or delete of)
// thread through d; thread is watched.
func (d *Dir) changed(thread string) <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.notify[thread].ch
}

// wake wakes thread's followers through d; d.mu is held.
func (d *Dir) wake(thread string) {
	if w := d.notify[thread]; w != nil {
		close(w.ch)
		w.ch = make(chan struct{})
	}
}

func (d *Dir) appended(thread string, c lineCount) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if old := d.counts[thread]; c.size > old.size || old.fi == nil || !os.SameFile(old.fi, c.fi) {
		d.counts[thread] = c
	}
	d.wake(thread)
}

// count returns how many complete records f (fi) holds and where the last
// one ends, reading only what was added since the last count: the bytes
// after the last line end are scanned once, not at each count.
func (d *Dir) count(thread string, f *os.File, fi fs.FileInfo) (lineCount, error) {
	d.mu.Lock()
	c := d.counts[thread]
	d.mu.Unlock()
	st, err := f.Stat()
	if err != nil {
		return c, scrub("stat", roleThread, err)
	}
	if c.fi == nil || !os.SameFile(c.fi, fi) || st.Size() < c.size { // another file, or shrunk: count afresh
		c = lineCount{}
	}
	c.fi = fi
	if st.Size() < c.size+c.torn {
		c.torn = st.Size() - c.size
	}
	buf := make([]byte, 256<<10)
	off := c.size + c.torn
	for off < st.Size() {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), st.Size()-off)], off)
		chunk := buf[:n]
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			c.lines += uint64(bytes.Count(chunk[:i+1], []byte{'\n'}))
			c.size = off + int64(i) + 1
		}
		off += int64(n)
		c.torn = off - c.size
		if err != nil && err != io.EOF {
			return c, scrub("read", roleThread, err)
		}
		if n == 0 {
			break
		}
	}
	d.mu.Lock()
	if old := d.counts[thread]; c.size >= old.size || old.fi == nil || !os.SameFile(old.fi, c.fi) {
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
	if err := d.recordID("begin", th); err != nil {
		return nil, err
	}
	lf, err := d.lock("begin", th, true)
	if err != nil {
		return nil, err
	}
	if lease.Owner == "" {
		lease.Owner = d.opts.Owner
	}
	lease.Since, lease.Expires = time.Now().UTC(), time.Time{}
	w, err := d.begin(lease, lf)
	if err != nil {
		lf.Close() // releases the lock
		return nil, failFile("begin", th, err)
	}
	if !d.life.Add(w) {
		w.close()
		return nil, fail(ErrClosed, "begin", th, nil)
	}
	return w, nil
}

// lock opens thread's lock file (creating it when create is set; nil and
// no error when it does not exist and create is not) and takes its lock,
// without truncating or writing it. Another holder is ErrBusy, with the lease
// it recorded. A lock file removed or replaced (Delete) between the open and
// the lock is opened again, so that two writers never hold the locks of two
// files of one name.
func (d *Dir) lock(op, thread string, create bool) (*os.File, error) {
	flag := os.O_RDWR
	if create {
		flag |= os.O_CREATE
	}
	for range 10 {
		lf, fi, err := d.openFile(roleLock, lockName(thread), flag, 0o600)
		if err != nil {
			if !create && errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return nil, failFile(op, thread, err)
		}
		if err := tryLock(lf); err != nil {
			defer lf.Close()
			if errors.Is(err, errLocked) {
				h := readHolder(lf, thread)
				return nil, &Error{Code: ErrBusy, Op: op, Thread: thread, Holder: &h}
			}
			return nil, fail(ErrUnavailable, op, thread, scrub("lock", roleLock, err))
		}
		if now, err := os.Lstat(filepath.Join(d.path, lockName(thread))); err == nil && os.SameFile(now, fi) {
			return lf, nil
		}
		lf.Close() // deleted meanwhile: lock the file that is there now
	}
	return nil, fail(ErrUnavailable, op, thread, errors.New("the lock file keeps being replaced"))
}

func (d *Dir) begin(lease Lease, lf *os.File) (*dirWriter, error) {
	b, _ := json.Marshal(lease)
	// Truncated only now that it is locked: a lease recorded is never
	// erased by a writer that is then refused.
	if err := lf.Truncate(0); err != nil {
		return nil, scrub("truncate", roleLock, err)
	}
	if _, err := lf.WriteAt(append(b, '\n'), 0); err != nil {
		return nil, scrub("write", roleLock, err)
	}
	f, fi, err := d.openFile(roleThread, jsonlName(lease.Thread), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	c, err := d.count(lease.Thread, f, fi)
	if err == nil && c.torn > 0 {
		// A torn last line (its writer died mid-write) is cut off, so that
		// what this writer appends starts on a line of its own.
		err = scrub("truncate", roleThread, f.Truncate(c.size))
		c.torn = 0
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	w := &dirWriter{d: d, lease: lease, lf: lf, f: f, fi: fi, size: c.size, seq: c.lines,
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
	if err := d.replace(roleStop, stopName(thread), []byte(st.Active.RunID)); err != nil {
		return Lease{}, failFile("stop", thread, err)
	}
	return *st.Active, nil
}

// stopRequest returns the run id THREAD.stop names, "" when none.
func (d *Dir) stopRequest(thread string) string {
	b, err := d.readSmall(roleStop, stopName(thread), MaxIDBytes)
	if err != nil {
		return ""
	}
	return string(b)
}

// readHolder reads the lease of the holder of a lock file's lock. A holder
// that has the lock but has not recorded its lease yet (Begin truncates, then
// writes) is waited for briefly, so that a refusal names the run.
func readHolder(lf *os.File, thread string) Lease {
	l := readLease(lf, thread)
	for i := 0; l.RunID == "" && i < 20; i++ {
		time.Sleep(time.Millisecond)
		l = readLease(lf, thread)
	}
	return l
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
// same *Dir, and within DirOptions.Poll what other processes append. A
// thread whose file shrinks below what it read, or is deleted or replaced,
// ends it with an ErrLost error.
func (d *Dir) Follow(ctx context.Context, thread string, from uint64) iter.Seq2[Record, error] {
	return d.iterate(ctx, thread, from, true)
}

// tailReader reads one thread's file line by line, across polls: what it
// read is never read again, and an unterminated tail (a line being written,
// or torn by a writer that died) is scanned once for its end, not at each
// poll, and never held whole when it is over the limit.
type tailReader struct {
	d      *Dir
	thread string
	op     string
	f      *os.File
	fi     fs.FileInfo
	off    int64  // where the next line starts
	seq    uint64 // records read so far
	torn   int64  // bytes after off known to hold no '\n'
	lines  lineReader
	scan   []byte
}

func (r *tailReader) close() {
	if r.f != nil {
		r.f.Close()
	}
}

// open opens the thread's file: false when it does not exist yet. from > 1
// starts after the records counted last time when they all come before it.
func (r *tailReader) open(from uint64) (bool, error) {
	f, fi, err := r.d.openFile(roleThread, jsonlName(r.thread), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, failFile(r.op, r.thread, err)
	}
	r.f, r.fi = f, fi
	if from > 1 {
		r.d.mu.Lock()
		c := r.d.counts[r.thread]
		r.d.mu.Unlock()
		if c.lines < from && c.fi != nil && os.SameFile(c.fi, fi) {
			r.off, r.seq = c.size, c.lines
		}
	}
	return true, nil
}

// lost returns the ErrLost error of a file that shrank, went or was
// replaced.
func (r *tailReader) lost(why string) *Error {
	return &Error{Code: ErrLost, Op: r.op, Thread: r.thread, Seq: r.seq + 1, Err: errors.New(why)}
}

// gone checks that the thread's name still holds the file being read.
func (r *tailReader) gone() error {
	now, err := os.Lstat(filepath.Join(r.d.path, jsonlName(r.thread)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return r.lost("the thread was deleted")
	case err == nil && !os.SameFile(now, r.fi):
		return r.lost("the thread's file was replaced")
	}
	return nil
}

// next yields the complete records of the file up to end, from from; false
// when yield asked to stop or an error was yielded. read says whether
// records were read.
func (r *tailReader) next(end int64, from uint64, yield func(Record, error) bool) (ok, read bool) {
	if end < r.off {
		yield(Record{}, r.lost(fmt.Sprintf("the thread file shrank to %d bytes, below the %d bytes of the %d records read", end, r.off, r.seq)))
		return false, false
	}
	if end < r.off+r.torn { // a torn tail cut off by the next writer
		r.torn = end - r.off
	}
	if end == r.off+r.torn {
		return true, false
	}
	max := int64(r.d.maxLine())
	if r.torn > 0 {
		// Look for the end of the unterminated line in the new bytes only.
		p, err := r.indexNL(r.off+r.torn, end)
		if err != nil {
			yield(Record{}, fail(ErrUnavailable, r.op, r.thread, err))
			return false, false
		}
		if p < 0 {
			r.torn = end - r.off
			return true, false
		}
		if p-r.off > max {
			yield(Record{}, r.tooLarge(p-r.off))
			return false, false
		}
	}
	r.torn = 0
	r.lines.reset(io.NewSectionReader(r.f, r.off, end-r.off), int(max))
	for {
		line, n, err := r.lines.next()
		switch {
		case errors.Is(err, errLineTooLong):
			yield(Record{}, r.tooLarge(n))
			return false, read
		case err == io.EOF:
			r.torn = n
			return true, read
		case err != nil:
			yield(Record{}, fail(ErrUnavailable, r.op, r.thread, scrub("read", roleThread, err)))
			return false, read
		}
		read = true
		r.off += n + 1
		r.seq++
		if r.seq < from {
			continue
		}
		if !yield(parseLine(line, r.seq), nil) {
			return false, read
		}
	}
}

func (r *tailReader) tooLarge(n int64) *Error {
	return &Error{Code: ErrTooLarge, Op: r.op, Thread: r.thread, Seq: r.seq + 1,
		Err: fmt.Errorf("a line of %d bytes, over the limit of %d (DirOptions.MaxRecordBytes)", n, r.d.maxLine())}
}

// indexNL returns the offset of the first '\n' of the file in [from, end),
// -1 when there is none.
func (r *tailReader) indexNL(from, end int64) (int64, error) {
	if r.scan == nil {
		r.scan = make([]byte, 64<<10)
	}
	for from < end {
		n, err := r.f.ReadAt(r.scan[:min(int64(len(r.scan)), end-from)], from)
		if i := bytes.IndexByte(r.scan[:n], '\n'); i >= 0 {
			return from + int64(i), nil
		}
		from += int64(n)
		if err == io.EOF || n == 0 {
			return -1, nil
		}
		if err != nil {
			return -1, scrub("read", roleThread, err)
		}
	}
	return -1, nil
}

func (d *Dir) iterate(ctx context.Context, thread string, from uint64, follow bool) iter.Seq2[Record, error] {
	op := "read"
	if follow {
		op = "follow"
	}
	return func(yield func(Record, error) bool) {
		if err := CheckID(op, thread); err != nil {
			yield(Record{}, err)
			return
		}
		r := &tailReader{d: d, thread: thread, op: op}
		defer r.close()
		if follow {
			d.watch(thread)
			defer d.unwatch(thread)
		}
		var (
			limit int64 = -1 // where Read stops: the end it saw first
			tick  *time.Ticker
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
			var wake <-chan struct{}
			if follow {
				wake = d.changed(thread)
			}
			if r.f == nil {
				if _, err := r.open(from); err != nil {
					yield(Record{}, err)
					return
				}
			}
			if r.f != nil {
				st, err := r.f.Stat()
				if err != nil {
					yield(Record{}, fail(ErrUnavailable, op, thread, scrub("stat", roleThread, err)))
					return
				}
				end := st.Size()
				if !follow {
					if limit < 0 {
						limit = end
					}
					end = min(end, limit)
				}
				ok, read := r.next(end, from, yield)
				if !ok {
					return
				}
				if follow && !read {
					if err := r.gone(); err != nil {
						yield(Record{}, err)
						return
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
			case <-d.life.Done():
			}
		}
	}
}

// errLineTooLong: a line over the reader's limit.
var errLineTooLong = errors.New("line too long")

// lineReader yields the complete lines ('\n'-terminated) of a reader up to
// a limit, without their '\n'; a longer line is skipped, never held whole. A
// line is valid until the next call.
type lineReader struct {
	br   *bufio.Reader
	long []byte
	max  int
}

func (l *lineReader) reset(r io.Reader, max int) {
	l.max = max
	if l.br == nil {
		l.br = bufio.NewReaderSize(r, 256<<10)
	} else {
		l.br.Reset(r)
	}
}

// next returns the next line and its length n (without '\n'). A line over
// the limit is consumed and reported as errLineTooLong with its length; at
// the end of the reader, it returns io.EOF and n the length of an
// unterminated tail (0 if none).
func (l *lineReader) next() ([]byte, int64, error) {
	line, err := l.br.ReadSlice('\n')
	if err == nil {
		n := int64(len(line) - 1)
		if n > int64(l.max) {
			return nil, n, errLineTooLong
		}
		return line[:n], n, nil
	}
	if err != bufio.ErrBufferFull {
		return nil, int64(len(line)), err // io.EOF, possibly after a torn line
	}
	if cap(l.long) > 1<<20 {
		l.long = nil // do not keep a long line's buffer
	}
	l.long = append(l.long[:0], line...)
	n := int64(len(line))
	for {
		line, err = l.br.ReadSlice('\n')
		n += int64(len(line))
		if len(l.long)+len(line) <= l.max+1 {
			l.long = append(l.long, line...)
		}
		switch err {
		case nil:
			n-- // the '\n'
			if n > int64(l.max) {
				return nil, n, errLineTooLong
			}
			return l.long[:n], n, nil
		case bufio.ErrBufferFull:
		default:
			return nil, n, err
		}
	}
}

// Threads implements Journal: the threads with a file of records or a meta
// file. A file that is not a regular file, or a hashed name whose id file
// does not name it, is no thread.
func (d *Dir) Threads(ctx context.Context) ([]string, error) {
	if d.isClosed() {
		return nil, fail(ErrClosed, "threads", "", nil)
	}
	ents, err := os.ReadDir(d.path)
	if err != nil {
		return nil, fail(ErrUnavailable, "threads", "", scrub("read", roleDir, err))
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
		if info, err := e.Info(); err != nil || !meta && info.Size() == 0 {
			continue
		}
		var id string
		if hashed(base) {
			id, err = d.readID(base)
			ok = err == nil
		} else {
			id, ok = threadName(base)
		}
		if ok {
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
	if err := CheckID("stat", thread); err != nil {
		return th, err
	}
	if d.isClosed() {
		return th, fail(ErrClosed, "stat", thread, nil)
	}
	lf, _, err := d.openFile(roleLock, lockName(thread), os.O_RDONLY, 0)
	switch {
	case err == nil:
		held, lerr := locked(lf)
		if lerr == nil && held {
			l := readHolder(lf, thread)
			th.Active = &l
		}
		lf.Close()
		if lerr != nil {
			return th, fail(ErrUnavailable, "stat", thread, scrub("lock", roleLock, lerr))
		}
	case !errors.Is(err, fs.ErrNotExist):
		return th, failFile("stat", thread, err)
	}
	if b, err := d.readSmall(roleMeta, metaName(thread), 1<<20); err == nil {
		if err := json.Unmarshal(b, &th.Meta); err != nil {
			return th, fail(ErrCorrupt, "stat", thread, &fileError{op: "decode", role: roleMeta, err: err})
		}
		th.Updated = th.Meta.Created
	} else if !errors.Is(err, fs.ErrNotExist) {
		return th, failFile("stat", thread, err)
	}
	f, fi, err := d.openFile(roleThread, jsonlName(thread), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return th, nil
	}
	if err != nil {
		return th, failFile("stat", thread, err)
	}
	defer f.Close()
	c, err := d.count(thread, f, fi)
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
	if fi, err := os.Lstat(filepath.Join(d.path, jsonlName(thread))); err == nil && fi.Size() > 0 {
		return fail(ErrExists, "create", thread, nil)
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now().UTC()
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return fail(ErrInvalid, "create", thread, err)
	}
	if err := d.recordID("create", thread); err != nil {
		return err
	}
	// A hard link fails when the name exists: Create is atomic between
	// processes.
	if err := d.place(roleMeta, metaName(thread), b); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fail(ErrExists, "create", thread, nil)
		}
		return failFile("create", thread, err)
	}
	return nil
}

// Delete implements Journal: it takes the thread's lock (ErrBusy while a
// run holds it) and removes the thread's files. Followers of the thread end
// with an ErrLost error.
func (d *Dir) Delete(ctx context.Context, thread string) error {
	if err := CheckID("delete", thread); err != nil {
		return err
	}
	if d.isClosed() {
		return fail(ErrClosed, "delete", thread, nil)
	}
	lf, err := d.lock("delete", thread, false)
	if err != nil {
		return err
	}
	if lf != nil {
		defer lf.Close()
	}
	base := fileName(thread)
	names := []string{jsonlName(thread), metaName(thread), stopName(thread)}
	if hashed(base) {
		names = append(names, base+".id")
	}
	for _, name := range append(names, lockName(thread)) {
		if err := os.Remove(filepath.Join(d.path, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fail(ErrUnavailable, "delete", thread, scrub("remove", roleThread, err))
		}
	}
	d.mu.Lock()
	delete(d.counts, thread)
	d.wake(thread)
	d.mu.Unlock()
	return nil
}

// Close implements Journal: writers still open are closed (their locks
// released, as a dead process's would be), followers end.
func (d *Dir) Close() error {
	ws, _ := d.life.Close()
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
	lf, f *os.File    // nil once closed
	fi    fs.FileInfo // f's
	size  int64       // bytes of complete lines
	seq   uint64      // records stored
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
		if w.d.stopRequest(w.lease.Thread) == w.lease.RunID {
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
	for i, r := range recs {
		if len(r.Data) > w.d.opts.MaxRecordBytes {
			return 0, fail(ErrTooLarge, "append", th, fmt.Errorf("record %d of %d: %d bytes, over the limit of %d (DirOptions.MaxRecordBytes)", i+1, len(recs), len(r.Data), w.d.opts.MaxRecordBytes))
		}
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
		return w.seq, &Error{Code: ErrUnavailable, Op: "append", Thread: th, Seq: w.seq + 1, Err: scrub("write", roleThread, err)}
	}
	if w.d.opts.Sync {
		if err := w.f.Sync(); err != nil {
			return w.seq, &Error{Code: ErrUnavailable, Op: "append", Thread: th, Seq: w.seq + 1, Err: scrub("sync", roleThread, err)}
		}
	}
	w.size += int64(len(w.buf))
	w.seq += uint64(len(recs))
	if cap(w.buf) > 1<<20 {
		w.buf = nil // do not keep a large batch's buffer
	}
	w.d.appended(th, lineCount{fi: w.fi, size: w.size, lines: w.seq})
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
	w.d.life.Remove(w)
	if err != nil {
		return fail(ErrUnavailable, "end", w.lease.Thread, scrub("sync", roleThread, err))
	}
	return nil
}

// close closes the files, releasing the lock, and ends watchStop; w.mu is
// held.
func (w *dirWriter) close() {
	if w.f != nil {
		close(w.quit)
		<-w.watching
		if w.d.stopRequest(w.lease.Thread) == w.lease.RunID {
			os.Remove(filepath.Join(w.d.path, stopName(w.lease.Thread))) // the request was for this run
		}
		w.f.Close()
		w.lf.Close()
		w.f, w.lf = nil, nil
	}
}

// errLocked is tryLock's refusal: another open of the file holds the lock.
var errLocked = errors.New("locked by another writer")
