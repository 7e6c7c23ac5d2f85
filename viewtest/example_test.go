package viewtest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/event"
	"github.com/agview/agview/view"
	"github.com/agview/agview/viewtest"
)

// A test of an agent: run it (here the demo swarm of package agenttest),
// then assert what a UI would show.
func Example() {
	var t testing.TB = exampleT{} // in a test: the *testing.T the test gets
	srv := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer srv.Close()
	v := viewtest.Run(t, srv.URL(), &event.RunAgentInput{ThreadID: "t1", RunID: "r1"})

	viewtest.ExpectNoViolation(t, v)
	viewtest.ExpectStatus(t, v, "sa-731e9707", view.Errored)
	summarizer := viewtest.RequireInvocation(t, v, "summarizer")
	fmt.Println(summarizer.Status(), "under", summarizer.Parent())
	fmt.Print(viewtest.Tree(v))
	// The whole view against testdata/swarm.golden.json (go test -update writes it):
	//   viewtest.Golden(t, v, "swarm.golden.json")

	// Output:
	// finished under sa-d323eef0
	// parent agent suspended · 8 messages · 4 tool calls · 3 steps
	//   researcher sa-0dd15648 suspended · 6 messages · 3 tool calls · 1 step
	//   researcher sa-d323eef0 finished · 8 messages · 3 tool calls · 1 step
	//     summarizer sa-46de3326 finished · 1 message · 1 step
	//   researcher sa-819d33c3 finished · 6 messages · 2 tool calls · 1 step
	//   researcher sa-731e9707 errored: could not retrieve the primary dataset: data.transport-agency.example returned HTTP 503 three times; giving up on this track · 5 messages · 2 tool calls · 1 step
}

// exampleT stands in for the *testing.T of a real test in Example.
type exampleT struct{ testing.TB }

func (exampleT) Helper()                           {}
func (exampleT) Context() context.Context          { return context.Background() }
func (exampleT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
