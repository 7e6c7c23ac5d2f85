package examples_test

import (
	"context"
	"fmt"
	"github.com/agview/agview/internal/testnote"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The desktop example (examples/desktop) is a module of its own: Gio needs
// cgo and the X11, Wayland, EGL and Vulkan development files, and a package
// that imports it does not even compile without them, so it cannot be part
// of this module, whose `go vet ./...` must pass on a machine that has only
// Go. examples/go.work puts both modules in one workspace, so that
// `go run ./desktop` works from here.
//
// TestDesktop runs that module's vet and tests (go vet and go test -race, as
// the README's test command does for the others) where the packages Gio
// needs are installed. Where they are not it is skipped, naming what is
// missing and the Debian packages to install, unless AGVIEW_REQUIRE_DESKTOP=1
// (CI: .ci/run installs them) makes it a failure.

// desktopPackages are the Debian packages .ci/run installs for Gio.
const desktopPackages = "gcc libc6-dev pkg-config libwayland-dev libx11-dev libx11-xcb-dev libxkbcommon-x11-dev libgles2-mesa-dev libegl1-mesa-dev libffi-dev libxcursor-dev libvulkan-dev libgl1-mesa-dri"

// gioPkgConfig are the pkg-config modules Gio's cgo directives name on Linux.
var gioPkgConfig = []string{"egl", "wayland-egl", "wayland-client", "wayland-cursor", "x11", "x11-xcb", "xkbcommon", "xkbcommon-x11", "xcursor", "xfixes"}

// gioHeaders are the headers Gio's cgo code includes on Linux, under
// /usr/include on Debian.
var gioHeaders = []string{"EGL/egl.h", "X11/Xlib.h", "X11/Xlib-xcb.h", "xkbcommon/xkbcommon-x11.h", "X11/Xcursor/Xcursor.h",
	"X11/extensions/Xfixes.h", "wayland-client.h", "wayland-egl.h", "vulkan/vulkan.h"}

// desktopMissing says what the desktop module's build lacks; "" when
// nothing.
func desktopMissing() string {
	var missing []string
	out, err := exec.Command("go", "env", "CGO_ENABLED", "CC").Output()
	if err != nil {
		return "go env: " + err.Error()
	}
	env := strings.Fields(string(out))
	if len(env) < 2 || env[0] != "1" {
		missing = append(missing, "cgo (CGO_ENABLED=1)")
	} else if _, err := exec.LookPath(env[1]); err != nil {
		missing = append(missing, "a C compiler ("+env[1]+")")
	}
	if _, err := exec.LookPath("pkg-config"); err != nil {
		missing = append(missing, "pkg-config")
	} else {
		for _, m := range gioPkgConfig {
			if exec.Command("pkg-config", "--exists", m).Run() != nil {
				missing = append(missing, m+".pc")
			}
		}
	}
	// The headers are stat'ed, not only looked for through pkg-config: go
	// test caches a result until a file the test opened or stat'ed changes,
	// so installing the packages makes it run again.
	for _, h := range gioHeaders {
		if _, err := os.Stat(filepath.Join("/usr/include", h)); err != nil {
			missing = append(missing, h)
		}
	}
	return strings.Join(missing, ", ")
}

// desktopSkip is why TestDesktop skips, set by TestMain.
var desktopSkip string

func TestMain(m *testing.M) {
	if missing := desktopMissing(); missing != "" && os.Getenv("AGVIEW_REQUIRE_DESKTOP") != "1" {
		desktopSkip = fmt.Sprintf("examples/desktop not tested: Gio needs %s (Debian: apt-get install %s; AGVIEW_REQUIRE_DESKTOP=1 makes this a failure)", missing, desktopPackages)
		fmt.Fprintln(os.Stderr, "SKIP", desktopSkip)
	}
	os.Exit(m.Run())
}

func TestDesktop(t *testing.T) {
	if desktopSkip != "" {
		testnote.Skip(t, desktopSkip)
	}
	if missing := desktopMissing(); missing != "" {
		t.Fatalf("AGVIEW_REQUIRE_DESKTOP=1 but Gio needs %s: apt-get install %s", missing, desktopPackages)
	}
	readInputs(t)
	ctx, cancel := context.WithTimeout(t.Context(), 9*time.Minute)
	defer cancel()
	for _, args := range [][]string{
		{"vet", "./..."},
		{"test", "-race", "./..."},
	} {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = "desktop"
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("cd examples/desktop && go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("go %s:\n%s", strings.Join(args, " "), out)
	}
}

// readInputs reads every file the desktop module's build and tests read
// (its own files and the library's, which it replaces with ../..): go test
// caches a passing result until a file the test binary opened changes, and
// it does not see what the go commands this test runs read.
func readInputs(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") || name == "bff" || name == "journalnats" || name == "integration") {
				return filepath.SkipDir // not built by the desktop module
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".mod", ".sum", ".work", ".png", ".json":
			_, err = os.ReadFile(path)
		}
		return err
	})
	if err != nil {
		t.Fatalf("reading the desktop module's inputs: %v", err)
	}
}
