// Package patch holds agview's run-scoped JSON state: an immutable JSON
// Document, and Apply, which applies an RFC 6902 JSON Patch to it atomically.
//
// STATE_SNAPSHOT replaces the run's state with New(snapshot); STATE_DELTA
// replaces it with the Document Apply returns; ACTIVITY_SNAPSHOT and
// ACTIVITY_DELTA do the same for an activity message's content.
//
//	state := patch.EmptyObject()
//	next, warnings, err := patch.Apply(state, delta, nil)
//	if err != nil {
//		// The delta is skipped whole (docs/protocol.md G8): state is unchanged and
//		// err is a *patch.Error naming the failing operation and path.
//	}
//
// # Semantics
//
// Apply follows RFC 6902 and RFC 6901, with the decisions of the AG-UI
// reference client (fast-json-patch) where the RFCs leave room:
//   - A patch applies whole or not at all.
//   - An operation whose "op" is unknown, missing or not a string is removed
//     with a Warning and the rest applies (docs/protocol.md G2, G8);
//     Options.RejectUnknownOps makes it an error.
//   - Array indices are "0" or digits without a leading zero; "-" (append)
//     only for add; negative indices are refused.
//   - test needs "value" (null is a value, absence is an error), works on the
//     whole document with the path "", fails on a missing location, and
//     compares numbers as IEEE 754 doubles (1 equals 1.0).
//   - Any document may be patched, including null, strings and numbers.
//   - An operation that would grow the document past Options.MaxDocumentBytes
//     fails with ErrTooLarge, so a copy bomb stops early.
//   - An operation that would nest the document deeper than MaxNesting
//     (9,997) levels fails with ErrTooDeep (docs/protocol.md G21, G8), so a
//     document the fold accepts always encodes again, three levels down in
//     a view's JSON form, with encoding/json's limit of 10,000; and a depth bomb
//     (copying the document into itself until it is millions of levels deep
//     yet a few bytes long) stops too. Every node records its height, so the
//     check costs O(length of the path). New refuses such input as well, and
//     whatever walks a document (encoding, Equal) may recurse once per level.
//   - A message quotes at most 200 bytes of a path or an op, whatever their
//     length; Error.Path keeps the whole path.
//
// # Cost
//
// A Document is a persistent tree. Apply never re-parses or re-encodes the
// document: each operation copies only the nodes on its path and shares the
// rest with the input, so a delta costs about the same on a 1 KB state as on
// a 1 MB one. Objects of up to 16 members and arrays of up to 64 elements are
// slices copied on write; larger objects are hash array mapped tries and
// larger arrays B+trees of slices, so updating, adding or removing one member
// or element costs O(log n) whatever the index. copy shares the copied value
// instead of duplicating it. The JSON encoding is produced on the first call
// to JSON, AppendJSON, String or MarshalJSON, in O(size), and memoised.
//
// Apply reads the patch once, straight from its bytes, and applies each
// operation as it is read (a patch still applies whole or not at all): it
// builds nodes only for the values it inserts, and a small object or array
// copied on a path is one allocation. A typical delta of one to three
// operations costs a dozen allocations or fewer.
//
// # Differences from JavaScript
//
// Members are encoded in insertion order (a replaced member keeps its place,
// an added or moved one goes last). JavaScript's JSON.stringify does the same
// except that it puts integer-like member names ("0", "42") first, in numeric
// order. "__proto__" is an ordinary member name here; fast-json-patch refuses
// paths through it.
//
// # Concurrency
//
// Documents are immutable values and safe for concurrent use by any number of
// goroutines, including the first, memoised JSON encoding. Apply and New are
// pure functions of their arguments; an Options value may be shared because
// Apply only reads it. The package has no mutable global state.
package patch
