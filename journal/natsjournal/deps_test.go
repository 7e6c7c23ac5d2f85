package natsjournal_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientLinksNoNATS: a program that imports only package client (and
// through it package journal) links no NATS code, so that `go version -m`
// of such a binary names no nats-io module: the NATS backend is this
// package, which only programs that import it link.
func TestClientLinksNoNATS(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	for _, pkg := range []string{"github.com/agview/agview/client", "github.com/agview/agview/journal"} {
		t.Run(pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
			require.NoError(t, err, "go list: %s", out)
			deps := strings.Fields(string(out))
			require.Contains(t, deps, "github.com/agview/agview/journal", "the list is of %s's dependencies", pkg)
			for _, d := range deps {
				assert.NotContains(t, d, "nats-io", "%s links %s", pkg, d)
			}
		})
	}
	// And the check can fail: this package links NATS.
	out, err := exec.Command("go", "list", "-deps", "github.com/agview/agview/journal/natsjournal").CombinedOutput()
	require.NoError(t, err, "go list: %s", out)
	assert.Contains(t, string(out), "github.com/nats-io/nats.go\n")
}
