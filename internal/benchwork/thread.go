package benchwork

import (
	"bufio"
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
	root := ModuleRoot()
	if root == "" {
		tb.Fatalf("benchwork: cannot find the module root")
	}
	path := filepath.Join(root, "testdata", "bench", "thread-"+strconv.Itoa(messages)+".jsonl")
	mu.Lock()
	defer mu.Unlock()
	if _, err := os.Stat(path); err == nil {
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
	werr := WriteThread(f, messages)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		tb.Fatalf("benchwork: writing the thread workload: %v", werr)
	}
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatalf("benchwork: %v", err)
	}
	return path
}

// threadWords are the words thread messages are made of.
var threadWords = []string{"the", "bus", "fleet", "depot", "charger", "winter", "range", "battery", "grid",
	"route", "driver", "cost", "plan", "city", "budget", "tender", "kWh", "per", "day", "and", "we", "need",
	"more", "data", "on", "night", "charging", "at", "two", "sites"}

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
		n := 60 + r.IntN(41)
		text = text[:0]
		for len(text) < n {
			if len(text) > 0 {
				text = append(text, ' ')
			}
			text = append(text, threadWords[r.IntN(len(threadWords))]...)
		}
		text = text[:n]
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
