package openai

import (
	"context"
	"iter"
	"net/http"

	sdk "github.com/openai/openai-go/v3"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/internal/toolcall"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/native"
)

var _ agent.StreamingModel = (*Model)(nil)

// GenerateStream sends req as one streamed chat completion request, with
// stream_options.include_usage so that usage arrives at the end, and
// yields the first choice as it arrives: content deltas as text, tool
// call deltas by call, usage, and why the reply ended. The chunks add up
// to the Response Generate would return for the same reply: a refusal
// delta is text with Stop agent.StopRefusal (and the reply stays a
// refusal whatever finish_reason says), a call without an id gets
// "call_<n>", a call without arguments gets "{}".
//
// The reply ends at its finish_reason: deltas after it are dropped, and
// the stream is read only for the usage that follows, up to the chunk
// that carries it (the last before [DONE]), where the connection is
// closed.
//
// Failures are classified as for Generate, before or during the stream:
// an error event mid-stream by its error type (with no HTTP status, the
// stream's being 200), and a stream that ends before any finish_reason
// arrived, or whose connection breaks, as kind connection. A consumer that
// stops early, or a done ctx, closes the stream and its connection at
// once; a done ctx yields context.Cause(ctx).
//
// With [WithoutStreaming] it makes Generate's request instead and yields
// that reply whole, once it has come.
func (m *Model) GenerateStream(ctx context.Context, req agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		if err := m.opts.Err(); err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		if m.unstreamed {
			resp, err := m.Generate(ctx, req)
			if err != nil {
				yield(agent.Chunk{}, err)
				return
			}
			for _, c := range wholeReply(resp) {
				if !yield(c, nil) {
					return
				}
			}
			return
		}
		params, err := m.newParams(req, true)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		l, _ := m.lowering(req) // newParams lowered it
		var raw *http.Response
		stream := m.client.Chat.Completions.NewStreaming(ctx, params, m.requestOptions(&raw, true)...)
		r := chunkReader{calls: map[int64]int{}, readBack: l.ReadBack()}
		wire.ReadStream(ctx, System, stream,
			func(cc sdk.ChatCompletionChunk) ([]agent.Chunk, error) { return r.read(cc, wire.Status(raw)) },
			func() bool { return r.finished }, func() bool { return r.done },
			func(err error) error { return failure(ctx, err, raw) },
			yield)
	}
}

// wholeReply is a reply that came whole (WithoutStreaming) as the chunks
// that add up to it.
func wholeReply(resp agent.Response) []agent.Chunk {
	// Why it ended comes first, with the text: the agent then knows the
	// reply is whole and judges it whole, where it would cut an answer
	// still streaming.
	out := []agent.Chunk{{Text: resp.Message.Content, Reasoning: resp.Message.Reasoning, Usage: resp.Usage, Stop: resp.Stop, StopRaw: resp.StopRaw, ReadBack: resp.ReadBack}}
	for i, c := range resp.Message.ToolCalls {
		out = append(out, agent.Chunk{Call: &agent.CallDelta{Index: i, ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)}})
	}
	return out
}

// chunkReader turns the stream's chunks into agent.Chunks, keeping what
// a chunk alone does not say.
type chunkReader struct {
	calls    map[int64]int // the provider's tool call index → the call's place
	argless  []bool        // per call: no argument fragment yet
	refusal  bool
	finished bool // choice 0 had its finish_reason
	done     bool // usage came after it: nothing more belongs to the reply
	out      []agent.Chunk
	// readBack passes the text through the lowering's read-back, as
	// Generate's content is.
	readBack *native.ReadBack
}

// read maps one chunk of the stream. Only choice 0 is read, as Generate
// reads only the first choice.
func (r *chunkReader) read(cc sdk.ChatCompletionChunk, status int) ([]agent.Chunk, error) {
	r.out = r.out[:0]
	var counts agent.Usage
	if u := cc.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
		counts = tokenUsage(u)
		// With include_usage the usage chunk is the last before [DONE].
		r.done = r.finished
	}
	for _, choice := range cc.Choices {
		if choice.Index != 0 || r.finished {
			// The reply ended at its finish_reason: deltas after it are
			// no part of it.
			continue
		}
		d := choice.Delta
		if th := reasoningOf(d.JSON.ExtraFields); th != "" {
			r.out = append(r.out, agent.Chunk{Reasoning: th})
		}
		if d.Content != "" {
			if text := r.readBack.Write(d.Content); text != "" {
				r.out = append(r.out, agent.Chunk{Text: text})
			}
		}
		if d.Refusal != "" {
			r.refusal = true
			r.out = append(r.out, agent.Chunk{Text: d.Refusal, Stop: agent.StopRefusal})
		}
		for _, tc := range d.ToolCalls {
			i, seen := r.calls[tc.Index]
			if !seen {
				i = len(r.calls)
				if err := checkToolType(status, i, tc.Type); err != nil {
					return nil, err
				}
				r.calls[tc.Index] = i
				r.argless = append(r.argless, true)
				r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, ID: toolcall.ID(tc.ID, i), Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
			} else if tc.Function.Arguments != "" {
				r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: tc.Function.Arguments}})
			}
			if tc.Function.Arguments != "" {
				r.argless[i] = false
			}
		}
		if choice.FinishReason != "" {
			r.finished = true
			if text, removed := r.readBack.Close(), r.readBack.Removed(); text != "" || removed != nil {
				r.out = append(r.out, agent.Chunk{Text: text, ReadBack: removed})
			}
			for i, none := range r.argless {
				if none {
					r.argless[i] = false
					r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: "{}"}})
				}
			}
			stop := stopReason(choice.FinishReason)
			if r.refusal {
				stop = agent.StopRefusal
			}
			r.out = append(r.out, agent.Chunk{Stop: stop, StopRaw: choice.FinishReason})
		}
	}
	// Usage rides on the event's first chunk: a server that sends it with
	// every delta (vLLM's continuous usage) makes no chunks that add no
	// bytes, which the agent bounds.
	switch {
	case counts == agent.Usage{}:
	case len(r.out) == 0:
		r.out = append(r.out, agent.Chunk{Usage: counts})
	default:
		r.out[0].Usage = counts
	}
	return r.out, nil
}
