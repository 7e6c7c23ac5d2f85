package benchwork

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Thread returns the path of the "thread" workload of the given number of
// messages: a long conversation of many short messages, which the chat and
// swarm profiles of the shared generator do not cover. One run; a subagent
// sends every message as TEXT_MESSAGE_START, one TEXT_MESSAGE_CONTENT of 60
// to 100 characters and TEXT_MESSAGE_END; every tenth message also carries a
// tool call (START, one ARGS, END) answered by a TOOL_CALL_RESULT. The
// workload is generated here (it needs no ../shared), deterministically
// from Seed, and cached under testdata/bench/ like Stream's. The manifest
// is not written; ThreadMessageBytes gives what a view should hold.
func Thread(tb testing.TB, messages int) string {
	tb.Helper()
	return generated(tb, "thread-"+strconv.Itoa(messages)+".jsonl", func(w io.Writer) error {
		return WriteThread(w, messages)
	})
}

// generated returns the path of the workload file name under testdata/bench/
// at the module root, writing it with write first when it is missing or
// stale: when its first bytes are not those write writes now (the generator
// changed since the file was cached). The file is written under a temporary
// name and renamed into place, so a reader (another test binary) never sees
// a partial file.
func generated(tb testing.TB, name string, write func(io.Writer) error) string {
	tb.Helper()
	root := ModuleRoot()
	if root == "" {
		tb.Fatalf("benchwork: cannot find the module root")
	}
	path := filepath.Join(root, "testdata", "bench", name)
	mu.Lock()
	defer mu.Unlock()
	if fresh(path, write) {
		return path
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatalf("benchwork: %v", err)
	}
	tmp := path + "." + strconv.Itoa(os.Getpid()) + ".tmp"
	defer os.Remove(tmp)
	f, err := os.Create(tmp)
	if err != nil {
		tb.Fatalf("benchwork: %v", err)
	}
	werr := write(f)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		tb.Fatalf("benchwork: writing the workload %s: %v", name, werr)
	}
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatalf("benchwork: %v", err)
	}
	return path
}

// freshPrefix is how many leading bytes of a cached workload fresh compares
// with what its generator writes now.
const freshPrefix = 64 << 10

// fresh reports whether the file at path exists and starts with the bytes
// write writes first (all of them, when it writes fewer than freshPrefix).
// Generators are deterministic, and a change to one changes the start of its
// workload, so this catches a file cached before the change without writing
// the whole workload again.
func fresh(path string, write func(io.Writer) error) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	want := prefixOf(write, freshPrefix)
	got := make([]byte, len(want)+1)
	n, _ := io.ReadFull(f, got)
	if len(want) < freshPrefix {
		return n == len(want) && bytes.Equal(got[:n], want) // the whole workload
	}
	return n >= len(want) && bytes.Equal(got[:len(want)], want)
}

// prefixOf returns the first n bytes write writes (fewer when it writes
// fewer). It stops write once it has them, by a panic it recovers.
func prefixOf(write func(io.Writer) error, n int) (b []byte) {
	w := &prefixWriter{limit: n}
	defer func() {
		if r := recover(); r != nil && r != errPrefixDone {
			panic(r)
		}
		b = w.buf
	}()
	_ = write(w)
	return w.buf
}

// errPrefixDone stops a generator once prefixWriter has the bytes it needs.
var errPrefixDone = errors.New("benchwork: prefix collected")

// prefixWriter keeps the first limit bytes written to it.
type prefixWriter struct {
	buf   []byte
	limit int
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p[:min(len(p), w.limit-len(w.buf))]...)
	if len(w.buf) >= w.limit {
		panic(errPrefixDone)
	}
	return len(p), nil
}

// threadWords are the words thread messages are made of.
var threadWords = []string{"the", "bus", "fleet", "depot", "charger", "winter", "range", "battery", "grid",
	"route", "driver", "cost", "plan", "city", "budget", "tender", "kWh", "per", "day", "and", "we", "need",
	"more", "data", "on", "night", "charging", "at", "two", "sites"}

// threadText appends to text a message of 60 to 100 characters made of
// threadWords (which JSON and %q quote alike) and returns it.
func threadText(r *rand.Rand, text []byte) []byte {
	start, n := len(text), 60+r.IntN(41)
	for len(text)-start < n {
		if len(text) > start {
			text = append(text, ' ')
		}
		text = append(text, threadWords[r.IntN(len(threadWords))]...)
	}
	return text[:start+n]
}

