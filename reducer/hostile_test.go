package reducer_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/event"
	"github.com/agview/agview/patch"
	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

// depthBomb returns n deltas that each copy the array at root (at first [])
// into its own innermost array (issue 13): the nesting doubles with every
// delta while the document stays a few bytes. wrap makes each patch an
// event.
func depthBomb(n int, root string, wrap func(patch string) string) []string {
	var lines []string
	height := 1
	for range n {
		p := fmt.Sprintf(`[{"op":"copy","from":%q,"path":"%s%s/-"}]`, root, root, strings.Repeat("/0", height-1))
		lines = append(lines, wrap(p))
		height = min(2*height, 1<<15) // past the limit every delta fails the same way
	}
	return lines
}

// TestDepthBomb is the crash of issue 13: three dozen STATE_DELTAs, or
// ACTIVITY_DELTAs, that double the nesting of the document each time. The
// ones that would nest it deeper than patch.MaxNesting are failed deltas
// (G8, G21): a warning, the document unchanged, the verdict accept. The view
// then encodes, with State, MarshalJSON and the message list, without
// recursing past the limit (before, it died of a stack overflow there).
func TestDepthBomb(t *testing.T) {
	const deltas = 36
	tests := []struct {
		name    string
		prefix  string
		applied int // 1 → 8192 levels; 16384 is over the limit
		first   string
		wrap    func(string) string
		typ     event.Type
		doc     func(*view.View) json.RawMessage
	}{
		{"state", "", 13, `{"type":"STATE_SNAPSHOT","snapshot":[]}`,
			func(p string) string { return `{"type":"STATE_DELTA","delta":` + p + `}` },
			event.TypeStateDelta, func(v *view.View) json.RawMessage { return v.State() }},
		{"activity", "/a", 13, `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{"a":[]}}`,
			func(p string) string {
				return `{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan","patch":` + p + `}`
			},
			event.TypeActivityDelta, func(v *view.View) json.RawMessage {
				m, ok := v.Message("a")
				require.True(t, ok)
				return m.Content
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := append([]string{start, tt.first}, depthBomb(deltas, tt.prefix, tt.wrap)...)
			lines = append(lines, finish)
			// Fold and Builder alike.
			v := mustFold(t, lines...)
			b := reducer.NewBuilder(view.New())
			for _, l := range lines {
				require.NoError(t, b.FoldJSON([]byte(l)))
			}
			for _, v := range []*view.View{v, b.View()} {
				g8 := diagsWith(v, "G8")
				require.Equal(t, deltas-tt.applied, len(g8), "every delta past the limit is a failed delta")
				assert.Equal(t, tt.typ, g8[0].Type)
				assert.Equal(t, 2+tt.applied, g8[0].Index, "the first delta that would pass the limit")
				assert.True(t, strings.Contains(g8[0].Message, "document too deep"), "the warning says why")
				assert.Zero(t, v.ViolationCount(), "verdict accept")

				doc := tt.doc(v)
				d0, err := patch.New(doc)
				require.NoError(t, err)
				assert.Equal(t, 2*8192+len(tt.prefix)*3, d0.Size(), `8192 levels: [[[…]]] or {"a":[[…]]}`)
				d, err := patch.New(doc)
				require.NoError(t, err, "the document parses back")
				assert.Equal(t, len(doc), d.Size())

				out, err := json.Marshal(v)
				require.NoError(t, err)
				assert.True(t, strings.Contains(string(out), string(doc)), "the view's JSON holds the document")
				_ = v.MessageList()
			}
		})
	}
}

