// Desktop is a native window (Gio, gioui.org) on an AG-UI agent's thread:
// the invocation tree on the left, one pane per invocation with its
// streaming text, reasoning, tool calls with arguments and results, steps
// and status, the run-scoped state as a collapsible tree, the pending
// interrupts with Approve / Reject, and a box that sends the next message.
//
//	cd examples && go run ./desktop                       # the demo swarm, in-process
//	cd examples && go run ./desktop -agent URL [-message TEXT]
//	cd examples && go run ./desktop -journal file:DIR     # record the runs
//	cd examples && go run ./desktop -journal file:DIR -thread ID   # watch a thread, read-only
//
// It is a module of its own: Gio needs cgo and the X11, Wayland, EGL and
// Vulkan development files (see README.md), and examples/go.work joins it
// to the examples module so that the commands above work from there.
//
// # Concurrency
//
// Gio's window has one UI goroutine, which runs the event loop and draws
// every frame; it must never wait. The store calls the UI's subscriber on a
// goroutine of its own with the latest view (skipping views when the
// subscriber is slower than the stream); the subscriber stores it in an
// atomic pointer and calls Window.Invalidate, which never blocks (feed).
// Each frame loads that pointer and rebuilds the panes of the invocations
// that changed since the view the previous frame drew (View.ChangedSince);
// a view is immutable, so reading it needs no lock. Turns (Client.Run and
// Client.Continue, which block until the run ends) run on the sender's
// goroutine, one at a time; their results reach the window through the
// store like every other event. The UI goroutine therefore makes no call
// into agview that can block: TestUINeverWaits holds up the subscriber,
// blocks every agent call and a second subscriber forever, and checks that
// every frame, click and keystroke still returns.
package main