// WriteThread writes the thread workload of the given number of messages to
// w as JSONL (see Thread).
func WriteThread(w io.Writer, messages int) error {
	r := rand.New(rand.NewPCG(Seed, uint64(messages)))
	bw := bufio.NewWriterSize(w, 64<<10)
	line := func(format string, args ...any) {
		fmt.Fprintf(bw, format, args...)
		bw.WriteByte('\n')
	}
	line(`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-1"}`)
	line(`{"type":"SUBAGENT_STARTED","subagentRunId":"sa-1","name":"assistant"}`)
	text := make([]byte, 0, 128)
	for i := range messages {
		text = threadText(r, text[:0])
		line(`{"type":"TEXT_MESSAGE_START","messageId":"m-%d","role":"assistant","subagentRunId":"sa-1"}`, i)
		line(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-%d","delta":%q}`, i, text)
		line(`{"type":"TEXT_MESSAGE_END","messageId":"m-%d"}`, i)
		if i%10 == 9 {
			line(`{"type":"TOOL_CALL_START","toolCallId":"tc-%d","toolCallName":"lookup","parentMessageId":"m-%d","subagentRunId":"sa-1"}`, i, i)
			line(`{"type":"TOOL_CALL_ARGS","toolCallId":"tc-%d","delta":"{\"q\":\"%d\"}"}`, i, i)
			line(`{"type":"TOOL_CALL_END","toolCallId":"tc-%d"}`, i)
			line(`{"type":"TOOL_CALL_RESULT","messageId":"r-%d","toolCallId":"tc-%d","content":"result %d","subagentRunId":"sa-1"}`, i, i, i)
		}
	}
	line(`{"type":"SUBAGENT_FINISHED","subagentRunId":"sa-1"}`)
	line(`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-1"}`)
	return bw.Flush()
}

// ThreadRuns returns the path of the "thread-runs" workload: runs runs on
// one thread, as a client holding the conversation drives them (package
// client's Run and Continue). Run k starts with a RUN_STARTED whose input is
// what client.NextInput sends: threadId, runId, protocolVersion, the (empty) state, the whole
// history so far — every message of the earlier runs exactly as the view's
// MessageList gives it (ids, roles, contents, subagentRunId, tool calls and
// tool results) — then the run's new user message, and empty tools,
// context and forwardedProps. A subagent of its own (sa-k) then sends
// perRun short messages as in [Thread] (START, one CONTENT of 60 to 100
// characters, END; every tenth with an answered tool call), and
// RUN_FINISHED ends the run. The stream's size grows with runs² because
// every RUN_STARTED repeats the history; the view ends with
// [ThreadRunsMessages] messages. Generated here, deterministically from
// Seed, and cached under testdata/bench/ like [Thread].
func ThreadRuns(tb testing.TB, runs, perRun int) string {
	tb.Helper()
	return runsWorkload(tb, "thread-runs", runs, perRun, false)
}

// runsWorkload returns the path of the workload of the given name and
// sizes, written by writeRuns.
func runsWorkload(tb testing.TB, workload string, runs, perRun int, snapshot bool) string {
	tb.Helper()
	if runs <= 0 || perRun <= 0 {
		tb.Fatalf("benchwork: %s needs positive sizes, not %d runs of %d messages", workload, runs, perRun)
	}
	name := workload + "-" + strconv.Itoa(runs) + "x" + strconv.Itoa(perRun) + ".jsonl"
	return generated(tb, name, func(w io.Writer) error { return writeRuns(w, runs, perRun, snapshot) })
}

// ThreadRunsMessages is the number of messages the view holds after the
// thread-runs workload of the given sizes: per run, the user message, the
// perRun assistant messages and one tool result for every tenth of them.
func ThreadRunsMessages(runs, perRun int) int {
	return runs * (1 + perRun + perRun/10)
}

// WriteThreadRuns writes the thread-runs workload of the given sizes to w
// as JSONL (see ThreadRuns). Message, tool call and result ids are
// numbered across the runs (m-, tc-, r-), user messages and runs by run
// (u-k, run-k).
func WriteThreadRuns(w io.Writer, runs, perRun int) error { return writeRuns(w, runs, perRun, false) }

// SnapshotRuns returns the path of the "snapshot-runs" workload: the
// thread-runs workload (see [ThreadRuns]) with each run opening the way a
// server that restates the conversation does: a RUN_STARTED without input,
// then a MESSAGES_SNAPSHOT of the whole history (every message of the
// earlier runs, as [ThreadRuns]' inputs hold them, and the run's new user
// message). Generated and cached like [Thread].
func SnapshotRuns(tb testing.TB, runs, perRun int) string {
	tb.Helper()
	return runsWorkload(tb, "snapshot-runs", runs, perRun, true)
}

// WriteSnapshotRuns writes the snapshot-runs workload of the given sizes to
// w as JSONL (see SnapshotRuns).
func WriteSnapshotRuns(w io.Writer, runs, perRun int) error { return writeRuns(w, runs, perRun, true) }

// writeRuns writes the thread-runs workload, or with snapshot set the
// snapshot-runs one.
func writeRuns(w io.Writer, runs, perRun int, snapshot bool) error {
	r := rand.New(rand.NewPCG(Seed, uint64(runs)<<32|uint64(perRun)))
	bw := bufio.NewWriterSize(w, 64<<10)
	line := func(format string, args ...any) {
		fmt.Fprintf(bw, format, args...)
		bw.WriteByte('\n')
	}
	// history holds the JSON of every message so far, each followed by a
	// comma, in the view's order.
	var history []byte
	text := make([]byte, 0, 128)
	msg := 0
	for k := 1; k <= runs; k++ {
		text = threadText(r, text[:0])
		user := fmt.Appendf(nil, `{"id":"u-%d","role":"user","content":%q}`, k, text)
		if snapshot {
			line(`{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-%d"}`, k)
			bw.WriteString(`{"type":"MESSAGES_SNAPSHOT","messages":[`)
			bw.Write(history)
			bw.Write(user)
			line(`]}`)
		} else {
			fmt.Fprintf(bw, `{"type":"RUN_STARTED","threadId":"thread-1","runId":"run-%d","input":{"threadId":"thread-1","runId":"run-%d","protocolVersion":"1.0","state":{},"messages":[`, k, k)
			bw.Write(history)
			bw.Write(user)
			line(`],"tools":[],"context":[],"forwardedProps":{}}}`)
		}
		history = append(append(history, user...), ',')
		line(`{"type":"SUBAGENT_STARTED","subagentRunId":"sa-%d","name":"assistant"}`, k)
		for j := range perRun {
			i := msg
			msg++
			text = threadText(r, text[:0])
			line(`{"type":"TEXT_MESSAGE_START","messageId":"m-%d","role":"assistant","subagentRunId":"sa-%d"}`, i, k)
			line(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-%d","delta":%q}`, i, text)
			line(`{"type":"TEXT_MESSAGE_END","messageId":"m-%d"}`, i)
			if j%10 != 9 {
				history = fmt.Appendf(history, `{"id":"m-%d","role":"assistant","content":%q,"subagentRunId":"sa-%d"},`, i, text, k)
				continue
			}
			line(`{"type":"TOOL_CALL_START","toolCallId":"tc-%d","toolCallName":"lookup","parentMessageId":"m-%d","subagentRunId":"sa-%d"}`, i, i, k)
			line(`{"type":"TOOL_CALL_ARGS","toolCallId":"tc-%d","delta":"{\"q\":\"%d\"}"}`, i, i)
			line(`{"type":"TOOL_CALL_END","toolCallId":"tc-%d"}`, i)
			line(`{"type":"TOOL_CALL_RESULT","messageId":"r-%d","toolCallId":"tc-%d","content":"result %d","subagentRunId":"sa-%d"}`, i, i, i, k)
			history = fmt.Appendf(history, `{"id":"m-%d","role":"assistant","content":%q,`+
				`"toolCalls":[{"id":"tc-%d","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"%d\"}"}}],"subagentRunId":"sa-%d"},`+
				`{"id":"r-%d","role":"tool","content":"result %d","toolCallId":"tc-%d","subagentRunId":"sa-%d"},`,
				i, text, i, i, k, i, i, i, k)
		}
		line(`{"type":"SUBAGENT_FINISHED","subagentRunId":"sa-%d"}`, k)
		line(`{"type":"RUN_FINISHED","threadId":"thread-1","runId":"run-%d"}`, k)
	}
	return bw.Flush()
}
