package transport_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when any goroutine outlives them: every
// source, server and ping loop must be stopped and waited for.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
