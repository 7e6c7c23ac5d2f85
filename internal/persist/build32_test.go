package persist

import (
	"os"
	"os/exec"
	"testing"
)

// TestBuildsFor32BitPlatforms compiles the package for a 32-bit platform
// (GOARCH=386), where int is 32 bits: a constant that only a 64-bit int
// holds, such as 2³²-1 for a key's length, does not compile there. Every
// other platform's int is 64 bits, so only a cross-compilation sees it.
func TestBuildsFor32BitPlatforms(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the package")
	}
	cmd := exec.Command("go", "build", ".")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=386", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build for linux/386: %v\n%s", err, out)
	}
}
