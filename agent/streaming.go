package agent

import (
	"context"
	"iter"
)

// StreamingModel is a [Model] that can also stream its reply. The loop
// streams when the model has this method and calls Generate when it does
// not; both must describe the same reply.
//
// GenerateStream yields the reply as chunks, in order, and stops at the
// first error. A consumer that stops early (breaks out of its range loop)
// or cancels ctx ends the reply: the implementation must then stop reading
// and release the connection, so the provider stops generating. A reply
// cut off by the provider before its end is an error (a [*ProviderError]
// of kind connection for the adapters here), never a short reply.
// Implementations must be safe for concurrent use, like Generate.
type StreamingModel interface {
	Model
	GenerateStream(ctx context.Context, req Request) iter.Seq2[Chunk, error]
}

// Chunk is one piece of a streamed reply. Each field continues the reply
// as described; a zero field adds nothing.
type Chunk struct {
	// Text continues the reply's text (Message.Content).
	Text string
	// Call continues one of the reply's tool calls.
	Call *CallDelta
	// Usage holds the counts known so far; a count above zero replaces
	// the one before it (providers send input tokens first and output
	// tokens at the end).
	Usage Usage
	// Stop and StopRaw say why the reply ended, when a chunk knows it;
	// a later non-empty value replaces an earlier one.
	Stop    StopReason
	StopRaw string
}

// CallDelta continues tool call number Index of the reply (0-based, in
// the order the calls began). ID and Name arrive once, when the call
// begins; Arguments is a fragment of the call's JSON arguments, appended
// to those before it.
type CallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}
