package agenttest

import (
	"context"
	"iter"
	"sync"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
)

// StreamingModel is a scripted [agent.StreamingModel]: a [Model] whose
// replies arrive as chunks, so the loop streams them. Each step is split
// into chunks ([Step.InChunks], or scripted chunk by chunk with
// [Chunks]), and [StreamingModel.Consumed] says how much of each reply
// the loop read before it stopped. It is safe for concurrent use.
type StreamingModel struct {
	*Model
	mu       sync.Mutex
	consumed []Consumed
}

// Consumed is how much of one streamed reply the loop read.
type Consumed struct {
	// Chunks and Bytes count the chunks handed to the loop and the bytes
	// of text they held, the chunk the loop stopped at included.
	Chunks, Bytes int
	// TotalChunks and TotalBytes are the whole reply's, as scripted.
	TotalChunks, TotalBytes int
	// Stopped: the loop stopped reading before the reply's end (it broke
	// out of its range loop, or its context ended).
	Stopped bool
	// Cancelled: the call's context had ended by the time the loop
	// stopped, as when it cancels the call so a provider stops writing.
	Cancelled bool
}

// NewStreamingModel is [NewModel] for a model that streams: the loop
// calls GenerateStream, and each step's reply arrives as chunks — its text
// first, then each tool call (its ID and name, then its arguments), then
// one chunk with the usage and why the reply ended. A step arrives whole
// unless [Step.InChunks] splits it.
func NewStreamingModel(t testing.TB, steps ...Step) *StreamingModel {
	t.Helper()
	for i, s := range steps {
		for _, n := range s.sizes {
			if n < 1 {
				t.Errorf("agenttest: step %d: chunk size %d: want at least 1", i+1, n)
			}
		}
	}
	return &StreamingModel{Model: newModel(t, steps)}
}

// InChunks makes a [StreamingModel] stream the step's text, and each tool
// call's arguments, in pieces of these many bytes, the last size
// repeating: InChunks(1) streams byte by byte; InChunks(5, 100) sends 5
// bytes, then 100 at a time. Pieces may split a UTF-8 character, as
// chunks of a wire may. A [Model] that does not stream ignores it.
func (s Step) InChunks(sizes ...int) Step {
	s.sizes = sizes
	return s
}

// FailAfter makes the step's stream fail with err after its first n
// chunks, as a connection lost mid-reply does; the loop must not keep the
// half reply as an answer. Generate fails with err at once.
func (s Step) FailAfter(n int, err error) Step {
	s.failAfter, s.midErr = max(n, 0), err
	return s
}

// Chunks is a reply streamed as exactly these chunks, for what a step
// built from [Reply] or [CallTools] cannot say: prose before a tool call,
// usage reported mid-reply, a tool call's deltas interleaved. [Model]'s
// Generate gives the chunks assembled into one reply.
func Chunks(chunks ...agent.Chunk) Step {
	return Step{script: append(make([]agent.Chunk, 0, len(chunks)), chunks...)}
}

// GenerateStream records req and streams the next step's reply, chunk by
// chunk. It stops when the loop stops reading, and before the next chunk
// once ctx has ended, yielding its cause as a provider would.
func (m *StreamingModel) GenerateStream(ctx context.Context, req agent.Request) iter.Seq2[agent.Chunk, error] {
	s, err := m.take(req)
	return func(yield func(agent.Chunk, error) bool) {
		var c Consumed
		defer func() {
			c.Cancelled = ctx.Err() != nil
			m.mu.Lock()
			m.consumed = append(m.consumed, c)
			m.mu.Unlock()
		}()
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		if s.err != nil {
			yield(agent.Chunk{Usage: s.usage}, s.err)
			return
		}
		chunks := s.chunks()
		c.TotalChunks = len(chunks)
		for _, ch := range chunks {
			c.TotalBytes += len(ch.Text)
		}
		for i, ch := range chunks {
			if s.midErr != nil && i == s.failAfter {
				c.Stopped = true
				yield(agent.Chunk{}, s.midErr)
				return
			}
			if ctx.Err() != nil {
				c.Stopped = true
				yield(agent.Chunk{}, context.Cause(ctx))
				return
			}
			c.Chunks++
			c.Bytes += len(ch.Text)
			if !yield(ch, nil) {
				c.Stopped = i < len(chunks)-1
				return
			}
		}
		if s.midErr != nil && s.failAfter >= len(chunks) {
			yield(agent.Chunk{}, s.midErr)
		}
	}
}

// Consumed returns, for each request whose stream was read, in order, how
// much of its reply the loop read (nothing, for a step that fails at once).
// A stream is counted once it returns: when a run ends while its model
// streams (its context ended, or a caller broke out of
// agent.TypedStream.Partials), Run may return first.
func (m *StreamingModel) Consumed() []Consumed {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Consumed(nil), m.consumed...)
}

// chunks is the step's reply as a stream.
func (s Step) chunks() []agent.Chunk {
	if s.script != nil {
		return s.script
	}
	var out []agent.Chunk
	for _, p := range pieces(s.msg.Reasoning, s.sizes) {
		out = append(out, agent.Chunk{Reasoning: p})
	}
	for _, p := range pieces(s.msg.Content, s.sizes) {
		out = append(out, agent.Chunk{Text: p})
	}
	for i, c := range s.msg.ToolCalls {
		args := pieces(string(c.Arguments), s.sizes)
		first := agent.CallDelta{Index: i, ID: c.ID, Name: c.Name}
		if len(args) > 0 {
			first.Arguments, args = args[0], args[1:]
		}
		out = append(out, agent.Chunk{Call: &first})
		for _, a := range args {
			out = append(out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: a}})
		}
	}
	return append(out, agent.Chunk{Usage: s.usage, Stop: s.stop, StopRaw: string(s.stop)})
}

// pieces splits s into pieces of the sizes (the last repeating; none, or
// one below 1, means whole).
func pieces(s string, sizes []int) []string {
	var out []string
	for i := 0; s != ""; i++ {
		n := len(s)
		if len(sizes) > 0 {
			n = sizes[min(i, len(sizes)-1)]
		}
		if n < 1 || n > len(s) {
			n = len(s)
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// assemble puts a scripted stream together, as the loop does.
func assemble(chunks []agent.Chunk) agent.Response {
	var b agent.ReplyBuilder
	for _, c := range chunks {
		_ = b.Add(c) // a scripted call out of order is left out, as the loop refuses it
	}
	return b.Response()
}
