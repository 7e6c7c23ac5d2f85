//go:build unix

package journal_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/journal"
)

// longID is a thread id whose files have a hashed name.
var longID = strings.Repeat("a/", 200)

func hashedName(id string) string {
	s := sha256.Sum256([]byte(id))
	return "#" + hex.EncodeToString(s[:])
}

// exercise runs every operation of a file journal on thread and returns the
// errors they gave (nil ones left out). None may block.
func exercise(t *testing.T, d *journal.Dir, thread string) []error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var errs []error
	keep := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	keep(d.Create(ctx, thread, journal.Meta{Owner: "alice"}))
	w, err := d.Begin(ctx, journal.Lease{Thread: thread, RunID: "r1"})
	keep(err)
	if err == nil {
		_, err = w.Append(ctx, journal.Record{Kind: journal.KindEvent, Data: []byte(`{"type":"RUN_STARTED","threadId":"x","runId":"r1"}`)})
		keep(err)
		_, err = d.Stop(ctx, thread)
		keep(err)
		keep(w.End(ctx))
	}
	_, err = d.Stat(ctx, thread)
	keep(err)
	for _, err := range d.Read(ctx, thread, 1) {
		keep(err)
	}
	fctx, fcancel := context.WithTimeout(ctx, 100*time.Millisecond)
	for _, err := range d.Follow(fctx, thread, 1) {
		keep(err)
	}
	fcancel()
	_, err = d.Threads(ctx)
	keep(err)
	keep(d.Delete(ctx, thread))
	require.NoError(t, ctx.Err(), "an operation blocked")
	return errs
}

// TestDirPlantedLinks plants a symbolic link to a victim file under each of
// a thread's file names: no operation of the journal writes, truncates or
// reads through it.
func TestDirPlantedLinks(t *testing.T) {
	for _, tc := range []struct {
		name, thread, file string
	}{
		{"lock", "t1", "t1.lock"},
		{"records", "t1", "t1.jsonl"},
		{"meta", "t1", "t1.meta"},
		{"stop", "t1", "t1.stop"},
		{"id of a hashed name", longID, hashedName(longID) + ".id"},
		{"records of a hashed name", longID, hashedName(longID) + ".jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			victim := filepath.Join(t.TempDir(), "victim")
			const content = "the victim's bytes\n"
			require.NoError(t, os.WriteFile(victim, []byte(content), 0o644))
			dir := t.TempDir()
			d, err := journal.OpenDir(dir, &journal.DirOptions{Poll: 5 * time.Millisecond})
			require.NoError(t, err)
			defer d.Close()
			require.NoError(t, os.Symlink(victim, filepath.Join(dir, tc.file)))

			errs := exercise(t, d, tc.thread)
			b, err := os.ReadFile(victim)
			require.NoError(t, err)
			assert.Equal(t, content, string(b), "the victim is untouched")
			for _, err := range errs {
				assert.NotContains(t, err.Error(), dir, "errors name no path")
				assert.NotContains(t, err.Error(), "victim", "errors name no path")
			}
			if tc.name != "stop" && tc.name != "meta" {
				// Stop's rename and Delete replace or remove a planted stop
				// link; a meta link makes Create say the thread exists.
				require.NotEmpty(t, errs, "the link is refused")
				assert.ErrorIs(t, errs[len(errs)-1], journal.ErrCorrupt, "refused as not a journal file: %v", errs)
			}
		})
	}
}

// TestDirFIFO puts a FIFO under each of a thread's file names: no operation
// blocks on it (before, attach and watch hung, deaf to SIGTERM).
func TestDirFIFO(t *testing.T) {
	for _, file := range []string{"t1.jsonl", "t1.lock", "t1.meta", "t1.stop"} {
		t.Run(file, func(t *testing.T) {
			dir := t.TempDir()
			d, err := journal.OpenDir(dir, &journal.DirOptions{Poll: 5 * time.Millisecond})
			require.NoError(t, err)
			defer d.Close()
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, file), 0o600))
			errs := exercise(t, d, "t1")
			if file != "t1.stop" {
				assert.True(t, slices.ContainsFunc(errs, func(err error) bool { return errors.Is(err, journal.ErrCorrupt) }),
					"a FIFO is no journal file: %v", errs)
			}
		})
	}
}

