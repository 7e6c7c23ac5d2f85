package reducer

import (
	"github.com/agview/agview/event"
	"github.com/agview/agview/internal/model"
	"github.com/agview/agview/internal/wire"
	"github.com/agview/agview/view"
)

// FoldProto decodes one ag_ui.Event protobuf message (a frame of the
// application/vnd.ag-ui.event+proto framing without its length prefix) with
// event.DecodeProto and folds it as FoldJSON folds JSON: a message that does
// not decode is recorded as a violation (an unknown arm is skipped with a
// warning), and the streamed deltas take the same path in place. data is not
// retained.
func FoldProto(v *view.View, data []byte) (*view.View, error) {
	d, text := scannedProto(data)
	return foldWire(v, d, text, data, event.DecodeProto)
}

// FoldProto decodes and folds one protobuf message as FoldProto does. data
// is not retained.
func (b *Builder) FoldProto(data []byte) error {
	d, text := scannedProto(data)
	return b.foldWire(d, text, data, event.DecodeProto)
}

// scannedProto reads the protobuf message data as a delta in place (see
// internal/wire) and returns its text. The strings alias data.
func scannedProto(data []byte) (delta, string) {
	d, ok := wire.ScanProtoDelta(data)
	if !ok {
		return delta{}, ""
	}
	var tag model.Owner
	if d.Tagged {
		tag = model.Owner{Sub: true, ID: aliased(d.Tag)}
	}
	return delta{t: event.Type(d.Type), id: aliased(d.ID), tag: tag, valid: true}, aliased(d.Text)
}
