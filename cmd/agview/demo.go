package main

import (
	"context"
	"time"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
)

const demoHelp = `Starts the embedded demo agent (agenttest's demo swarm: a supervisor
delegating to concurrent researchers, nested subagents, tool calls, reasoning,
steps, run state, one subagent that errors and one that suspends on an
interrupt) on loopback and watches it, exactly as "agview watch" would. No
network and no set-up.

On a terminal the demo holds a conversation: answer the researcher's approval
interrupt (y approve, n reject, p a JSON payload, c cancel) and the suspended
researcher continues until the swarm finishes; then i asks a follow-up
question, which the supervisor answers in a new run on the same thread.

Examples:
  agview demo
  agview demo --json | jq '.invocations[] | {name, status}'
`

// demoDelay paces the demo agent so that streaming is visible.
const demoDelay = 4 * time.Millisecond

func runDemo(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "demo", "[--json]", demoHelp)
	asJSON := fs.Bool("json", false, "no UI: print the final view's JSON when the run ends")
	seed := fs.Int64("seed", 1, "the demo swarm's seed (each seed is a different, deterministic run)")
	pos, code, done := parseCommand(e, fs, args)
	if done {
		return code
	}
	if len(pos) != 0 {
		e.errorf("agview demo: takes no arguments, got %q", pos)
		return exitUsage
	}
	delay := demoDelay
	if *asJSON {
		delay = 0 // nobody watches: no need to pace it
	}
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: *seed}), &agenttest.Options{Delay: delay})
	defer srv.Close()
	c := client.New(srv.URL())
	defer c.Close()
	// The user's question is the first message of the thread's history.
	input := agenttest.SwarmInput(&agenttest.SwarmConfig{Seed: *seed, ThreadID: "demo-thread", RunID: "demo-run"})
	return e.watch(ctx, c, input, &watchConfig{asJSON: *asJSON, title: "demo"})
}
