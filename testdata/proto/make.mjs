// Records AG-UI event streams with the reference protobuf encoder,
// @ag-ui/encoder@1.0.0 (which encodes with @ag-ui/proto@1.0.0), for agview's
// interoperability tests. Run from this folder:
//
//   npm install && node make.mjs
//
// For each stream below it writes NAME.jsonl (the events, one JSON object a
// line, as given to the encoder) and NAME.bin (what the encoder writes for an
// Accept that admits protobuf: each event as a 4-byte big-endian length and
// one ag_ui.Event message, concatenated). It also writes accept.json: the
// Content-Type the encoder chooses for a list of Accept headers. The Go tests
// read these files only; they never need npm.
import { readFileSync, writeFileSync } from "node:fs";
import { EventEncoder } from "@ag-ui/encoder";

const vectors = "../conformance/vectors/";

// Conformance vectors the reference accepts, chosen for the event types and
// data types they exercise.
const fromVectors = [
  "01-plain-reasoning-full-lifecycle",
  "01-plain-reasoning-encrypted-values",
  "01-plain-tool-result-structured-content",
  "01-plain-run-finished-outcome-interrupt",
  "01-plain-raw-and-custom-events",
  "01-plain-state-null-values-preserved",
  "01-plain-activity-non-replacing-snapshot",
  "11-input-echo-adds-history",
  "11-snap-tool-call-ownership",
  "13-chunk-tool-interleaved-subagents",
  "15-large-supervisor-five-researchers",
];

