// Package viewtest is a test kit for the people who test agents: run an agent
// (a real one, or package agenttest), then assert what a UI would show —
// which subagents ran, nested how, ending how, saying what, calling which
// tools, leaving which state — as package httptest is for HTTP handlers.
//
// Three levels, from the whole view to one value:
//
//   - Golden views. [Golden] compares a view with a golden file holding its
//     JSON form (what "agview replay --json" prints), normalised so that the
//     same agent gives the same file every time: ids the client minted
//     (thread and run ids), timestamps and, with [AgentIDs], the ids an
//     agent mints at random become placeholders such as <run-1> and <id-3>
//     in order of first appearance. "go test -update" rewrites the file.
//     A difference fails the test with at most a few [Difference]s, each
//     naming its place in the tree ("researcher sa-2 › tool call tc-5 ›
//     result"), what was expected and what came.
//   - Assertions on the tree, for tests that should not pin everything:
//     [Find] an invocation by name or id and read its status, outcome,
//     parent, children, messages' text, tool calls and steps; [StateAt] a
//     JSON pointer; [Violations] and [PendingInterrupts]. They are plain
//     functions that return values and errors; the Require* and Expect*
//     helpers call t.Fatalf and t.Errorf with the error's text.
//   - [Tree] renders the invocation tree in a few lines (one per
//     invocation, indented as it nests, with status and counts) for small
//     goldens and failure messages.
//
// [ReadFile] folds a recording (any format transport.ReadFile reads) into a
// view and gives the stream's verdict, for "this producer must not break a
// rule" tests.
//
// viewtest defines the -update test flag. A test package that imports it
// reads that flag rather than defining its own.
package viewtest
