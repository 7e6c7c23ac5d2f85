package threads_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/agview/agview/agenttest"
	"github.com/agview/agview/journal"
	"github.com/agview/agview/threads"
)

// A service mounts the thread service under /agent, naming each request's
// owner from its own authentication (here a header a proxy sets).
func Example() {
	agent := agenttest.NewServer(agenttest.Swarm(&agenttest.SwarmConfig{Seed: 1}), nil)
	defer agent.Close()
	j := journal.NewMemory("") // or journal.Open(ctx, "file:DIR" or "nats://…", nil)
	svc, err := threads.New(j, agent.URL(), &threads.Options{
		Prefix:   "/agent",
		Identify: func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil },
	})
	if err != nil {
		panic(err)
	}
	defer svc.Close()
	mux := http.NewServeMux()
	mux.Handle("/agent/", svc)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	req, _ := http.NewRequest("POST", srv.URL+"/agent/threads", strings.NewReader(`{"message":"Hello"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-User", "alice")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	res.Body.Close()
	fmt.Println(res.Status, strings.HasPrefix(res.Header.Get("Location"), "/agent/threads/"))
	// Output: 201 Created true
}
