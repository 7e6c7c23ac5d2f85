package view

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agview/agview/internal/model"
)

// The view's status constants are the strings the model stores.
func TestStatusStrings(t *testing.T) {
	assert.Equal(t, []RunStatus{RunRunning, RunFinished, RunErrored, RunInterrupted, RunIncomplete, RunCancelled, RunFailed},
		[]RunStatus{model.RunRunning, model.RunFinished, model.RunErrored, model.RunInterrupted, model.RunIncomplete, model.RunCancelled, model.RunFailed})
	for want, s := range map[Status]model.InvStatus{
		Running: model.InvRunning, Finished: model.InvFinished, Suspended: model.InvSuspended,
		Errored: model.InvErrored, Abandoned: model.InvAbandoned, Unannounced: model.InvUnannounced,
	} {
		assert.Equal(t, string(want), s.String())
	}
	for want, s := range map[EntityStatus]model.EntStatus{
		EntityOpen: model.EntOpen, EntityClosed: model.EntClosed, EntityAbandoned: model.EntAbandoned,
	} {
		assert.Equal(t, string(want), s.String())
	}
	assert.Equal(t, "closed", model.EntHistory.String(), "history reads as closed")
}
