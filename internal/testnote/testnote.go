// Package testnote makes a skipped test seen. "go test ./..." prints
// nothing but "ok" for a package whose tests pass, unless -v: t.Skip's
// reason, t.Log and even what TestMain writes to standard error or
// standard output are all dropped. A test that skips for want of something
// on the machine (a browser, a NATS server) then passes silently, and a
// reader of the output believes it ran.
//
// Skip skips the test as t.Skip does and also writes the reason where a
// person or CI sees it: the controlling terminal (/dev/tty, which go test
// does not capture), when there is one, and the file AGVIEW_TEST_NOTES
// names, when set (CI prints it after the run). Examples' tests (their own
// module) import it too: internal packages are visible to every path under
// github.com/agview/agview.
//
// # Concurrency
//
// Skip may be called from tests running in parallel.
package testnote

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// EnvFile is the environment variable naming a file that Skip appends its
// notes to.
const EnvFile = "AGVIEW_TEST_NOTES"

var mu sync.Mutex

// Skip marks t skipped with reason and makes the skip seen (see the
// package documentation). It does not return.
func Skip(t testing.TB, reason string) {
	t.Helper()
	Note(t, "SKIP "+reason)
	t.Skip(reason)
}

// Note writes "TEST: line" (TEST the test's name) where a person or CI sees
// it whether or not the test passes: the controlling terminal and the
// AGVIEW_TEST_NOTES file, as Skip does, and t.Log.
func Note(t testing.TB, line string) {
	t.Helper()
	t.Log(line)
	msg := fmt.Sprintf("%s: %s\n", t.Name(), line)
	mu.Lock()
	defer mu.Unlock()
	for _, dst := range destinations() {
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			continue // no terminal (CI), or a file that cannot be written
		}
		_, _ = f.WriteString(msg)
		_ = f.Close()
	}
}

// destinations returns where notes go: the AGVIEW_TEST_NOTES file and the
// terminal. Only the file when the variable is set (a test of this package
// must not write to the terminal of whoever runs it).
func destinations() []string {
	if p := os.Getenv(EnvFile); p != "" {
		return []string{p}
	}
	return []string{ttyPath}
}
