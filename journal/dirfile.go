package journal

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The names of a thread's files, and how they are opened.
//
// A thread's files share one base name (fileName): the id itself when it is
// made of letters, digits, '-', '_' and '.' (not first); else "~" and the id
// in unpadded base64url when that fits a file name; else, for a long id, "#"
// and the hex SHA-256 of the id, with the id itself kept in BASE.id so that
// Threads can name the thread. Every base name fits NAME_MAX (255 bytes) with
// the longest suffix, ".jsonl", so that every id CheckID accepts has files.
// Names made by earlier versions (plain or "~") are the same today.
//
// Every open is O_NOFOLLOW and O_NONBLOCK and checks that what it opened is a
// regular file: a symbolic link or a FIFO planted under one of the names is
// refused (ErrCorrupt) before any byte is read or written, so the journal
// never writes outside its directory and never blocks on a FIFO. Files are
// created by name only with O_CREATE on that check, or under a random
// temporary name (O_EXCL) linked or renamed into place, which replaces a
// planted link instead of following it.

// maxNameBytes bounds a base name: NAME_MAX less the longest suffix.
const maxNameBytes = 255 - len(".jsonl")

// The roles of a thread's files, as errors name them (never by path).
const (
	roleThread = "thread file"
	roleLock   = "lock file"
	roleMeta   = "meta file"
	roleStop   = "stop file"
	roleID     = "id file"
	roleTemp   = "temporary file"
	roleDir    = "journal directory"
)

// fileName is the base name of a thread's files (see above).
func fileName(thread string) string {
	ok := len(thread) <= maxNameBytes && thread != "" && thread[0] != '.'
	for i := 0; ok && i < len(thread); i++ {
		c := thread[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	if ok {
		return thread
	}
	if base64.RawURLEncoding.EncodedLen(len(thread)) < maxNameBytes {
		return "~" + base64.RawURLEncoding.EncodeToString([]byte(thread))
	}
	sum := sha256.Sum256([]byte(thread))
	return "#" + hex.EncodeToString(sum[:])
}

// hashed reports whether base is a hashed name, whose id is in BASE.id.
func hashed(base string) bool { return strings.HasPrefix(base, "#") }

// threadName reverses fileName for plain and "~" names; hashed names are
// read from their id file (Dir.readID).
func threadName(name string) (string, bool) {
	if enc, ok := strings.CutPrefix(name, "~"); ok {
		b, err := base64.RawURLEncoding.DecodeString(enc)
		return string(b), err == nil && len(b) > 0
	}
	return name, name != "" && fileName(name) == name
}

// errNotRegular: a journal file's name holds something else (a symbolic
// link, a FIFO, a directory): ErrCorrupt.
var errNotRegular = errors.New("not a regular file")

// fileError is an error about one of the journal's files that names the
// file by its role ("thread file"), never by its path, so that no error
// carries the journal's directory to a client.
type fileError struct {
	op   string // what was done: "open", "read", "write", …
	role string
	err  error
}

func (e *fileError) Error() string { return e.op + " " + e.role + ": " + e.err.Error() }

func (e *fileError) Unwrap() error { return e.err }

// scrub returns err about the file of role without the paths an *os.PathError
// or *os.LinkError would carry.
func scrub(op, role string, err error) error {
	var fe *fileError
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		return fe
	case errors.As(err, &pe):
		return &fileError{op: op, role: role, err: pe.Err}
	case errors.As(err, &le):
		return &fileError{op: op, role: role, err: le.Err}
	}
	return &fileError{op: op, role: role, err: err}
}

// failFile returns the *Error of a failed file operation: ErrCorrupt for
// something that is not a regular file, ErrUnavailable otherwise.
func failFile(op, thread string, err error) *Error {
	if errors.Is(err, errNotRegular) {
		return fail(ErrCorrupt, op, thread, err)
	}
	return fail(ErrUnavailable, op, thread, err)
}

// openFile opens the file name of the journal's directory, refusing (with
// errNotRegular) anything but a regular file without following a link or
// waiting on a FIFO.
func (d *Dir) openFile(role, name string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(filepath.Join(d.path, name), flag|openFlags, perm)
	if err != nil {
		if isLinkRefusal(err) {
			return nil, nil, &fileError{op: "open", role: role, err: fmt.Errorf("%w (a symbolic link)", errNotRegular)}
		}
		return nil, nil, scrub("open", role, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, scrub("stat", role, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fileError{op: "open", role: role, err: fmt.Errorf("%w (%v)", errNotRegular, fi.Mode().Type())}
	}
	return f, fi, nil
}

// readSmall reads the file name, at most limit bytes of it (more is an
// error).
func (d *Dir) readSmall(role, name string, limit int64) ([]byte, error) {
	f, _, err := d.openFile(role, name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, scrub("read", role, err)
	}
	if int64(len(b)) > limit {
		return nil, &fileError{op: "read", role: role, err: fmt.Errorf("over %d bytes", limit)}
	}
	return b, nil
}

// place writes data to a new file name of the journal's directory, failing
// with an error matching fs.ErrExist when the name is taken (by anything,
// a planted link included): a temporary file linked into place, so that
// readers see the whole file or none.
func (d *Dir) place(role, name string, data []byte) error {
	tmp, err := d.writeTemp(role, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	return scrub("link", role, os.Link(tmp, filepath.Join(d.path, name)))
}

// replace writes data to the file name of the journal's directory,
// replacing what was there (a planted link included, never followed).
func (d *Dir) replace(role, name string, data []byte) error {
	tmp, err := d.writeTemp(role, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(d.path, name)); err != nil {
		os.Remove(tmp)
		return scrub("rename", role, err)
	}
	return nil
}

// writeTemp writes data to a new temporary file of the journal's
// directory (O_EXCL: never an existing file) and returns its path.
func (d *Dir) writeTemp(role string, data []byte) (string, error) {
	tmp, err := os.CreateTemp(d.path, ".tmp-*")
	if err != nil {
		return "", scrub("create", roleTemp, err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", scrub("write", role, err)
	}
	return tmp.Name(), nil
}

// recordID writes the id file of a thread whose name is hashed (nothing
// for the others), or checks the one there.
func (d *Dir) recordID(op, thread string) error {
	base := fileName(thread)
	if !hashed(base) {
		return nil
	}
	got, err := d.readID(base)
	if errors.Is(err, fs.ErrNotExist) {
		err = d.place(roleID, base+".id", []byte(thread))
		if errors.Is(err, fs.ErrExist) { // placed by another process meanwhile
			got, err = d.readID(base)
		} else if err == nil {
			return nil
		}
	}
	if err != nil {
		return failFile(op, thread, err)
	}
	if got != thread {
		return fail(ErrCorrupt, op, thread, errors.New("the id file of the thread's hashed name holds another id"))
	}
	return nil
}

// readID returns the id kept in the id file of the hashed name base.
func (d *Dir) readID(base string) (string, error) {
	b, err := d.readSmall(roleID, base+".id", MaxIDBytes)
	if err != nil {
		return "", err
	}
	id := string(b)
	if CheckID("threads", id) != nil || fileName(id) != base {
		return "", &fileError{op: "read", role: roleID, err: errors.New("holds no id of this name")}
	}
	return id, nil
}
