// Package natsjournal is the NATS JetStream backend of package journal, for
// many processes on many machines. Importing it registers the "nats" and
// "tls" schemes with journal.Open; a program that does not import it links
// no NATS code.
//
// One stream (default "AGVIEW_JOURNAL") holds one subject per thread; a
// batch of records is one message published with a message id, so an append
// that is retried is stored once; ordered consumers replay and follow. The
// lease is a key in a key-value bucket whose entries expire after
// DefaultLeaseTTL (10 s) unless the writer refreshes them, which it does every
// third of the TTL while the run streams: when a writer's process dies, its
// lease expires and readers see the run as no longer active. Each thread's
// journal.Meta (owner, creation time) is a key in a second bucket
// (DefaultMetaBucket).
//
// # Concurrency
//
// A *Journal is safe for concurrent use by many goroutines; a Writer belongs
// to the goroutine of its run, as package journal describes.
package natsjournal
