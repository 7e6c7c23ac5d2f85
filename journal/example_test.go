package journal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/agview/agview/journal"
)

// A writer holds a thread's lease while its run streams; readers read and
// follow the thread, and a second writer is refused.
func Example() {
	ctx := context.Background()
	j, err := journal.Open(ctx, "memory", &journal.Options{Owner: "replica-1"})
	if err != nil {
		log.Fatal(err)
	}
	defer j.Close()

	w, err := j.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
	if err != nil {
		log.Fatal(err)
	}
	_, err = w.Append(ctx,
		journal.Record{Kind: journal.KindInput, Data: json.RawMessage(`{"threadId":"t1","runId":"r1","messages":[]}`)},
		journal.Record{Kind: journal.KindEvent, Data: json.RawMessage(`{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}`)},
	)
	if err != nil {
		log.Fatal(err)
	}

	_, err = j.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r2"})
	var je *journal.Error
	if errors.Is(err, journal.ErrBusy) && errors.As(err, &je) {
		fmt.Println("refused: run", je.Holder.RunID, "by", je.Holder.Owner)
	}
	st, _ := j.Stat(ctx, "t1")
	fmt.Println("records:", st.Last, "active:", st.Active.RunID)

	if err := w.End(ctx); err != nil {
		log.Fatal(err)
	}
	for r, err := range j.Read(ctx, "t1", 1) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.Seq, r.Kind)
	}
	// Output:
	// refused: run r1 by replica-1
	// records: 2 active: r1
	// 1 input
	// 2 event
}

// A file journal bounds what it stores and reads: a record over
// DirOptions.MaxRecordBytes is refused, and its errors never carry the
// directory's path.
func ExampleDirOptions() {
	dir, err := os.MkdirTemp("", "journal-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	d, err := journal.OpenDir(filepath.Join(dir, "threads"), &journal.DirOptions{MaxRecordBytes: 1 << 10})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	w, err := d.Begin(ctx, journal.Lease{Thread: "t1", RunID: "r1"})
	if err != nil {
		log.Fatal(err)
	}
	defer w.End(ctx)
	big := json.RawMessage(`{"type":"CUSTOM","name":"n","value":"` + strings.Repeat("x", 2000) + `"}`)
	_, err = w.Append(ctx, journal.Record{Kind: journal.KindEvent, Data: big})
	fmt.Println(errors.Is(err, journal.ErrTooLarge), strings.Contains(err.Error(), dir))
	// Output:
	// true false
}
