package tui

import "io"

// Options configures Run and New. nil means all defaults; the struct is
// copied, never retained (the Conversation it names is).
type Options struct {
	// Title is shown in the header and the terminal's title, e.g. the
	// agent's URL or "demo".
	Title string
	// FPS caps the frame rate: the model takes the store's latest view at
	// most FPS times a second, however fast events arrive. 0 means
	// DefaultFPS; values above 120 are lowered to 120.
	FPS int
	// Input is where Run reads keys; nil means the terminal: standard input,
	// or the controlling terminal when standard input is not one.
	Input io.Reader
	// Output is where Run draws; nil means standard output.
	Output io.Writer
	// Conversation continues the thread: with it the user can send the next
	// message and answer the interrupts a run leaves pending (see New). nil
	// means the model only shows the store's view.
	Conversation Conversation
}

// withDefaults returns a copy of o (nil: the zero Options) with the
// defaults filled in.
func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.FPS <= 0 {
		c.FPS = DefaultFPS
	}
	c.FPS = min(c.FPS, maxFPS)
	return c
}
