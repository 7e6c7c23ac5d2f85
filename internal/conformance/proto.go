package conformance

import "encoding/json"

// ProtoLossy names the vectors whose protobuf form, as package agenttest
// serves it, folds to another view than their JSON (beyond a diagnostic's
// rule and message), because an event's JSON cannot be expressed in
// protobuf, and says why. agenttest carries what protobuf can of such an
// event, sends an unknown type as an unknown arm and what has no protobuf
// form at all as a malformed frame.
var ProtoLossy = map[string]string{
	"01-plain-legacy-null-parent-message-id": "a legacy null (read as absent, warning E4) has no protobuf form: " +
		"the event goes without the field, and the client has nothing to warn about",
	"01-plain-legacy-thinking-events-translated": "THINKING_* events are deprecated and have no ag_ui.Event arm: " +
		"they reach the client as malformed frames instead of translated REASONING_* events",
	"01-plain-missing-required-field":    "a missing required string reads as \"\" in proto3: the event is accepted",
	"03-lifecycle-error-missing-message": "a missing required string reads as \"\" in proto3: the event is accepted",
	"03-lifecycle-started-missing-id":    "a missing required string reads as \"\" in proto3: the event is accepted",
	"04-attribution-on-messages-snapshot": "the schema has no subagent_run_id on MESSAGES_SNAPSHOT: " +
		"the misplaced tag (dropped with warning G3 from JSON) is not sent at all",
	"04-attribution-on-run-error":    "the schema has no subagent_run_id on RUN_ERROR: no G3 warning",
	"04-attribution-on-run-finished": "the schema has no subagent_run_id on RUN_FINISHED: no G3 warning",
	"04-attribution-on-run-started":  "the schema has no subagent_run_id on RUN_STARTED: no G3 warning",
	"04-null-interrupt-ids": "interruptIds: null (R4) has no protobuf form: a repeated field holds no null, " +
		"so the outcome arrives without ids and is accepted",
	"12-state-delta-unknown-op": "an op outside RFC 6902's six has no JsonPatchOperationType value: the delta " +
		"arrives as a malformed frame instead of being applied without that op (warning G2)",
	"16-quirk-snapshot-tool-call-attribution-stripped": "the schema has no subagent_run_id on ToolCall: the unknown " +
		"member (stripped with a warning from JSON, G20) is not sent at all",
	"14-int-suspended-empty-interrupt-ids": "interruptIds: [] and no interruptIds are one protobuf encoding: " +
		"the outcome arrives without the empty list",
}

// ViewShape returns a view's JSON form (view.View's MarshalJSON, or "agview
// replay --json") with each diagnostic reduced to its event index and kind,
// for comparing the views of one stream sent as JSON and as protobuf: a
// diagnostic's rule and message name what was wrong on the wire, which
// differs where protobuf cannot express the JSON.
func ViewShape(viewJSON []byte) (string, error) {
	var m map[string]any
	if err := json.Unmarshal(viewJSON, &m); err != nil {
		return "", err
	}
	if ds, ok := m["diagnostics"].([]any); ok {
		for _, d := range ds {
			if d, ok := d.(map[string]any); ok {
				for k := range d {
					if k != "index" && k != "kind" {
						delete(d, k)
					}
				}
			}
		}
	}
	b, err := json.Marshal(m)
	return string(b), err
}
