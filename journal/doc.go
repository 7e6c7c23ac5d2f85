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
//   - [Journal.Stat]: a thread's last sequence number, the lease of the run
//     active on it, if any, and by whom, its [Meta] and when it was updated;
//   - [Journal.Create] and [Journal.Delete]: a thread recorded with its owner
//     before it holds records, and removed (never while a run holds it).
//
// Every method checks its ids with [CheckID] before any I/O: 1 to
// [MaxIDBytes] bytes of UTF-8 without control characters, or an error of
// code ErrInvalid (ErrTooLarge for a longer id) that quotes at most 64
// bytes of the id. Every backend accepts every id CheckID accepts.
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
//     The journal stays in its directory: see "The file journal's
//     directory" below.
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
// # The file journal's directory
//
// [OpenDir] creates the directory 0700 and refuses (ErrInvalid) one that
// another user owns or that its group or others may write in: whoever can
// create files in it could plant links or FIFOs under the journal's names.
// Each thread has files of one base name: THREAD.jsonl (its records),
// THREAD.lock (the lease), THREAD.meta (Create's [Meta]), THREAD.stop (a
// request to stop a run). The base name is the id itself when it is made of
// letters, digits, '-', '_' and '.' (not first); "~" and the id in unpadded
// base64url when that fits a file name (ids up to 186 bytes); else "#" and
// the hex SHA-256 of the id, with the id kept in THREAD.id so that Threads
// names it. Journals written by earlier versions keep their names.
//
// Every file is opened with O_NOFOLLOW and O_NONBLOCK and used only when it
// is a regular file: a symbolic link or a FIFO under one of these names is
// refused with ErrCorrupt, never followed, written through or waited on.
// THREAD.lock is truncated only once locked; THREAD.meta and THREAD.stop are
// written under a random name and linked or renamed into place. Errors name a
// file by its role ("open thread file: permission denied"), never by its
// path, so that a service can pass them on without telling where its journal
// lives.
//
// Readers trust nothing in the file: a line over [DirOptions].MaxRecordBytes
// ([DefaultMaxRecordBytes], 8 MiB, as agview replay) ends Read or Follow with
// an ErrTooLarge error naming the record, without the line being held in
// memory (Append refuses such a record); an unterminated tail (a line being
// written, or torn by a writer that died) is scanned once, not at each poll;
// and a file that shrinks below what a follower read, or is deleted or
// replaced, ends the follower with an ErrLost error.
//
// # Guarantees
//
// What each journal here keeps when something goes wrong, what a reader
// sees, and for how long (the NATS journal states its own in package
// journal/natsjournal):
//
//	fault                               memory journal               file journal
//	----------------------------------  ---------------------------  -----------------------------------------
//	writer's process killed (SIGKILL)   all lost (it is in memory)   every line written whole; a torn last line
//	                                                                  is no record for readers and is cut off by
//	                                                                  the next writer; the lease is free at once
//	                                                                  (the kernel drops the lock); readers see the
//	                                                                  run cut (Stat: no active run)
//	power loss                          all lost                     what the kernel wrote back; every record with
//	                                                                  DirOptions.Sync
//	second writer on a thread           refused: ErrBusy, Holder      refused: ErrBusy, Holder names the run,
//	                                    names the run                 from any process, until the holder ends
//	Delete during a run                 refused: ErrBusy, Holder      refused: ErrBusy, Holder
//	thread deleted under a follower     follower ends: ErrLost        follower ends: ErrLost (within Poll)
//	file shrunk or replaced by someone  -                             followers end: ErrLost (within Poll); the
//	                                                                  next writer counts the file afresh
//	record over the size limit          no limit (memory)             Append refuses it (ErrTooLarge); a reader
//	                                                                  ends at such a line with ErrTooLarge, the
//	                                                                  records before it read
//	torn tail that never completes      -                             readers wait at it, scanning only new bytes
//	link, FIFO or directory planted     -                             refused (ErrCorrupt) on every method that
//	under a thread's file name                                        opens it; nothing outside the directory is
//	                                                                  read or written; no method blocks
//	directory others may write in       -                             OpenDir refuses it (ErrInvalid)
//	id over MaxIDBytes or with control  refused (ErrTooLarge or       refused (ErrTooLarge or ErrInvalid) before
//	characters                          ErrInvalid), nothing kept     any file is named
//	reads of threads that do not exist  nothing kept                  nothing kept (no file, no state)
//	journal closed                      ErrClosed; followers end      ErrClosed; writers' locks released
//
// # Errors
//
// Every error a journal returns is an *[Error] carrying a [Code] that is
// itself an error: errors.Is(err, journal.ErrBusy) tells a refused second
// writer (Error.Holder names the run holding the lease),
// errors.Is(err, journal.ErrUnavailable) a journal that cannot be reached
// right now (a NATS server away, a disk that refuses writes),
// errors.Is(err, journal.ErrLost) a thread that went from under its reader,
// errors.Is(err, journal.ErrTooLarge) an id or a record over a limit.
//
// # Concurrency
//
// A Journal is safe for concurrent use by any number of goroutines (and, for
// the file and NATS journals, processes). A Writer belongs to one run: its
// methods may be called from any goroutine but are serialised. Iterators from
// Read and Follow are single-use and must be iterated by one goroutine; each
// owns the records it yields.
package journal
