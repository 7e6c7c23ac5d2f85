// Package agpb is the Go code protoc-gen-go generates from the AG-UI protobuf
// schema (proto/events.proto, types.proto and patch.proto, package ag_ui).
//
// The schema is copied verbatim from ../shared/spec/proto (the AG-UI subagent
// protocol's .proto files, MIT, proto/LICENSE; the same field numbers as
// @ag-ui/proto@1.0.0); proto/README.md says where it came from. The tests of
// this package fail when the copy differs from ../shared/spec/proto (where that
// folder exists) and when the committed .pb.go files differ from what protoc
// and protoc-gen-go make of the schema now.
//
// It is internal: agview's protobuf codec (event.DecodeProto,
// event.AppendProto) is hand-written on google.golang.org/protobuf's protowire
// and decodes straight into the event types; this package is the independent
// reference its tests check it against.
//
// Regenerate with `go generate ./internal/agpb` (needs protoc with the
// google/protobuf well-known types, Debian's protobuf-compiler and
// libprotobuf-dev, and protoc-gen-go at the version in go.mod).
package agpb

//go:generate protoc -I proto -I /usr/include --go_out=. --go_opt=paths=source_relative --go_opt=Mevents.proto=github.com/agview/agview/internal/agpb --go_opt=Mtypes.proto=github.com/agview/agview/internal/agpb --go_opt=Mpatch.proto=github.com/agview/agview/internal/agpb events.proto types.proto patch.proto