// TestOpenDirChecks: the directory is made 0700, and one another user owns
// or others may write in is refused with ErrInvalid.
func TestOpenDirChecks(t *testing.T) {
	t.Run("created 0700", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "a", "journal")
		d, err := journal.OpenDir(dir, nil)
		require.NoError(t, err)
		defer d.Close()
		fi, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	})
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		ok    bool
	}{
		{"0755 kept", func(t *testing.T, dir string) { require.NoError(t, os.Chmod(dir, 0o755)) }, true},
		{"0777", func(t *testing.T, dir string) { require.NoError(t, os.Chmod(dir, 0o777)) }, false},
		{"group-writable", func(t *testing.T, dir string) { require.NoError(t, os.Chmod(dir, 0o770)) }, false},
		{"world-writable sticky", func(t *testing.T, dir string) { require.NoError(t, os.Chmod(dir, 0o1777)) }, false},
		{"another owner", func(t *testing.T, dir string) {
			if os.Geteuid() != 0 {
				t.Skip("chown needs root")
			}
			require.NoError(t, os.Lchown(dir, 12345, 12345))
		}, false},
		{"a file", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(dir))
			require.NoError(t, os.WriteFile(dir, nil, 0o600))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "journal")
			require.NoError(t, os.Mkdir(dir, 0o700))
			tc.setup(t, dir)
			d, err := journal.OpenDir(dir, nil)
			if tc.ok {
				require.NoError(t, err)
				d.Close()
				return
			}
			require.ErrorIs(t, err, journal.ErrInvalid)
			assert.NotContains(t, err.Error(), dir, "the error names no path")
			assert.Contains(t, err.Error(), "journal directory")
		})
	}
}

// TestDirErrorsNameNoPath makes every operation fail in the ways root cannot
// bypass and checks that no error carries the journal's directory. Before,
// an id over 186 bytes failed with the thread file's absolute path.
func TestDirErrorsNameNoPath(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "secret-journal-dir")
	d, err := journal.OpenDir(dir, nil)
	require.NoError(t, err)
	defer d.Close()
	var errs []error
	for _, id := range []string{"t1", longID, strings.Repeat("é", 250)} {
		// Directories where files should be: EISDIR, ENOTEMPTY…
		for _, suffix := range []string{".jsonl", ".lock", ".meta", ".stop"} {
			name := filepath.Join(dir, hashedOr(id)+suffix)
			require.NoError(t, os.MkdirAll(filepath.Join(name, "x"), 0o700))
		}
		errs = append(errs, exercise(t, d, id)...)
	}
	require.NoError(t, os.RemoveAll(dir)) // the directory gone: ENOENT everywhere
	for _, id := range []string{"t1", longID} {
		errs = append(errs, exercise(t, d, id)...)
	}
	require.NotEmpty(t, errs)
	for _, err := range errs {
		assert.NotContains(t, err.Error(), parent, "no error names the journal's path")
		assert.Less(t, len(err.Error()), 400, "errors are bounded")
	}
}

// hashedOr is the base name of id's files for the ids of
// TestDirErrorsNameNoPath.
func hashedOr(id string) string {
	if id == "t1" {
		return id
	}
	return hashedName(id)
}

