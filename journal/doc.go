// Package journal keeps durable AG-UI threads: for each thread, an
// append-only log of what a client sent (each run's RunAgentInput) and every
// event it received, in order, each record numbered from 1. Any process that
// reaches a journal can fold a thread from it (package client's Attach) and
// follow it live, so a viewer that was not there when a run started sees the
// same view as the process running it.
//
// A [Journal] offers:
//
//   - [Journal.Begin]: take the thread's lease for one run (at most one run is
//     active on a thread: a second writer is refused with [ErrBusy]) and get a
//     [Writer] that appends records until [Writer.End] releases the lease;
//   - [Journal.Read]: the records from a sequence number up to the current end;
//   - [Journal.Follow]: the same, then every record appended later, until the
//     context ends;
//   - [Journal.Threads]: the threads it holds;
//   - [Journal.Stat]: a thread's last sequence number and the lease of the run
//     active on it, if any, and by whom.
//
// Three implementations, two here:
//
//   - [NewMemory]: in memory, for tests and demos. Lost when the process ends.
//   - [OpenDir]: the embedded default, on disk, with no server. One JSONL file
//     per thread (THREAD.jsonl), one record per line, each event line the
//     event's wire JSON exactly as received, so `agview replay DIR/THREAD.jsonl`
//     reads it and prints the view the recording client had (input and end
//     records are lines of types "agview.input" and "agview.end", see
//     [InputType] and [ParseLine]; other AG-UI tools skip them as unknown
//     event types). Appends are write(2) calls of whole lines: a
//     process killed with SIGKILL in the middle of one loses at most the lines
//     being written and never corrupts earlier ones; a torn last line is
//     ignored by readers and cut off by the next writer. Readers may read while
//     a writer appends. The lease is an advisory lock on THREAD.lock held by
//     the writing process (an open-file-description lock on Linux, flock
//     elsewhere on Unix), so the kernel releases it the moment that process
//     dies and any other process sees the run as no longer active.
//   - NATS JetStream, for many processes on many machines, in package
//     journal/natsjournal: a program that imports it (for its side effect
//     alone, if it opens journals by DSN) can Open "nats://HOST:PORT"; one
//     that does not links no NATS code.
//
// [Open] opens any of them from a DSN: "memory", "file:DIR", or a scheme a
// backend package registered ([Register]).
//
// # Records
//
// A [Record] is an input ([KindInput]: a RunAgentInput's JSON) or an event
// ([KindEvent]: one event's wire JSON). A writer appends records in batches;
// the journal numbers them 1, 2, 3, … per thread, with no gaps. A reader
// gets each record once, in order. What the journal stores is opaque to it:
// it never folds, and it never decodes an event.
//
// A run that is in the journal without its end (no RUN_FINISHED or RUN_ERROR)
// and whose lease is gone was cut: its writer died or lost its lease. Readers
// decide that from Stat (the lease is read before the last sequence number,
// so a run that ended normally has every record counted); package client's
// Attach marks such a run failed, its open invocations abandoned (docs/protocol.md
// G11), everything received kept.
//
// # Errors
//
// Every error a journal returns is an *[Error] carrying a [Code] that is
// itself an error: errors.Is(err, journal.ErrBusy) tells a refused second
// writer (Error.Holder names the run holding the lease),
// errors.Is(err, journal.ErrUnavailable) a journal that cannot be reached
// right now (a NATS server away, a disk that refuses writes).
//
// # Concurrency
//
// A Journal is safe for concurrent use by any number of goroutines (and, for
// the file and NATS journals, processes). A Writer belongs to one run: its
// methods may be called from any goroutine but are serialised. Iterators from
// Read and Follow are single-use and must be iterated by one goroutine; each
// owns the records it yields.
package journal
