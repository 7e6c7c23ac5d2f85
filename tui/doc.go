// Package tui is agview's terminal user interface: a live view of an AG-UI
// agent's run, with one pane per invocation, nested as the subagent tree
// nests, drawn from a store's latest view.
//
//	c := client.New(url)
//	go c.Run(ctx, input)
//	err := tui.Run(ctx, c.Store(), &tui.Options{Title: url, Conversation: conv})
//
// # What it shows
//
// A header with the title, the run's status (a spinner while it runs, then
// finished, interrupted, errored, failed, cancelled or incomplete), the
// number of events, the subagents counted by status, the number of
// violations and warnings, and the tokens the last run reported (in, out
// and total; view.Run.Tokens), when it reported any.
//
// Below it, a pane per invocation: the parent agent first, then each
// subagent under the invocation that spawned it, indented one step per
// level. A pane's title carries its name, id and status: a spinner while it
// runs, then a badge, finished (✓), suspended (‖), errored (✗), abandoned
// (⊘) or unannounced (?). A collapsed pane shows what the invocation is (its
// description) and the latest thing it did: the tail of the message it is
// streaming, so text moves as it arrives, or its latest tool call with its
// arguments and result, or its error. An expanded pane shows all of it in
// order: steps, messages, reasoning, tool calls with their arguments,
// results and the subagents they spawned, activity, the error or the
// interrupts a suspended invocation waits for. A message still streaming
// ends with a cursor (▍); a text or reasoning message cut off while it
// streamed (its run errored, its transport broke or its stream was
// cancelled) is marked ⊘ cut off, after its text in the one-line summary and
// under it in the expanded pane, as an abandoned tool call is marked ⊘
// abandoned.
//
// A user message shows in the pane of the invocation that holds it (the
// parent agent's, for what the user said), in order, as "user › …". A
// suspended invocation whose interrupt awaits an answer says what it asks.
//
// The pane tree is bounded so that a hostile stream cannot make the screen
// grow without end: panes nest at most 16 levels deep and an invocation shows
// at most 200 child panes; the invocations cut (with everything below them)
// are counted on a line under the last pane shown.
//
// The s key shows the run-scoped state as a JSON tree whose objects and
// arrays fold and unfold (an unfolded one shows 200 members, then counts the
// rest); the d key lists the diagnostics; ? lists every key. The footer names the keys that matter where the user is, dropping
// the least useful ones first on a narrow terminal: ?, q and the
// conversation's keys always stay, s and d from 80 columns up.
//
// # Conversation
//
// A model given a Conversation (Options.Conversation) holds the thread's
// conversation rather than one run: it stays open when a run ends, and
//   - i opens an input line; enter sends its text as the next user message
//     (Turn.Message): a new run on the same thread, its history included.
//   - An interrupt left pending shows in a box above the footer: who asks,
//     what (its message), the tool call it holds, the shape of the answer
//     (its responseSchema), its expiry. y approves it and n rejects it (a
//     resolved answer whose payload is {"approved":true} or
//     {"approved":false}, as AG-UI expresses a denial; only for interrupts
//     without a response schema or with an "approved" property), p opens the
//     input line on a JSON payload to send (prefilled from the schema), c
//     cancels it (the only answer an expired interrupt takes). Several
//     pending interrupts are asked one after the other; once each has its
//     answer they are sent together (Turn.Answers), as AG-UI requires, and
//     the suspended subagent continues in its pane.
//
// Sending a message selects the parent agent's pane, where the question and
// its answer show; answering selects the pane of the subagent that asked.
//
// The model calls Conversation.Continue on a goroutine of its own and shows
// the run through the store; an error it returns is shown above the
// footer. Nothing can be sent while a run is under way.
//
// # Keys
//
//	↑ ↓ j k, tab shift+tab   previous / next pane (tab wraps around)
//	← → h l                  parent pane / first child pane
//	home end g G             first / last pane
//	pgup pgdown              a page up / down
//	enter, space             expand or collapse the selected pane
//	a                        expand all panes (collapse all when all are)
//	s                        the state (s again, or esc, to come back)
//	d                        the diagnostics (d again, or esc, to come back)
//	i                        write the next message (with a Conversation)
//	y n p c                  approve, reject, answer with JSON, cancel the
//	                         interrupt asked (with a Conversation)
//	?                        every key (? again, or esc, to come back)
//	q, ctrl+c                quit (on the input line only ctrl+c; esc
//	                         closes it)
//
// In the state view the arrows move between the tree's values, enter and
// space fold or unfold an object or array, → unfolds and ← folds (or moves
// to the parent).
//
// # Frames
//
// The screen is drawn from the store's latest view at a capped frame rate
// (Options.FPS, DefaultFPS by default), never once per event: however many
// subagents stream at once, the model takes one view per frame. Panes are
// cached by invocation (a view shares an *view.Invocation with the next
// while it is unchanged), so a frame re-renders only the panes whose
// invocation changed. The screen is laid out to the terminal's width: long
// lines are cut with "…", text is wrapped, and when the panes are taller
// than the screen the body scrolls to keep the selected pane in sight.
//
// Text from the wire is never written to the terminal as it came: escape
// sequences and control characters are removed first.
//
// When Run ends, the screen is restored and one line (Summary) stays in the
// terminal: the last run's status, the subagents by status, the events and
// how many were rejected.
//
// # Without a terminal
//
// Lines writes plain progress lines instead (a run started or ended, an
// invocation started or changed status, a tool call answered, each
// violation and warning): for logs, pipes and CI.
//
// # Embedding
//
// New returns the bubbletea model (bubbletea v2) for a program of one's own.
// Send it Frame messages to drive it without a store, as its tests do.
//
// # Concurrency
//
// Run and Lines may be called from any goroutine, any number of times, on
// the same store. A Model belongs to the goroutine that runs its bubbletea
// program: its methods must not be called concurrently (Close is called once
// the program has ended). Its frame loop runs as a bubbletea command on
// another goroutine and touches only the store, which is safe for concurrent
// use, and views, which are immutable. Conversation.Continue runs on a
// goroutine of the model's, one turn at a time; Close (and Run, when the
// program ends) cancels its context and waits for it to return. Lines'
// subscriber runs on the store's subscriber goroutine and serialises its
// writes to w with a mutex; stop waits for a write under way.
package tui