// TestDirRecordLimit: Append refuses a record over MaxRecordBytes, and
// readers end at a line over it with ErrTooLarge without holding it in
// memory (before, a 16 MiB line was read whole).
func TestDirRecordLimit(t *testing.T) {
	dir := t.TempDir()
	opts := &journal.DirOptions{MaxRecordBytes: 64 << 10, Poll: 5 * time.Millisecond}
	d, err := journal.OpenDir(dir, opts)
	require.NoError(t, err)
	defer d.Close()
	w, err := d.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r1"})
	require.NoError(t, err)
	_, err = w.Append(t.Context(), journal.Record{Kind: journal.KindEvent, Data: bigData(65<<10 + 1)})
	require.ErrorIs(t, err, journal.ErrTooLarge)
	_, err = w.Append(t.Context(), journal.Record{Kind: journal.KindEvent, Data: bigData(64 << 10)})
	require.NoError(t, err, "a record at the limit")
	require.NoError(t, w.End(t.Context()))

	// Another writer (older, or with a larger limit) left a 16 MiB line.
	f, err := os.OpenFile(d.File("t1"), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(append(bigData(16<<20), '\n'))
	require.NoError(t, err)
	_, err = f.Write(append(bigData(10), '\n'))
	require.NoError(t, err)
	require.NoError(t, f.Close())

	for _, follow := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		seq := d.Read
		if follow {
			seq = d.Follow
		}
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		var got []uint64
		var errs []error
		for r, err := range seq(ctx, "t1", 1) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			got = append(got, r.Seq)
		}
		runtime.ReadMemStats(&ms1)
		cancel()
		assert.Equal(t, []uint64{1}, got, "follow=%v: the records before the long line", follow)
		require.Len(t, errs, 1, "follow=%v", follow)
		require.ErrorIs(t, errs[0], journal.ErrTooLarge)
		var je *journal.Error
		require.ErrorAs(t, errs[0], &je)
		assert.Equal(t, uint64(2), je.Seq, "the error names the record")
		assert.Less(t, ms1.TotalAlloc-ms0.TotalAlloc, uint64(4<<20), "follow=%v: the long line is not held", follow)
	}
}

func bigData(n int) []byte {
	const pre, post = `{"type":"CUSTOM","value":"`, `"}`
	b := bytes.Repeat([]byte("x"), n)
	copy(b, pre)
	copy(b[n-len(post):], post)
	return b
}

// TestFollowShrunk: a follower of a file that shrinks under it, or is
// replaced, ends with ErrLost instead of staying silently behind; a torn
// tail cut off by the next writer is no loss.
func TestFollowShrunk(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(t *testing.T, d *journal.Dir, size int64)
		lost  bool
	}{
		{"truncated", func(t *testing.T, d *journal.Dir, size int64) {
			require.NoError(t, os.Truncate(d.File("t1"), size/2))
		}, true},
		{"rewritten shorter", func(t *testing.T, d *journal.Dir, size int64) {
			require.NoError(t, os.WriteFile(d.File("t1"), []byte(`{"type":"RUN_STARTED"}`+"\n"), 0o600))
		}, true},
		{"replaced by a longer file", func(t *testing.T, d *journal.Dir, size int64) {
			b, err := os.ReadFile(d.File("t1"))
			require.NoError(t, err)
			tmp := d.File("t1") + ".new"
			require.NoError(t, os.WriteFile(tmp, append(b, b...), 0o600))
			require.NoError(t, os.Rename(tmp, d.File("t1")))
		}, true},
		{"torn tail cut by the next writer", func(t *testing.T, d *journal.Dir, size int64) {
			f, err := os.OpenFile(d.File("t1"), os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, err = f.WriteString(`{"type":"TEXT_MESS`)
			require.NoError(t, err)
			require.NoError(t, f.Close())
			time.Sleep(30 * time.Millisecond) // the follower sees the torn tail
			w, err := d.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r2"})
			require.NoError(t, err)
			_, err = w.Append(t.Context(), journal.Record{Kind: journal.KindEvent, Data: []byte(`{"type":"RUN_STARTED","n":4}`)})
			require.NoError(t, err)
			require.NoError(t, w.End(t.Context()))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := &journal.DirOptions{Poll: 5 * time.Millisecond}
			d, err := journal.OpenDir(dir, opts)
			require.NoError(t, err)
			defer d.Close()
			w, err := d.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r1"})
			require.NoError(t, err)
			for i := range 3 {
				_, err = w.Append(t.Context(), journal.Record{Kind: journal.KindEvent, Data: []byte(`{"type":"RUN_STARTED","n":` + strconv.Itoa(i+1) + `}`)})
				require.NoError(t, err)
			}
			require.NoError(t, w.End(t.Context()))
			fi, err := os.Stat(d.File("t1"))
			require.NoError(t, err)

			peer, err := journal.OpenDir(dir, opts) // another process
			require.NoError(t, err)
			defer peer.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			var seqs []uint64
			var errs []error
			for r, err := range peer.Follow(ctx, "t1", 1) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				seqs = append(seqs, r.Seq)
				if len(seqs) == 3 {
					tc.fault(t, d, fi.Size())
				}
				if len(seqs) == 4 {
					cancel()
				}
			}
			if !tc.lost {
				assert.Empty(t, errs)
				assert.Equal(t, []uint64{1, 2, 3, 4}, seqs)
				return
			}
			require.NoError(t, t.Context().Err())
			require.Len(t, errs, 1, "the follower ends with one error (before, it waited silently)")
			assert.ErrorIs(t, errs[0], journal.ErrLost)
			assert.Equal(t, []uint64{1, 2, 3}, seqs)
		})
	}
}

