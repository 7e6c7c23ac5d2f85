// Package threads is the thread service a backend-for-frontend mounts: an
// http.Handler with the routes a browser needs to start a conversation with
// an AG-UI agent, continue it, stop it, delete it, list its own threads and
// watch one live, one pane per subagent invocation.
//
//	j, _ := journal.Open(ctx, "file:/var/lib/app/threads", nil)
//	svc, _ := threads.New(j, "http://agent:8000/agent", &threads.Options{
//		Prefix:   "/agent",
//		Identify: func(r *http.Request) (string, error) { return userOf(r) },
//	})
//	defer svc.Close()
//	mux.Handle("/agent/", svc)
//
// # Threads, runs and replicas
//
// A thread is kept in the journal.Journal the service is given: the memory
// journal for tests, the embedded file journal, or NATS JetStream shared by
// replicas (journal/natsjournal). A run goes through package client:
// client.WithJournal records its input, every event as received and how it
// ended, under the thread's lease (one run at a time per thread, on all
// replicas); client.Attach folds the journal into the store each replica
// serves the thread from. The replica that runs a run folds its events as
// its client receives them, into that same store, and its attachment skips
// them: every replica decodes and folds each event once. A run whose
// replica dies reads as cut on the others.
//
// # Owners and limits
//
// Options.Identify names the owner of a request. A thread belongs to the
// owner that created it (journal.Meta.Owner, so every replica knows): any
// other owner gets 404 for it on every route, and GET /threads lists only
// the asker's threads, a page at a time. Thread ids are minted by the
// service; an id in a path is at most MaxIDBytes of a safe alphabet
// (CheckID), refused with 400 before the journal sees it. Threads per owner,
// runs in progress, event streams per owner and request bodies (size and
// time) are bounded; idle threads expire (deleted from the journal), and
// DELETE removes one at once. Every refusal is an *Error: a Code, its HTTP
// status and a one-sentence message the page shows.
//
// # The pane stream
//
// GET /threads/{id}/events is a versioned wire format (docs/panes.md, with
// a JSON Schema): a snapshot with every pane whole, then one patch per
// frame naming only what changed: a pane that appeared, a message's
// appended text, a tool call's new arguments, a status. A frame's cost is
// what changed, not the thread's size.
//
// # Concurrency
//
// A Service is safe for concurrent use by the http.Server's goroutines. A
// run goes on a goroutine Close cancels and waits for. Each thread a
// replica serves has its attachment's follower goroutine; its store has
// one subscriber, the thread's hub, which turns each view into a patch
// (under the hub's lock, never waiting for a viewer) and rings every
// viewer's one-slot doorbell. Each viewer is its HTTP handler's goroutine:
// it writes the patches it has not written yet, shared bytes, never
// copies, so a slow viewer skips nothing but delays only itself; a viewer
// further behind than Options.RingBytes gets a snapshot instead. Close ends
// every stream.
package threads
