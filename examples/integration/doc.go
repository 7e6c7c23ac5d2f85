// Package integration is an integration test to copy: it starts an
// in-process AG-UI agent (package agenttest) with a script, runs
// client.Client against it over real HTTP, and asserts the final view — the
// invocation tree, the statuses, the messages and the run state — both
// field by field and against a golden JSON file (view.View.MarshalJSON).
//
// The package holds no code; the example is integration_test.go. The
// examples are a module of their own: run it from examples/ with
//
//	cd examples && go test ./integration
//
// and, after a deliberate change to what the agent sends, rewrite the
// golden files with
//
//	cd examples && go test ./integration -args -update
//
// # Concurrency
//
// Each test owns its agent server and its client, closes both before it
// returns, and may run in parallel with the others.
package integration