// Events no vector holds: every base field, every optional field set, and
// values whose encoding has choices (numbers, Struct key order, unicode).
const kitchenSink = [
  { type: "RUN_STARTED", threadId: "th-1", runId: "r-1", parentRunId: "r-0", protocolVersion: "1.0",
    timestamp: 1733011200000, metadata: { b: 1, a: [true, null, "x"], "ü": { n: -2.5 } },
    input: { threadId: "th-1", runId: "r-1", messages: [
      { id: "u1", role: "user", content: [{ type: "text", text: "look" },
        { type: "image", source: { type: "url", value: "https://x/y.png", mimeType: "image/png" } }] },
      { id: "s1", role: "system", content: "be brief", name: "sys" }],
      tools: [{ name: "search", description: "web search", parameters: { type: "object" } }],
      context: [{ description: "tz", value: "UTC" }], state: { count: 0 }, forwardedProps: { k: "v" } } },
  { type: "STEP_STARTED", stepName: "plan", subagentRunId: "sa-1", timestamp: -5 },
  { type: "SUBAGENT_STARTED", subagentRunId: "sa-1", name: "researcher", description: "digs",
    parentToolCallId: "tc-0", parentMessageId: "m-0" },
  { type: "TEXT_MESSAGE_START", messageId: "m-1", role: "assistant", name: "bot", subagentRunId: "sa-1" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m-1", delta: "héllo 🌍 \u2028 \"q\"", subagentRunId: "sa-1" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m-1", delta: "" },
  { type: "TEXT_MESSAGE_END", messageId: "m-1", subagentRunId: "sa-1" },
  { type: "TEXT_MESSAGE_CHUNK", messageId: "m-2", role: "user", delta: "chunk", name: "n" },
  { type: "TOOL_CALL_START", toolCallId: "tc-1", toolCallName: "search", parentMessageId: "m-1" },
  { type: "TOOL_CALL_ARGS", toolCallId: "tc-1", delta: "{\"q\":1}" },
  { type: "TOOL_CALL_END", toolCallId: "tc-1" },
  { type: "TOOL_CALL_CHUNK", toolCallId: "tc-2", toolCallName: "calc", parentMessageId: "m-1", delta: "{}" },
  { type: "TOOL_CALL_RESULT", messageId: "t-1", toolCallId: "tc-1", content: "42", role: "tool" },
  { type: "TOOL_CALL_RESULT", messageId: "t-2", toolCallId: "tc-2",
    content: [{ type: "text", text: "a" }, { type: "document", source: { type: "data", value: "AAAA", mimeType: "application/pdf" } }] },
  { type: "STATE_SNAPSHOT", snapshot: { n: 1.5, big: 1e21, small: 1e-7, neg: -0.25, list: [1, "2", { three: 3 }], z: null } },
  { type: "STATE_DELTA", delta: [{ op: "add", path: "/a", value: 1 }, { op: "remove", path: "/b" },
    { op: "replace", path: "/c", value: "x" }, { op: "move", from: "/d", path: "/e" },
    { op: "copy", from: "/e", path: "/f" }, { op: "test", path: "/a", value: 1 }] },
  { type: "MESSAGES_SNAPSHOT", messages: [
    { id: "u1", role: "user", content: "hi" },
    { id: "a1", role: "assistant", content: "yo", toolCalls: [{ id: "tc-1", type: "function",
      function: { name: "search", arguments: "{}" } }], subagentRunId: "sa-1" },
    { id: "t-1", role: "tool", content: "42", toolCallId: "tc-1", error: "none" },
    { id: "d1", role: "developer", content: "dev" },
    { id: "act-1", role: "activity", activityType: "PLAN", content: { steps: ["a"] } },
    { id: "rs-1", role: "reasoning", content: "think" }] },
  { type: "ACTIVITY_SNAPSHOT", messageId: "act-2", activityType: "PLAN", content: { steps: [] }, replace: false },
  { type: "ACTIVITY_DELTA", messageId: "act-2", activityType: "PLAN", patch: [{ op: "add", path: "/steps/-", value: "x" }] },
  { type: "RAW", event: { upstream: true }, source: "openai", rawEvent: "orig" },
  { type: "CUSTOM", name: "ping", value: null },
  { type: "REASONING_START", messageId: "rs-2" },
  { type: "REASONING_MESSAGE_START", messageId: "rm-2", role: "reasoning" },
  { type: "REASONING_MESSAGE_CONTENT", messageId: "rm-2", delta: "hmm", subagentRunId: "sa-1" },
  { type: "REASONING_MESSAGE_CHUNK", messageId: "rm-2", delta: "more" },
  { type: "REASONING_MESSAGE_END", messageId: "rm-2" },
  { type: "REASONING_END", messageId: "rs-2" },
  { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "rm-2", encryptedValue: "gAAA" },
  { type: "SUBAGENT_FINISHED", subagentRunId: "sa-1", result: { ok: true }, outcome: { type: "suspended", interruptIds: ["i-1"] } },
  { type: "SUBAGENT_ERROR", subagentRunId: "sa-2", message: "timeout", code: "E1" },
  { type: "STEP_FINISHED", stepName: "plan", subagentRunId: "sa-1" },
  { type: "RUN_FINISHED", threadId: "th-1", runId: "r-1", result: [1, 2],
    outcome: { type: "success", pendingToolCallIds: ["tc-2"] },
    usage: [{ provider: "p", model: "m", inputTokens: 10, outputTokens: 0, totalTokens: 10, cacheWriteInputTokens: 3 }] },
  { type: "RUN_STARTED", threadId: "th-1", runId: "r-2" },
  { type: "RUN_ERROR", message: "boom", code: "E2", usage: [{ reasoningTokens: 4 }] },
];

const encoder = new EventEncoder({ accept: "application/vnd.ag-ui.event+proto" });
if (encoder.getContentType() !== "application/vnd.ag-ui.event+proto") throw new Error("the encoder did not pick protobuf");

function record(name, events) {
  const frames = events.map((e) => encoder.encodeBinary(e));
  const total = frames.reduce((n, f) => n + f.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const f of frames) { out.set(f, at); at += f.length; }
  writeFileSync(`${name}.bin`, out);
  writeFileSync(`${name}.jsonl`, events.map((e) => JSON.stringify(e)).join("\n") + "\n");
}

for (const name of fromVectors) {
  const v = JSON.parse(readFileSync(`${vectors}${name}.json`, "utf8"));
  record(name, v.events);
}
record("kitchen-sink", kitchenSink);

const accepts = [undefined, "", "text/event-stream", "application/vnd.ag-ui.event+proto",
  "application/vnd.ag-ui.event+proto, text/event-stream;q=0.5", "text/event-stream, application/vnd.ag-ui.event+proto;q=0.1",
  "*/*", "application/*", "application/json", "application/vnd.ag-ui.event+proto;q=0",
  "application/vnd.ag-ui.event+proto;q=0, */*", "*/*;q=0, application/vnd.ag-ui.event+proto",
  "APPLICATION/VND.AG-UI.EVENT+PROTO", "application/vnd.ag-ui.event+proto;v=2", "text/html;a=\"x,y\", */*;q=0.2",
  "garbage", "text/*", "*/*;q=0", "application/*;q=0.001", "application/vnd.ag-ui.event+proto;q=0.0001",
  "text/event-stream;q=1, application/*;q=0"];
writeFileSync("accept.json", JSON.stringify(accepts.map((accept) => ({
  accept: accept ?? null, contentType: new EventEncoder(accept === undefined ? undefined : { accept }).getContentType(),
})), null, 1) + "\n");
