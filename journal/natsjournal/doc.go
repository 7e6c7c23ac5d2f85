// Package natsjournal is the NATS JetStream backend of package journal, for
// many processes on many machines. Importing it registers the "nats" and
// "tls" schemes with journal.Open; a program that does not import it links
// no NATS code.
//
// # Storage
//
// One stream (default "AGVIEW_JOURNAL", file storage) holds one subject per
// thread: the prefix, then the thread's token, the id in unpadded base64url
// when that is at most 256 characters (ids up to 192 bytes), else "=" and
// the hex SHA-256 of the id, whose messages then carry the id in header
// Agview-Thread (and its meta value in field "thread"), so that Threads
// gives it back. Every subject and key is therefore bounded (the prefix,
// then at most 256 characters) whatever the id; ids are checked (journal.CheckID, at most
// journal.MaxIDBytes) before any I/O.
//
// A batch of records is one message whose headers Agview-Seq and
// Agview-Count give its first record's number and how many lines it holds;
// a record over the server's max_payload (read from the server) is split
// across messages (header Agview-Chunk "i/k") and joined again by readers.
// Each publish carries a message id and the sequence the subject's last
// message must have (Nats-Expected-Last-Subject-Sequence): a retry after a
// lost acknowledgement is recognised instead of stored twice, and nothing is
// stored after a message its writer did not see (another writer's, or a
// stream made again empty). Readers check each message against the records
// it delivers and against the message before it.
//
// The lease is a key in a key-value bucket (DefaultLeaseBucket) whose entries
// expire after the lease TTL (DefaultLeaseTTL, 10 s) unless the writer
// refreshes them, which it does every third of the TTL: when a writer's
// process dies, its lease expires and readers see the run as no longer
// active. Each thread's journal.Meta (owner, creation time) is a key in a
// second bucket (DefaultMetaBucket).
//
// Every request has a deadline (Options.PublishTimeout, 2 s by default;
// Writer.End retries for Options.EndTimeout at most) and is cancelled by
// Close. The connection reconnects without limit, and a connection the
// client library closes (it does on a protocol error) is dialled again by
// one goroutine per journal.
//
// # Guarantees
//
// What each fault keeps, what readers see, and for how long:
//
//	| Fault                                   | What is kept                                        | What readers see                                    | How long                                   |
//	|-----------------------------------------|-----------------------------------------------------|-----------------------------------------------------|--------------------------------------------|
//	| writer's process killed                 | every record acknowledged                           | the run cut (no lease, no end record)               | within the lease TTL                       |
//	| server away, shorter than the TTL       | every record: the writer keeps them and stores      | the run active; records arrive once it is back,     | while it is away; appends fail with        |
//	|                                         | them in order, once, when the server is back        | in order, none twice (Follow resumes)               | journal.ErrUnavailable meanwhile           |
//	| server away past the TTL (or the writer | the same, up to Options.MaxPending bytes (64 MiB);  | the run cut while away if no one took the thread;   | the writer takes its lease again when the  |
//	| cut off from it)                        | past it appends fail with journal.ErrTooLarge, what | then its records, in order                          | server answers                             |
//	|                                         | was kept is still stored, and End returns the error |                                                     |                                            |
//	| another run took the thread meanwhile   | the records stored before the outage                | the other run's records after them                  | the writer stops with journal.ErrLeaseLost |
//	|                                         |                                                     |                                                     | naming the holder                          |
//	| the stream deleted (or the server       | nothing of the threads; the stream is made again    | a thread whose writer was running reads as          | the next call of any journal on it         |
//	| restarted without its store)            | empty; the meta bucket if it survived               | journal.ErrLost (Read, Follow, Stat, Begin) until   | (Follow: within 2 s of silence)            |
//	|                                         |                                                     | Delete; others read as empty                        |                                            |
//	| a record over max_payload               | the record, split and joined again                  | the record whole                                    | -                                          |
//	| a record over MaxRecordBytes (64 MiB)   | nothing: the append fails with journal.ErrTooLarge  | -                                                   | -                                          |
//	| a forged or inconsistent message        | what comes before it                                | journal.ErrCorrupt for that thread                  | at once; no consumer loop                  |
//	| an id over journal.MaxIDBytes           | -                                                   | journal.ErrTooLarge, nothing sent                   | at once                                    |
//	| a protocol error closes the connection  | everything: the journal dials again                 | journal.ErrUnavailable meanwhile                    | from 100 ms, up to 5 s between attempts    |
//	| the journal closed                      | what was acknowledged                               | journal.ErrClosed                                   | Close returns at once                      |
//
// # Concurrency
//
// A *Journal is safe for concurrent use by many goroutines; a Writer belongs
// to the goroutine of its run, as package journal describes.
package natsjournal