// TestDeepSnapshots: snapshots are held to the same limit. A snapshot the
// decoder cannot read (nested past its limit) is refused alone; one within
// it replaces the document and encodes.
func TestDeepSnapshots(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tt := range []struct {
		name string
		line func(doc string) string
		doc  func(*view.View) (json.RawMessage, bool)
	}{
		{"state", func(d string) string { return `{"type":"STATE_SNAPSHOT","snapshot":` + d + `}` },
			func(v *view.View) (json.RawMessage, bool) { return v.State(), true }},
		{"activity", func(d string) string {
			return `{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"p","content":{"a":` + d + `}}`
		}, func(v *view.View) (json.RawMessage, bool) {
			m, ok := v.Message("a")
			return m.Content, ok
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, viols := fold(t, start, tt.line(deep(patch.MaxNesting+10)), tt.line(deep(patch.MaxNesting-10)), finish)
			require.Equal(t, 1, len(viols), "the snapshot past the limit is refused")
			assert.Equal(t, 1, viols[0].Index)
			doc, ok := tt.doc(v)
			require.True(t, ok)
			d, err := patch.New(doc)
			require.NoError(t, err)
			assert.Greater(t, d.Size(), 2*(patch.MaxNesting-10)-1)
			_, err = json.Marshal(v)
			require.NoError(t, err)
		})
	}
}

// TestStringsExact is G19: strings that differ stay different. Lone
// surrogate escapes and bytes that are not UTF-8 are kept, never replaced
// by U+FFFD (which made the keys below one key and the ids one id), and a
// lone surrogate is written back as its escape; a surrogate pair split
// across two deltas reads back as the one character, as in the reference.
func TestStringsExact(t *testing.T) {
	v := mustFold(t, start,
		`{"type":"STATE_SNAPSHOT","snapshot":{"k\ud800":1,"k\udbff":2,"k\ufffd":3}}`,
		`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/s\udc00","value":"v\ud83d"}]}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m\ud800","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m\ud800","delta":"smile \ud83d"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m\ud800","delta":"\ude00!"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m\ud800"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"m\udbff","role":"assistant"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m\udbff","delta":"lone \udbff"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m\udbff"}`,
		"{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\xff\",\"role\":\"assistant\"}",
		"{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\xfe\",\"role\":\"assistant\"}",
		"{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\xff\"}",
		"{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\xfe\"}",
		`{"type":"TOOL_CALL_START","toolCallId":"c\ud800","toolCallName":"f","parentMessageId":"m\ud800"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c\ud800","delta":"{\"a\":\"\ud83d"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c\ud800","delta":"\ude00\"}"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c\ud800"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c\udbff","toolCallName":"f","parentMessageId":"m\ud800"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c\udbff"}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"s\ud800","name":"n\udbff"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"t\udc00","subagentRunId":"s\ud800"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"t\udc00","subagentRunId":"s\ud800"}`,
		`{"type":"SUBAGENT_FINISHED","subagentRunId":"s\ud800"}`,
		finish)
	assert.Equal(t, `{"k\ud800":1,"k\udbff":2,"k`+"\ufffd"+`":3,"s\udc00":"v\ud83d"}`, string(v.State()))
	assert.Equal(t, 5, v.MessageCount(), "five distinct ids, five messages")

	m, ok := v.Message("m\xed\xa0\x80")
	require.True(t, ok, "the id keeps its lone surrogate")
	assert.Equal(t, `"smile 😀!"`, string(m.Content), "the pair split across deltas is one character")
	require.Len(t, m.ToolCalls, 2)
	assert.Equal(t, `{"a":"😀"}`, m.ToolCalls[0].Function.Arguments)
	assert.Equal(t, "c\xed\xaf\xbf", m.ToolCalls[1].ID)
	m, ok = v.Message("m\xed\xaf\xbf")
	require.True(t, ok)
	assert.Equal(t, `"lone \udbff"`, string(m.Content), "a lone surrogate is written back as its escape")
	_, ok = v.Message("m\xff")
	assert.True(t, ok)
	_, ok = v.Message("m\xfe")
	assert.True(t, ok)

	out, err := json.Marshal(v)
	require.NoError(t, err)
	for _, want := range []string{`"subagentRunId":"s\ud800"`, `"name":"n\udbff"`, `"messageIds":["t\udc00"]`, `"id":"m\ud800"`, `"id":"m\udbff"`, `"id":"c\ud800"`, `"id":"c\udbff"`, `"content":"smile 😀!"`} {
		assert.True(t, strings.Contains(string(out), want), "the view's JSON holds %s", want)
	}
}