// TestFollowTornTailReadOnce: a follower scans an unterminated tail once,
// not at every poll (before, a 200 MB tail was read whole every 50 ms by
// every follower). It counts the bytes the process read (rchar).
func TestFollowTornTailReadOnce(t *testing.T) {
	if _, err := readChars(); err != nil {
		t.Skip("no /proc/self/io:", err)
	}
	dir := t.TempDir()
	d, err := journal.OpenDir(dir, &journal.DirOptions{Poll: time.Millisecond})
	require.NoError(t, err)
	defer d.Close()
	const tail = 4 << 20
	require.NoError(t, os.WriteFile(d.File("t1"), append([]byte(`{"type":"RUN_STARTED"}`+"\n"), bigData(tail)...), 0o600))
	before, err := readChars()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	n := 0
	for _, err := range d.Follow(ctx, "t1", 1) {
		require.NoError(t, err)
		n++
	}
	after, err := readChars()
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the complete record")
	t.Logf("read %d bytes for a %d-byte torn tail over 300 ms of 1 ms polls", after-before, tail)
	assert.Less(t, after-before, int64(3*tail), "read %d bytes for a %d-byte tail over about 300 polls", after-before, tail)
}

// readChars returns the bytes this process read so far (rchar).
func readChars() (int64, error) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.New("no rchar")
}

// TestDirBusyNamesHolder: a refused writer or Delete always names the run
// holding the lease, even when it asks in the instant between the holder's
// lock and the lease it records.
func TestDirBusyNamesHolder(t *testing.T) {
	dir := t.TempDir()
	a, err := journal.OpenDir(dir, nil)
	require.NoError(t, err)
	defer a.Close()
	b, err := journal.OpenDir(dir, nil)
	require.NoError(t, err)
	defer b.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			if w, err := a.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r" + strconv.Itoa(i)}); err == nil {
				_ = w.End(ctx)
			}
		}
	}()
	busy := 0
	for i := 0; busy < 300 && ctx.Err() == nil; i++ {
		var err error
		if i%2 == 0 {
			var w journal.Writer
			if w, err = b.Begin(ctx, journal.Lease{Thread: "t1", RunID: "mine"}); err == nil {
				_ = w.End(ctx)
			}
		} else {
			err = b.Delete(ctx, "t1")
		}
		var je *journal.Error
		if errors.As(err, &je) && je.Code == journal.ErrBusy {
			busy++
			require.NotNil(t, je.Holder)
			require.NotEmpty(t, je.Holder.RunID, "refusal %d names the holder's run: %v", busy, err)
		}
	}
	cancel()
	<-done
	assert.Equal(t, 300, busy, "refusals seen")
}
