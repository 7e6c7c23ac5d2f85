// Package journaltest checks that a journal.Journal keeps the contract of
// package journal, as testing/slogtest does for slog handlers: one
// table-driven suite that every implementation runs.
//
//	func TestContract(t *testing.T) {
//		journaltest.Run(t, journaltest.Harness{
//			New: func(t *testing.T) journal.Journal { return journal.NewMemory("") },
//		})
//	}
//
// # Concurrency
//
// Run starts the cases as parallel subtests; the harness's functions must be
// safe to call from several goroutines.
package journaltest

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/journal"
)

// Harness makes the journals a suite runs against.
type Harness struct {
	// New returns an empty journal, closed by the suite when the case ends.
	New func(t *testing.T) journal.Journal
	// Peer returns another handle on the same storage as j, as a second
	// process or replica would open it (closed by the suite); nil means j
	// itself serves as its own peer (the memory journal).
	Peer func(t *testing.T, j journal.Journal) journal.Journal
	// Serial runs the cases one after another instead of in parallel.
	Serial bool
}

type contractCase struct {
	name string
	run  func(t *testing.T, h *Harness, j journal.Journal)
}

// Run runs every case of the contract against journals made by h.
func Run(t *testing.T, h Harness) {
	t.Helper()
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			if !h.Serial {
				t.Parallel()
			}
			j := h.New(t)
			t.Cleanup(func() { _ = j.Close() })
			c.run(t, &h, j)
		})
	}
}

func (h *Harness) peer(t *testing.T, j journal.Journal) journal.Journal {
	if h.Peer == nil {
		return j
	}
	p := h.Peer(t, j)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// ev returns a small event's wire JSON, numbered n.
func ev(n int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"d%d"}`, n))
}

func input(run string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"threadId":"t","runId":%q,"messages":[],"tools":[],"context":[]}`, run))
}

func events(from, to int) []journal.Record {
	var out []journal.Record
	for i := from; i <= to; i++ {
		out = append(out, journal.Record{Kind: journal.KindEvent, Data: ev(i)})
	}
	return out
}

func begin(t *testing.T, j journal.Journal, thread, run string) journal.Writer {
	t.Helper()
	w, err := j.Begin(t.Context(), journal.Lease{Thread: thread, RunID: run})
	require.NoError(t, err, "Begin %s/%s", thread, run)
	return w
}

func readAll(t *testing.T, j journal.Journal, thread string, from uint64) []journal.Record {
	t.Helper()
	var out []journal.Record
	for r, err := range j.Read(t.Context(), thread, from) {
		require.NoError(t, err, "Read %s from %d", thread, from)
		out = append(out, r)
	}
	return out
}

// same asserts that got holds want's kinds and JSON, numbered from first.
func same(t *testing.T, want []journal.Record, first uint64, got []journal.Record) {
	t.Helper()
	require.Len(t, got, len(want), "records")
	for i := range want {
		assert.Equal(t, first+uint64(i), got[i].Seq, "record %d: seq", i)
		assert.Equal(t, want[i].Kind, got[i].Kind, "record %d: kind", i)
		assert.JSONEq(t, string(want[i].Data), string(got[i].Data), "record %d: data", i)
	}
}

