package natsjournal_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agview/agview/journal"
	"github.com/agview/agview/journal/natsjournal"
)

// TestOpenRegistersSchemes: importing the package makes journal.Open take
// nats:// and tls:// DSNs, and only *Options as journal.Options.Backend.
func TestOpenRegistersSchemes(t *testing.T) {
	assert.Contains(t, journal.Schemes(), "nats")
	assert.Contains(t, journal.Schemes(), "tls")
	for _, tc := range []struct {
		name    string
		backend any
		want    journal.Code
	}{
		{"no server", nil, journal.ErrUnavailable},
		{"its options", &natsjournal.Options{Owner: "me"}, journal.ErrUnavailable},
		{"foreign options", &journal.DirOptions{}, journal.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := journal.Open(t.Context(), "nats://127.0.0.1:1", &journal.Options{Backend: tc.backend})
			require.ErrorIs(t, err, tc.want)
		})
	}
}
