package viewtest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/agview/agview/client"
	"github.com/agview/agview/event"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/transport"
	"github.com/agview/agview/view"
)

// Verdict is what "agview verify" would say of a stream.
type Verdict struct {
	// Accepted reports that no event was rejected.
	Accepted bool
	// Events is the number of events read.
	Events int
	// Rules are the rule ids of the rejected events, in order.
	Rules []string
}

// ReadFile folds the recording at path (JSONL, SSE text or a JSON array,
// detected as transport.ReadFile detects them) into a fresh view, exactly as
// "agview replay" does, and gives the stream's verdict. The error is
// unusable input, as "agview verify" says it: a file that cannot be read or
// framed, or that holds no events or no run; a rejected event is not an
// error but part of the verdict.
func ReadFile(ctx context.Context, path string) (*view.View, Verdict, error) {
	b := reducer.NewBuilder(view.New())
	var ferr error
	for f, err := range transport.ReadFileFrames(ctx, path, transport.FormatAuto, nil) {
		if err != nil {
			if !errors.Is(err, transport.ErrIncomplete) {
				ferr = err
			}
			break
		}
		_ = b.FoldJSON(f.Data)
	}
	v := b.End(ferr)
	rules := Violations(v)
	if ferr == nil {
		// As "agview verify": a recording with nothing to judge must not
		// pass a "no rule broken" test.
		switch {
		case v.EventCount() == 0:
			ferr = fmt.Errorf("viewtest: %s: no events", path)
		case len(v.Runs()) == 0 && len(rules) == 0:
			what := count(v.EventCount(), "event") + ", none of them started a run"
			if v.EventCount() == 1 {
				what = "1 event, which did not start a run"
			}
			ferr = fmt.Errorf("viewtest: %s: no run: %s (RUN_STARTED)", path, what)
		}
	}
	return v, Verdict{Accepted: len(rules) == 0, Events: v.EventCount(), Rules: rules}, ferr
}

// RequireFile is ReadFile that stops the test on unusable input.
func RequireFile(t testing.TB, path string) (*view.View, Verdict) {
	t.Helper()
	v, verdict, err := ReadFile(t.Context(), path)
	if err != nil {
		t.Fatalf("viewtest: %v", err)
	}
	return v, verdict
}

// Run runs the agent at url (an agenttest server's URL, or a real agent's)
// with input through a client.Client and returns the final view; a run that
// cannot reach the agent stops the test. A nil input starts a new thread.
func Run(t testing.TB, url string, input *event.RunAgentInput, opts ...client.Option) *view.View {
	t.Helper()
	c := client.New(url, opts...)
	defer c.Close()
	v, err := c.Run(t.Context(), input)
	if err != nil && v.EventCount() == 0 {
		t.Fatalf("viewtest: run %s: %v", url, err)
	}
	return v
}
