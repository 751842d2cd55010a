package openai

import (
	"context"
	"iter"
	"net/http"

	sdk "github.com/openai/openai-go/v3"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
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
			for _, c := range openaiwire.WholeReply(resp) {
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
		r := openaiwire.NewChunkReader(System, l.ReadBack())
		var buf []openaiwire.Choice
		wire.ReadStream(ctx, System, stream,
			func(cc sdk.ChatCompletionChunk) ([]agent.Chunk, error) {
				buf = choices(buf, cc)
				return r.Read(buf, usageOf(cc.Usage), wire.Status(raw))
			},
			r.Finished, r.Done,
			func(err error) error { return failure(ctx, err, raw) },
			yield)
	}
}

// choices is cc's choices in openaiwire's terms, in buf.
func choices(buf []openaiwire.Choice, cc sdk.ChatCompletionChunk) []openaiwire.Choice {
	buf = buf[:0]
	for _, choice := range cc.Choices {
		d := choice.Delta
		c := openaiwire.Choice{Index: choice.Index, Reasoning: openaiwire.ReasoningOf(d.JSON.ExtraFields), Content: d.Content, Refusal: d.Refusal, Finish: choice.FinishReason}
		for _, tc := range d.ToolCalls {
			c.Calls = append(c.Calls, openaiwire.Call{Index: tc.Index, ID: tc.ID, Type: tc.Type, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		buf = append(buf, c)
	}
	return buf
}

// usageOf is the usage a chunk carries, zero when none.
func usageOf(u sdk.CompletionUsage) agent.Usage {
	if u.PromptTokens > 0 || u.CompletionTokens > 0 {
		return tokenUsage(u)
	}
	return agent.Usage{}
}
