package transport

import "context"

// Tap observes the wire bytes of each frame of a stream, before the frame is
// decoded: index is the frame's position in the stream, data its bytes,
// valid only during the call (copy what you keep). It runs on the goroutine
// that iterates the stream and must not block for long.
type Tap func(index int, data []byte)

type tapKey struct{}

// WithTap returns a context that makes every source of this package started
// with it (Run and Frames of SSE and WebSocket, Read, ReadFile) call tap with
// each frame before yielding it, as net/http/httptrace hooks a request. Package
// client uses it to journal a run's events exactly as they came.
func WithTap(ctx context.Context, tap Tap) context.Context {
	return context.WithValue(ctx, tapKey{}, tap)
}

func tapFrom(ctx context.Context) Tap {
	t, _ := ctx.Value(tapKey{}).(Tap)
	return t
}
