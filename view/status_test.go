package view_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/reducer"
	"github.com/agview/agview/view"
)

func TestMessageStatus(t *testing.T) {
	fold := func(t *testing.T, lines ...string) *view.View {
		t.Helper()
		v := view.New()
		for _, l := range lines {
			var err error
			v, err = reducer.FoldJSON(v, []byte(l))
			require.NoError(t, err, l)
		}
		return v
	}
	start := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"done"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"done"}`,
		`{"type":"TEXT_MESSAGE_START","messageId":"open","subagentRunId":"s1"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"open","delta":"half"}`,
	}
	tests := []struct {
		name string
		v    func(t *testing.T) *view.View
		want map[string]view.EntityStatus
	}{
		{"streaming", func(t *testing.T) *view.View { return fold(t, start...) },
			map[string]view.EntityStatus{"done": view.EntityClosed, "open": view.EntityOpen}},
		{"run error abandons the open message (G11)", func(t *testing.T) *view.View {
			return fold(t, append(start, `{"type":"RUN_ERROR","message":"x"}`)...)
		}, map[string]view.EntityStatus{"done": view.EntityClosed, "open": view.EntityAbandoned}},
		{"broken transport abandons it too", func(t *testing.T) *view.View {
			return reducer.End(fold(t, start...), errors.New("connection reset"))
		}, map[string]view.EntityStatus{"done": view.EntityClosed, "open": view.EntityAbandoned}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.v(t)
			for id, want := range tc.want {
				got, ok := v.MessageStatus(id)
				require.True(t, ok, id)
				assert.Equal(t, want, got, id)
			}
			_, ok := v.MessageStatus("nope")
			assert.False(t, ok, "an unknown id has no status")
		})
	}
}
