package journal_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/journal"
)

// childEnv names the directory a re-executed test binary writes into.
const childEnv = "AGVIEW_JOURNAL_KILL_CHILD"

func bigEvent(i int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"%d %0512d"}`, i, i))
}

// writeForever is the child: it appends batches to thread t1 and prints the
// last sequence number after each, until it is killed.
func writeForever(dir string) {
	d, err := journal.OpenDir(dir, &journal.DirOptions{Owner: "child:" + strconv.Itoa(os.Getpid())})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	w, err := d.Begin(context.Background(), journal.Lease{Thread: "t1", RunID: "r1"})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	for i := 1; ; i += 7 {
		recs := make([]journal.Record, 7)
		for k := range recs {
			recs[k] = journal.Record{Kind: journal.KindEvent, Data: bigEvent(i + k)}
		}
		last, err := w.Append(context.Background(), recs...)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		fmt.Println(last)
	}
}

// TestKillWriter re-executes the test binary as a writer, kills it with
// SIGKILL in the middle of its appends, and checks what it leaves: every
// record before the one being written intact and in order, the lease
// released by the kernel, and a new writer going on after the last record.
func TestKillWriter(t *testing.T) {
	if dir := os.Getenv(childEnv); dir != "" {
		writeForever(dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestKillWriter$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(out)
	var acked uint64
	for acked < 2000 && lines.Scan() {
		n, err := strconv.ParseUint(lines.Text(), 10, 64)
		require.NoError(t, err, "child said %q", lines.Text())
		acked = n
	}
	require.GreaterOrEqual(t, acked, uint64(2000), "the child appended")

	d, err := journal.OpenDir(dir, nil)
	require.NoError(t, err)
	defer d.Close()
	_, err = d.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r2"})
	require.ErrorIs(t, err, journal.ErrBusy, "another process holds the lease")
	var je *journal.Error
	require.ErrorAs(t, err, &je)
	assert.Equal(t, fmt.Sprintf("child:%d", cmd.Process.Pid), je.Holder.Owner, "the holder is the child")

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL)) // in the middle of its appends
	_ = cmd.Wait()

	st, err := d.Stat(t.Context(), "t1")
	require.NoError(t, err)
	assert.Nil(t, st.Active, "the kernel released the dead writer's lock")
	assert.GreaterOrEqual(t, st.Last, acked, "every acknowledged record is there")
	var n uint64
	for r, err := range d.Read(t.Context(), "t1", 1) {
		require.NoError(t, err)
		n++
		require.Equal(t, n, r.Seq)
		require.JSONEq(t, string(bigEvent(int(n))), string(r.Data), "record %d intact", n)
	}
	assert.Equal(t, st.Last, n, "reads agree with stat")

	w, err := d.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r2"})
	require.NoError(t, err, "the thread is free")
	last, err := w.Append(t.Context(), journal.Record{Kind: journal.KindEvent, Data: bigEvent(int(n) + 1)})
	require.NoError(t, err)
	assert.Equal(t, n+1, last, "the next writer goes on after the last complete record")
	require.NoError(t, w.End(t.Context()))
}

// TestTornLastLine leaves a half-written line at the end of a thread's file,
// as a writer killed in the middle of write(2) does: readers skip it, and the
// next writer cuts it off before appending.
func TestTornLastLine(t *testing.T) {
	dir := t.TempDir()
	d, err := journal.OpenDir(dir, nil)
	require.NoError(t, err)
	defer d.Close()
	w, err := d.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r1"})
	require.NoError(t, err)
	_, err = w.Append(t.Context(), journal.Record{Kind: journal.KindEvent, Data: bigEvent(1)}, journal.Record{Kind: journal.KindEvent, Data: bigEvent(2)})
	require.NoError(t, err)
	require.NoError(t, w.End(t.Context()))

	f, err := os.OpenFile(d.File("t1"), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","del`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	for _, peer := range []bool{false, true} {
		j := journal.Journal(d)
		if peer {
			p, err := journal.OpenDir(dir, nil)
			require.NoError(t, err)
			defer p.Close()
			j = p
		}
		st, err := j.Stat(t.Context(), "t1")
		require.NoError(t, err)
		assert.Equal(t, uint64(2), st.Last, "the torn line is no record")
		var seqs []uint64
		for r, err := range j.Read(t.Context(), "t1", 1) {
			require.NoError(t, err)
			seqs = append(seqs, r.Seq)
		}
		assert.Equal(t, []uint64{1, 2}, seqs)
	}

	w, err = d.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r2"})
	require.NoError(t, err)
	last, err := w.Append(t.Context(), journal.Record{Kind: journal.KindEvent, Data: bigEvent(3)})
	require.NoError(t, err)
	assert.Equal(t, uint64(3), last)
	require.NoError(t, w.End(t.Context()))
	var got []string
	for r, err := range d.Read(t.Context(), "t1", 1) {
		require.NoError(t, err)
		got = append(got, string(r.Data))
	}
	require.Len(t, got, 3)
	assert.JSONEq(t, string(bigEvent(3)), got[2], "the new record stands on a line of its own")
}
