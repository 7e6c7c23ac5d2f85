package agpb_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/agview/agview/internal/agpb"
)

// schemaFiles are the files copied from ../shared/spec/proto.
var schemaFiles = []string{"events.proto", "types.proto", "patch.proto", "LICENSE"}

// TestSchemaCopyMatchesShared fails when proto/ differs from
// ../shared/spec/proto beside the module root, where that folder exists.
func TestSchemaCopyMatchesShared(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "spec", "proto")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("no %s beside the module root (a clone of the repository alone has none)", shared)
	}
	for _, name := range schemaFiles {
		want, err := os.ReadFile(filepath.Join(shared, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("proto", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("proto/%s differs from %s: copy it again (and regenerate: go generate ./internal/agpb)",
				name, filepath.Join(shared, name))
		}
	}
}

// TestGeneratedCodeIsCurrent regenerates the Go code with protoc and the
// protoc-gen-go of go.mod's google.golang.org/protobuf, and fails when it
// differs from the committed .pb.go files. It skips only when protoc (or the
// well-known types' .proto files) is absent and neither CI nor
// AGVIEW_REQUIRE_PROTOC=1 is set; .ci/run installs them and sets the latter.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the generator command line assumes a Unix layout")
	}
	protoc, err := exec.LookPath("protoc")
	include := "/usr/include"
	if _, serr := os.Stat(filepath.Join(include, "google", "protobuf", "struct.proto")); err == nil && serr != nil {
		err = serr
	}
	if err != nil {
		if os.Getenv("CI") != "" || os.Getenv("AGVIEW_REQUIRE_PROTOC") == "1" {
			t.Fatalf("CI (or AGVIEW_REQUIRE_PROTOC=1) is set but protoc or google/protobuf/struct.proto is missing (%v): "+
				"install Debian's protobuf-compiler and libprotobuf-dev", err)
		}
		t.Skipf("protoc or the well-known types are not installed (%v); .ci/run installs them", err)
	}
	tmp := t.TempDir()
	plugin := filepath.Join(tmp, "protoc-gen-go")
	build := exec.Command("go", "build", "-o", plugin, "google.golang.org/protobuf/cmd/protoc-gen-go")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building protoc-gen-go: %v\n%s", err, out)
	}
	out := filepath.Join(tmp, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	const pkg = "github.com/agview/agview/internal/agpb"
	cmd := exec.Command(protoc, "--plugin=protoc-gen-go="+plugin, "-I", "proto", "-I", include,
		"--go_out="+out, "--go_opt=paths=source_relative",
		"--go_opt=Mevents.proto="+pkg, "--go_opt=Mtypes.proto="+pkg, "--go_opt=Mpatch.proto="+pkg,
		"events.proto", "types.proto", "patch.proto")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, b)
	}
	for _, name := range []string{"events.pb.go", "types.pb.go", "patch.pb.go"} {
		want, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what protoc and protoc-gen-go make of proto/ now: run go generate ./internal/agpb", name)
		}
	}
}

// TestRoundTrip is a smoke test of the generated types: an event survives
// Marshal and Unmarshal.
func TestRoundTrip(t *testing.T) {
	sub := "sub-1"
	in := &agpb.Event{Event: &agpb.Event_TextMessageContent{TextMessageContent: &agpb.TextMessageContentEvent{
		BaseEvent: &agpb.BaseEvent{Type: agpb.EventType_TEXT_MESSAGE_CONTENT, RawEvent: structpb.NewStringValue("x")},
		MessageId: "m1", Delta: "hi", SubagentRunId: &sub,
	}}}
	b, err := proto.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := &agpb.Event{}
	if err := proto.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(in, out) {
		t.Fatalf("round trip: got %v, want %v", out, in)
	}
}
