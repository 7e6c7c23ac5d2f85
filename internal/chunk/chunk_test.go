package chunk

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agview/agview/event"
)

func TestDelta(t *testing.T) {
	t.Parallel()
	meta := json.RawMessage(`{"k":1}`)
	for _, tc := range []struct {
		name   string
		delta  *string
		base   event.Base
		opened bool
		want   string
		emits  bool
	}{
		{"delta", event.Ptr("hi"), event.Base{}, true, "hi", true},
		{"empty delta", event.Ptr(""), event.Base{}, false, "", true},
		{"rawEvent alone", nil, event.Base{RawEvent: json.RawMessage(`{}`)}, true, "", true},
		{"metadata on a continuation", nil, event.Base{Metadata: meta}, false, "", true},
		{"metadata on an opener lands on the START", nil, event.Base{Metadata: meta}, true, "", false},
		{"nothing", nil, event.Base{}, false, "", false},
	} {
		got, emits := Delta(tc.delta, &tc.base, tc.opened)
		assert.Equal(t, tc.emits, emits, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}
