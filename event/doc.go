// Package event is the AG-UI wire vocabulary: one Go type per event type of
// the 1.0 release (and the five deprecated THINKING_* types), the message,
// tool-call, interrupt, outcome and RunAgentInput data types, and strict
// decoding and encoding of their JSON.
//
// # Decoding
//
// Decode turns one event's JSON into its concrete type (*TextMessageContent,
// *RunStarted, …) and checks everything that needs no history (docs/protocol.md
// §3, §6.1, G2, G3): required fields, JSON types, enums, integer timestamps,
// no null on an optional field, no subagentRunId: null (R1). It tolerates
// what the protocol tolerates, with a Warning on the event (Base.Warnings):
// an unknown member is left out and named by its JSON pointer (G20), the
// legacy nulls read as absent, a tag on a run-scoped event is dropped, an
// unknown union member in an optional position is removed. A malformed JSON
// Patch operation is a schema error (G8); empty input is ErrEmpty, no event
// at all (G18). The rules that need history (ownership, lifecycle,
// R14 on subagent outcomes) are the reducer's.
//
// Errors are typed: *DecodeError (with the event type, the JSON pointer and
// byte offset of the offending value, and the rule id) for an event that must
// be refused, *UnknownTypeError for a type this package does not know, which
// callers skip with a warning. Match them with errors.As.
//
// Decoder reads a JSON Lines stream as an iterator of (Event, error); an
// undecodable line yields its error and reading goes on.
//
// Payloads the reducer does not interpret (state snapshots and patches,
// activity content, RAW and CUSTOM payloads, metadata, rawEvent) stay
// json.RawMessage, verbatim from the input.
//
// # Encoding
//
// Encode writes an event's wire JSON, "type" first, leaving absent fields out.
// Every event type also implements json.Marshaler and json.Unmarshaler
// through Encode and Decode. For every event e that Decode returns,
// Decode(Encode(e)) equals e, up to the formatting of raw values.
//
// # Protobuf
//
// DecodeProto decodes one ag_ui.Event message of AG-UI's protobuf encoding
// (application/vnd.ag-ui.event+proto) into the same event types, with the
// same checks, errors and warnings as the event's JSON: it transcodes the
// message to JSON and decodes that (the common events made of strings take a
// fast path that gives the same result), and names the field's JSON pointer
// and byte offset in the message when it refuses one. AppendProto and
// AppendProtoFrame encode, byte for byte as the reference encoder
// (@ag-ui/encoder@1.0.0) does; AppendProtoJSON and ProtoJSON convert an
// event's JSON to protobuf and back without checking it, for tools that must
// carry a producer's mistakes. The schema is ../shared/spec/proto's
// (internal/agpb holds the copy and the code protoc-gen-go makes of it) with
// the arms and fields @ag-ui/proto@1.0.0 adds, so the 31 event types of the
// 1.0 release all have a protobuf form; the deprecated THINKING_* types have
// none.
//
// # Concurrency
//
// Decode, Encode, DecodeInput and the protobuf functions are safe to call
// from any number of goroutines. Events are plain values: a decoded event owns its memory (the
// input may be reused as soon as Decode returns); an event may be read from
// any number of goroutines once built, and must not be written while others
// read it. A Decoder is for one goroutine at a time.
package event
