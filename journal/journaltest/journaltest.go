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
	"slices"
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
