package main

import (
	"github.com/agview/agview/event"
	"github.com/agview/agview/store"
)

// foldInput folds a run's input into st as the history the run starts from
// (PROTOCOL.md G15).
func foldInput(st *store.Store, in *event.RunAgentInput) error {
	_, _ = st, in // TEMP until store.Input lands from the conversation branch
	return nil
}
