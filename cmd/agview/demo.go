package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/client"
	"github.com/agview/agview/transport"
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

--speed paces it: 1 (the default) sends an event every 4 ms, 0.2 five
times slower, so that a person can follow it (the first run then takes about
15 s), 0 as fast as it can. --seed picks another, equally deterministic swarm.
Off a terminal (agview demo | cat) it prints a line per change and ends with
the parent agent's answer and the run's outcome.

With --serve the demo agent is not watched: it serves on a loopback port,
whose URL is printed, until interrupted (Ctrl-C), so that "agview watch" (or
any AG-UI client) has an agent to try: each request runs a swarm.

Examples:
  agview demo
  agview demo --serve &   # then: agview watch http://127.0.0.1:PORT
  agview demo --speed 0.2
  agview demo --seed 7 | cat
  agview demo --json | jq '.invocations[] | {name, status}'
`

// demoDelay paces the demo agent so that streaming is visible.
const demoDelay = 4 * time.Millisecond

func runDemo(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "demo", "[--json | --serve] [--seed N] [--speed F] [--max-event-bytes N]", demoHelp)
	asJSON := fs.Bool("json", false, "no UI: print the final view's JSON when the run ends")
	serve := fs.Bool("serve", false, "only serve the demo agent, on a loopback port it prints, until interrupted")
	seed := fs.Int64("seed", 1, "the demo swarm's seed (each seed is a different, deterministic run)")
	speed := fs.Float64("speed", 1, "how fast the demo agent streams: 1 an event every 4 ms, 0.2 five times slower, 0 unpaced")
	maxBytes := maxEventBytes(fs)
	pos, code, done := parseCommand(e, fs, args)
	if done {
		return code
	}
	if len(pos) != 0 {
		return e.fail("demo", *asJSON, fmt.Errorf("takes no arguments, got %q", pos))
	}
	if *speed < 0 || math.IsNaN(*speed) || math.IsInf(*speed, 0) {
		return e.fail("demo", *asJSON, fmt.Errorf("--speed %v: want 0 (unpaced) or a positive factor", *speed))
	}
	if *serve && *asJSON {
		return e.fail("demo", true, errors.New("--serve and --json exclude each other (watch the served agent with agview watch --json URL)"))
	}
	var delay time.Duration
	if *speed > 0 && !*asJSON { // nobody watches --json: no need to pace it
		delay = time.Duration(float64(demoDelay) / *speed)
	}
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: *seed}), &agenttest.Options{Delay: delay})
	defer srv.Close()
	if *serve {
		fmt.Fprintf(e.stdout, "demo agent serving at %s (WebSocket: %s); try:\n  agview watch %s\nCtrl-C stops it.\n",
			srv.URL(), srv.WSURL(), srv.URL())
		<-ctx.Done()
		return exitOK
	}
	var opts []client.Option
	if *maxBytes > 0 {
		opts = append(opts, client.WithTransportOptions(&transport.Options{MaxEventBytes: *maxBytes}))
	}
	c := client.New(srv.URL(), opts...)
	defer c.Close()
	// The user's question is the first message of the thread's history.
	input := agenttest.SwarmInput(&agenttest.SwarmConfig{Seed: *seed, ThreadID: "demo-thread", RunID: "demo-run"})
	return e.watch(ctx, c, input, &watchConfig{asJSON: *asJSON, title: "demo"})
}