func cases() []contractCase {
	return []contractCase{
		{"append then read in order", func(t *testing.T, h *Harness, j journal.Journal) {
			w := begin(t, j, "t1", "r1")
			want := append([]journal.Record{{Kind: journal.KindInput, Data: input("r1")}}, events(1, 5)...)
			last, err := w.Append(t.Context(), want[:3]...)
			require.NoError(t, err)
			assert.Equal(t, uint64(3), last, "last seq of the first batch")
			last, err = w.Append(t.Context(), want[3:]...)
			require.NoError(t, err)
			assert.Equal(t, uint64(6), last, "last seq of the second batch")
			require.NoError(t, w.End(t.Context()))
			same(t, want, 1, readAll(t, j, "t1", 0))
			same(t, want[3:], 4, readAll(t, h.peer(t, j), "t1", 4))
			assert.Empty(t, readAll(t, j, "t1", 7), "reading past the end")
		}},
		{"an unknown thread is empty", func(t *testing.T, h *Harness, j journal.Journal) {
			assert.Empty(t, readAll(t, j, "nobody", 1))
			st, err := j.Stat(t.Context(), "nobody")
			require.NoError(t, err)
			assert.Equal(t, journal.Thread{ID: "nobody"}, st)
			ids, err := j.Threads(t.Context())
			require.NoError(t, err)
			assert.Empty(t, ids, "threads of an empty journal")
		}},
		{"a second writer is refused", func(t *testing.T, h *Harness, j journal.Journal) {
			w := begin(t, j, "t1", "r1")
			_, err := w.Append(t.Context(), events(1, 1)...)
			require.NoError(t, err)
			for _, other := range []journal.Journal{j, h.peer(t, j)} {
				_, err := other.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r2", Owner: "replica-2"})
				require.ErrorIs(t, err, journal.ErrBusy, "second Begin on t1")
				var je *journal.Error
				require.ErrorAs(t, err, &je)
				require.NotNil(t, je.Holder, "the refusal names the holder")
				assert.Equal(t, "r1", je.Holder.RunID, "holder's run")
				assert.Equal(t, "t1", je.Thread)
			}
			w2 := begin(t, h.peer(t, j), "t2", "r9") // another thread is free
			require.NoError(t, w2.End(t.Context()))
			require.NoError(t, w.End(t.Context()))
			w3 := begin(t, h.peer(t, j), "t1", "r2") // free again once ended
			last, err := w3.Append(t.Context(), events(2, 2)...)
			require.NoError(t, err)
			assert.Equal(t, uint64(2), last, "the next run continues the numbering")
			require.NoError(t, w3.End(t.Context()))
			same(t, events(1, 2), 1, readAll(t, j, "t1", 1))
		}},
		{"stat names the active run", func(t *testing.T, h *Harness, j journal.Journal) {
			w, err := j.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r1", Owner: "replica-1"})
			require.NoError(t, err)
			_, err = w.Append(t.Context(), events(1, 3)...)
			require.NoError(t, err)
			for _, view := range []journal.Journal{j, h.peer(t, j)} {
				st, err := view.Stat(t.Context(), "t1")
				require.NoError(t, err)
				assert.Equal(t, uint64(3), st.Last, "last seq")
				require.NotNil(t, st.Active, "a run is active")
				assert.Equal(t, "r1", st.Active.RunID)
				assert.Equal(t, "replica-1", st.Active.Owner)
				assert.Equal(t, "t1", st.Active.Thread)
				assert.False(t, st.Active.Since.IsZero(), "since is set")
			}
			assert.Equal(t, "r1", w.Lease().RunID)
			require.NoError(t, w.End(t.Context()))
			require.NoError(t, w.End(t.Context()), "End is idempotent")
			st, err := h.peer(t, j).Stat(t.Context(), "t1")
			require.NoError(t, err)
			assert.Nil(t, st.Active, "no run active after End")
			assert.Equal(t, uint64(3), st.Last)
			_, err = w.Append(t.Context(), events(4, 4)...)
			assert.ErrorIs(t, err, journal.ErrClosed, "Append after End")
		}},
		{"stop asks the active run's writer", func(t *testing.T, h *Harness, j journal.Journal) {
			_, err := j.Stop(t.Context(), "t1")
			require.ErrorIs(t, err, journal.ErrIdle, "no run to stop")
			w := begin(t, j, "t1", "r1")
			select {
			case <-w.Stopped():
				t.Fatal("stopped before anyone asked")
			default:
			}
			l, err := h.peer(t, j).Stop(t.Context(), "t1")
			require.NoError(t, err)
			assert.Equal(t, "r1", l.RunID, "the run asked")
			select {
			case <-w.Stopped():
			case <-time.After(10 * time.Second):
				t.Fatal("the writer was not told to stop")
			}
			require.NoError(t, w.End(t.Context()))
			_, err = j.Stop(t.Context(), "t1")
			require.ErrorIs(t, err, journal.ErrIdle, "the run ended")
			w2 := begin(t, j, "t1", "r2")
			defer w2.End(t.Context())
			select {
			case <-w2.Stopped():
				t.Fatal("a request to stop r1 stopped r2")
			case <-time.After(100 * time.Millisecond):
			}
		}},
		{"the default owner", func(t *testing.T, h *Harness, j journal.Journal) {
			w := begin(t, j, "t1", "r1")
			defer w.End(t.Context())
			assert.NotEmpty(t, w.Lease().Owner, "an owner is always named")
		}},
		{"follow sees what is appended later", func(t *testing.T, h *Harness, j journal.Journal) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			got := make(chan journal.Record, 100)
			var wg sync.WaitGroup
			fctx, stop := context.WithCancel(ctx)
			defer wg.Wait()
			defer stop()
			p := h.peer(t, j)
			wg.Go(func() {
				defer close(got)
				for r, err := range p.Follow(fctx, "t1", 0) {
					if !assert.NoError(t, err) {
						return
					}
					got <- r
				}
			})
			w := begin(t, j, "t1", "r1")
			want := events(1, 40)
			for i := 0; i < len(want); i += 7 {
				_, err := w.Append(ctx, want[i:min(i+7, len(want))]...)
				require.NoError(t, err)
			}
			var recs []journal.Record
			for len(recs) < len(want) {
				select {
				case r := <-got:
					recs = append(recs, r)
				case <-ctx.Done():
					t.Fatalf("follow yielded %d of %d records", len(recs), len(want))
				}
			}
			stop()
			wg.Wait()
			same(t, want, 1, recs)
			_, more := <-got
			assert.False(t, more, "follow ends when its context does, with nothing more")
			require.NoError(t, w.End(ctx))
		}},
		{"follow from the middle", func(t *testing.T, h *Harness, j journal.Journal) {
			w := begin(t, j, "t1", "r1")
			_, err := w.Append(t.Context(), events(1, 10)...)
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(t.Context())
			var recs []journal.Record
			for r, err := range j.Follow(ctx, "t1", 6) {
				require.NoError(t, err)
				recs = append(recs, r)
				if len(recs) == 5 {
					cancel()
				}
			}
			cancel()
			same(t, events(6, 10), 6, recs)
			require.NoError(t, w.End(t.Context()))
		}},
		{"read while a writer appends", func(t *testing.T, h *Harness, j journal.Journal) {
			w := begin(t, j, "t1", "r1")
			want := events(1, 200)
			var wg sync.WaitGroup
			wg.Go(func() {
				for i := 0; i < len(want); i += 10 {
					if _, err := w.Append(t.Context(), want[i:i+10]...); !assert.NoError(t, err) {
						return
					}
				}
			})
			p := h.peer(t, j)
			for range 20 {
				got := readAll(t, p, "t1", 1)
				same(t, want[:len(got)], 1, got)
			}
			wg.Wait()
			same(t, want, 1, readAll(t, p, "t1", 1))
			require.NoError(t, w.End(t.Context()))
		}},
		{"threads lists threads with records", func(t *testing.T, h *Harness, j journal.Journal) {
			names := []string{"b", "a", "c/with slash", "ünïcode thread", ".dot", "x.y*z>"}
			for i, id := range names {
				w := begin(t, j, id, fmt.Sprint("r", i))
				_, err := w.Append(t.Context(), events(i, i)...)
				require.NoError(t, err)
				require.NoError(t, w.End(t.Context()))
			}
			idle := begin(t, j, "idle", "r") // a lease alone holds no records
			defer idle.End(t.Context())
			ids, err := h.peer(t, j).Threads(t.Context())
			require.NoError(t, err)
			want := slices.Clone(names)
			slices.Sort(want)
			assert.Equal(t, want, ids)
			for i, id := range names {
				same(t, events(i, i), 1, readAll(t, j, id, 1))
			}
		}},
		{"data survives as JSON", func(t *testing.T, h *Harness, j journal.Journal) {
			want := []journal.Record{
				{Kind: journal.KindEvent, Data: json.RawMessage("{\n  \"type\": \"CUSTOM\",\n  \"name\": \"multi\\nline\",\r\n  \"value\": [1, 2]\n}")},
				{Kind: journal.KindEvent, Data: json.RawMessage(`{"type":"agview.input","input":{"runId":"forged"}}`)},
				{Kind: journal.KindInput, Data: json.RawMessage(`{"threadId":"t1","runId":"r1","messages":[{"id":"u","role":"user","content":"line one\nline two"}]}`)},
				{Kind: journal.KindEvent, Data: json.RawMessage(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud800 lone, \u2028 sep, \"q\""}`)},
			}
			w := begin(t, j, "t1", "r1")
			_, err := w.Append(t.Context(), want...)
			require.NoError(t, err)
			require.NoError(t, w.End(t.Context()))
			got := readAll(t, h.peer(t, j), "t1", 1)
			same(t, want, 1, got)
			assert.Contains(t, string(got[3].Data), `\ud800`, "a lone surrogate escape is kept (G19)")
		}},
		{"bad arguments", func(t *testing.T, h *Harness, j journal.Journal) {
			_, err := j.Begin(t.Context(), journal.Lease{RunID: "r"})
			assert.ErrorIs(t, err, journal.ErrInvalid, "no thread")
			_, err = j.Begin(t.Context(), journal.Lease{Thread: "t"})
			assert.ErrorIs(t, err, journal.ErrInvalid, "no run")
			w := begin(t, j, "t1", "r1")
			defer w.End(t.Context())
			_, err = w.Append(t.Context(), journal.Record{Kind: 99, Data: ev(1)})
			assert.ErrorIs(t, err, journal.ErrInvalid, "unknown kind")
			_, err = w.Append(t.Context(), journal.Record{Kind: journal.KindEvent})
			assert.ErrorIs(t, err, journal.ErrInvalid, "no data")
			st, err := j.Stat(t.Context(), "t1")
			require.NoError(t, err)
			assert.Zero(t, st.Last, "a refused append stores nothing")
		}},
		{"create records the owner and the time", func(t *testing.T, h *Harness, j journal.Journal) {
			created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			require.NoError(t, j.Create(t.Context(), "t1", journal.Meta{Owner: "alice", Created: created}))
			p := h.peer(t, j)
			for _, view := range []journal.Journal{j, p} {
				st, err := view.Stat(t.Context(), "t1")
				require.NoError(t, err)
				assert.Zero(t, st.Last, "a created thread holds no records")
				assert.Nil(t, st.Active, "no run is active")
				assert.Equal(t, "alice", st.Meta.Owner)
				assert.True(t, created.Equal(st.Meta.Created), "created %v, want %v", st.Meta.Created, created)
				assert.False(t, st.Updated.Before(created), "updated %v is not before created %v", st.Updated, created)
				ids, err := view.Threads(t.Context())
				require.NoError(t, err)
				assert.Equal(t, []string{"t1"}, ids, "a created thread is listed before it holds records")
				assert.Empty(t, readAll(t, view, "t1", 1))
			}
			before := time.Now()
			require.NoError(t, p.Create(t.Context(), "t2", journal.Meta{}))
			st, err := j.Stat(t.Context(), "t2")
			require.NoError(t, err)
			assert.WithinRange(t, st.Meta.Created, before.Add(-time.Second), time.Now().Add(time.Second), "a zero Created means now")
			assert.Empty(t, st.Meta.Owner)

			w := begin(t, j, "t1", "r1")
			_, err = w.Append(t.Context(), events(1, 2)...)
			require.NoError(t, err)
			require.NoError(t, w.End(t.Context()))
			st, err = p.Stat(t.Context(), "t1")
			require.NoError(t, err)
			assert.Equal(t, uint64(2), st.Last)
			assert.Equal(t, "alice", st.Meta.Owner, "appends keep the meta")
			assert.WithinRange(t, st.Updated, before.Add(-2*time.Second), time.Now().Add(time.Second), "updated is the last append")
			ids, err := p.Threads(t.Context())
			require.NoError(t, err)
			assert.Equal(t, []string{"t1", "t2"}, ids)
		}},
		{"create refuses a thread that exists", func(t *testing.T, h *Harness, j journal.Journal) {
			require.NoError(t, j.Create(t.Context(), "t1", journal.Meta{Owner: "alice"}))
			w := begin(t, j, "t2", "r1")
			_, err := w.Append(t.Context(), events(1, 1)...)
			require.NoError(t, err)
			require.NoError(t, w.End(t.Context()))
			for _, view := range []journal.Journal{j, h.peer(t, j)} {
				for _, id := range []string{"t1", "t2"} {
					err := view.Create(t.Context(), id, journal.Meta{Owner: "mallory"})
					require.ErrorIs(t, err, journal.ErrExists, "Create of %s", id)
					var je *journal.Error
					require.ErrorAs(t, err, &je)
					assert.Equal(t, "create", je.Op)
					assert.Equal(t, id, je.Thread)
				}
			}
			st, err := j.Stat(t.Context(), "t1")
			require.NoError(t, err)
			assert.Equal(t, "alice", st.Meta.Owner, "a refused Create changes nothing")
			w = begin(t, j, "t3", "r1") // a lease alone holds no records
			require.NoError(t, w.End(t.Context()))
			require.NoError(t, j.Create(t.Context(), "t3", journal.Meta{Owner: "bob"}))
		}},
		{"delete removes a thread", func(t *testing.T, h *Harness, j journal.Journal) {
			require.NoError(t, j.Delete(t.Context(), "nobody"), "deleting what does not exist")
			require.NoError(t, j.Create(t.Context(), "t1", journal.Meta{Owner: "alice"}))
			w := begin(t, j, "t1", "r1")
			_, err := w.Append(t.Context(), events(1, 3)...)
			require.NoError(t, err)
			require.NoError(t, w.End(t.Context()))
			require.NoError(t, j.Create(t.Context(), "kept", journal.Meta{}))
			p := h.peer(t, j)
			require.NoError(t, p.Delete(t.Context(), "t1"))
			require.NoError(t, p.Delete(t.Context(), "t1"), "Delete is idempotent")
			for _, view := range []journal.Journal{j, p} {
				ids, err := view.Threads(t.Context())
				require.NoError(t, err)
				assert.Equal(t, []string{"kept"}, ids)
				assert.Empty(t, readAll(t, view, "t1", 1))
				st, err := view.Stat(t.Context(), "t1")
				require.NoError(t, err)
				assert.Equal(t, journal.Thread{ID: "t1"}, st, "nothing of a deleted thread is left")
			}
			require.NoError(t, j.Create(t.Context(), "t1", journal.Meta{Owner: "bob"}), "a deleted id can be created again")
			w = begin(t, p, "t1", "r2")
			last, err := w.Append(t.Context(), events(7, 7)...)
			require.NoError(t, err)
			assert.Equal(t, uint64(1), last, "a new thread of a deleted id starts at 1")
			require.NoError(t, w.End(t.Context()))
			same(t, events(7, 7), 1, readAll(t, j, "t1", 1))
		}},
		{"delete refuses the active run", func(t *testing.T, h *Harness, j journal.Journal) {
			w, err := j.Begin(t.Context(), journal.Lease{Thread: "t1", RunID: "r1", Owner: "replica-1"})
			require.NoError(t, err)
			_, err = w.Append(t.Context(), events(1, 1)...)
			require.NoError(t, err)
			for _, view := range []journal.Journal{j, h.peer(t, j)} {
				err := view.Delete(t.Context(), "t1")
				require.ErrorIs(t, err, journal.ErrBusy, "Delete during a run")
				var je *journal.Error
				require.ErrorAs(t, err, &je)
				assert.Equal(t, "delete", je.Op)
				assert.Equal(t, "t1", je.Thread)
				require.NotNil(t, je.Holder, "the refusal names the holder")
				assert.Equal(t, "r1", je.Holder.RunID)
				assert.Equal(t, "replica-1", je.Holder.Owner)
			}
			last, err := w.Append(t.Context(), events(2, 2)...)
			require.NoError(t, err, "the run goes on")
			assert.Equal(t, uint64(2), last)
			require.NoError(t, w.End(t.Context()))
			same(t, events(1, 2), 1, readAll(t, j, "t1", 1))
			require.NoError(t, h.peer(t, j).Delete(t.Context(), "t1"), "free once the run ended")
			assert.Empty(t, readAll(t, j, "t1", 1))
		}},
		{"a follower of a deleted thread ends", func(t *testing.T, h *Harness, j journal.Journal) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			w := begin(t, j, "t1", "r1")
			_, err := w.Append(ctx, events(1, 3)...)
			require.NoError(t, err)
			require.NoError(t, w.End(ctx))
			var (
				recs []journal.Record
				errs []error
			)
			got := make(chan struct{}, 100)
			done := make(chan struct{})
			p := h.peer(t, j)
			go func() {
				defer close(done)
				for r, err := range p.Follow(ctx, "t1", 1) {
					if err != nil {
						errs = append(errs, err)
						continue
					}
					recs = append(recs, r)
					got <- struct{}{}
				}
			}()
			for range 3 {
				select {
				case <-got:
				case <-ctx.Done():
					t.Fatal("the follower did not read the thread")
				}
			}
			require.NoError(t, j.Delete(ctx, "t1"))
			w = begin(t, j, "t1", "r2") // a new thread of the same id
			_, err = w.Append(ctx, events(100, 101)...)
			require.NoError(t, err)
			require.NoError(t, w.End(ctx))
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cancel()
				<-done
				t.Fatal("the follower of a deleted thread did not end")
			}
			same(t, events(1, 3), 1, recs)
			require.Len(t, errs, 1, "the follower ends with one error")
			assert.ErrorIs(t, errs[0], journal.ErrLost, "the follower is told the thread went")
		}},
		{"ids up to MaxIDBytes", func(t *testing.T, h *Harness, j journal.Journal) {
			ids := []string{
				strings.Repeat("a", journal.MaxIDBytes),
				strings.Repeat("é", journal.MaxIDBytes/2),
				strings.Repeat("a/", journal.MaxIDBytes/2),
				strings.Repeat("x", 250),
				strings.Repeat("ü", 93),
				strings.Repeat("ü", 94),
				"../../../../etc/passwd", "..", ".", "a/b", "a_b", "~YS9i", "~",
				"#" + strings.Repeat("0f", 32), "x.jsonl", "x.lock", "x.meta", "x.stop", "x.id",
				" spaced ", " ", "💥", "-rf",
			}
			for i, id := range ids {
				require.NoError(t, j.Create(t.Context(), id, journal.Meta{Owner: fmt.Sprint("owner-", i)}), "Create of id %d", i)
				w := begin(t, j, id, fmt.Sprint("r", i))
				_, err := w.Append(t.Context(), events(i, i)...)
				require.NoError(t, err, "Append to id %d", i)
				require.NoError(t, w.End(t.Context()))
			}
			p := h.peer(t, j)
			got, err := p.Threads(t.Context())
			require.NoError(t, err)
			want := slices.Clone(ids)
			slices.Sort(want)
			assert.Equal(t, want, got, "every id is listed as itself")
			for i, id := range ids {
				same(t, events(i, i), 1, readAll(t, p, id, 1))
				st, err := p.Stat(t.Context(), id)
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprint("owner-", i), st.Meta.Owner, "meta of id %d", i)
				assert.Equal(t, uint64(1), st.Last, "last of id %d", i)
			}
			for i, id := range ids {
				require.NoError(t, p.Delete(t.Context(), id), "Delete of id %d", i)
			}
			got, err = j.Threads(t.Context())
			require.NoError(t, err)
			assert.Empty(t, got, "every thread deleted")
		}},
		{"bad ids are refused before any I/O", func(t *testing.T, h *Harness, j journal.Journal) {
			for _, tc := range []struct {
				name string
				id   string
				code journal.Code
			}{
				{"empty", "", journal.ErrInvalid},
				{"one byte too long", strings.Repeat("a", journal.MaxIDBytes+1), journal.ErrTooLarge},
				{"far too long", strings.Repeat("é/", 100_000), journal.ErrTooLarge},
				{"NUL", "a\x00b", journal.ErrInvalid},
				{"line end", "a\nb", journal.ErrInvalid},
				{"DEL", "a\x7fb", journal.ErrInvalid},
				{"C1 control", "a\u0085b", journal.ErrInvalid},
				{"invalid UTF-8", "a\xffb", journal.ErrInvalid},
			} {
				t.Run(tc.name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
					defer cancel()
					check := func(what string, err error) {
						t.Helper()
						require.ErrorIs(t, err, tc.code, what)
						assert.Less(t, len(err.Error()), 400, "%s: the error quotes a bounded part of the id", what)
					}
					check("Create", j.Create(ctx, tc.id, journal.Meta{}))
					check("Delete", j.Delete(ctx, tc.id))
					_, err := j.Stat(ctx, tc.id)
					check("Stat", err)
					_, err = j.Stop(ctx, tc.id)
					check("Stop", err)
					_, err = j.Begin(ctx, journal.Lease{Thread: tc.id, RunID: "r"})
					check("Begin", err)
					_, err = j.Begin(ctx, journal.Lease{Thread: "t", RunID: tc.id})
					check("Begin of a run id", err)
					for name, seq := range map[string]func(context.Context, string, uint64) iter.Seq2[journal.Record, error]{"Read": j.Read, "Follow": j.Follow} {
						n := 0
						for r, err := range seq(ctx, tc.id, 1) {
							n++
							require.Zero(t, r.Seq, "%s yields no record", name)
							check(name, err)
						}
						assert.Equal(t, 1, n, "%s yields one error", name)
					}
				})
			}
			ids, err := h.peer(t, j).Threads(t.Context())
			require.NoError(t, err)
			assert.Empty(t, ids, "refused ids left nothing behind")
		}},
		{"closed journal", func(t *testing.T, h *Harness, j journal.Journal) {
			require.NoError(t, j.Close())
			_, err := j.Begin(t.Context(), journal.Lease{Thread: "t", RunID: "r"})
			assert.ErrorIs(t, err, journal.ErrClosed)
			_, err = j.Stat(t.Context(), "t")
			assert.ErrorIs(t, err, journal.ErrClosed)
			for _, err := range j.Read(t.Context(), "t", 1) {
				assert.ErrorIs(t, err, journal.ErrClosed)
			}
		}},
	}
}
