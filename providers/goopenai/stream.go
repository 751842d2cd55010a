package goopenai

import (
	"context"
	"errors"
	"io"
	"iter"

	sdk "github.com/sashabaranov/go-openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
)

var _ agent.StreamingModel = (*Model)(nil)

// GenerateStream sends req as one streamed chat completion request
// (CreateChatCompletionStream), with stream_options.include_usage so that
// usage arrives at the end, and yields the first choice as it arrives:
// reasoning_content deltas as reasoning, content deltas as text, tool call
// deltas by call, usage, and why the reply ended. The chunks add up to the
// Response Generate would return for the same reply.
//
// The reply ends at its finish_reason: deltas after it are dropped, and
// the stream is read only for the usage chunk that follows, where the
// connection is closed. Failures are classified as for Generate; an error
// event mid-stream by its error type, and a stream that ends before any
// finish_reason, or whose connection breaks, as kind connection. A
// consumer that stops early, or a done ctx, closes the stream and its
// connection at once.
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
		params, err := m.newRequest(req, true)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		l, _ := m.lowering(req) // newRequest lowered it
		ctx, c := withCall(ctx, true)
		stream, err := m.client.CreateChatCompletionStream(ctx, params)
		if err != nil {
			yield(agent.Chunk{}, failure(ctx, err, c.res))
			return
		}
		r := openaiwire.NewChunkReader(System, l.ReadBack())
		status := wire.Status(c.res)
		var buf []openaiwire.Choice
		wire.ReadStream(ctx, System, &sseEvents{s: stream},
			func(cc sdk.ChatCompletionStreamResponse) ([]agent.Chunk, error) {
				buf = choices(buf, cc)
				return r.Read(buf, usageOf(cc.Usage), status)
			},
			r.Finished, r.Done,
			func(err error) error { return failure(ctx, err, c.res) },
			yield)
	}
}

// sseEvents is go-openai's stream as wire.ReadStream reads it: io.EOF, at
// [DONE] or at the body's clean end, is the end of the stream.
type sseEvents struct {
	s   *sdk.ChatCompletionStream
	cur sdk.ChatCompletionStreamResponse
	err error
}

func (e *sseEvents) Next() bool {
	if e.err != nil {
		return false
	}
	e.cur, e.err = e.s.Recv()
	return e.err == nil
}

func (e *sseEvents) Current() sdk.ChatCompletionStreamResponse { return e.cur }

func (e *sseEvents) Err() error {
	if errors.Is(e.err, io.EOF) && !errors.Is(e.err, io.ErrUnexpectedEOF) {
		return nil
	}
	return e.err
}

func (e *sseEvents) Close() error { return e.s.Close() }

// choices is cc's choices in openaiwire's terms, in buf. go-openai
// decodes a null finish_reason as "null".
func choices(buf []openaiwire.Choice, cc sdk.ChatCompletionStreamResponse) []openaiwire.Choice {
	buf = buf[:0]
	for _, choice := range cc.Choices {
		d := choice.Delta
		c := openaiwire.Choice{Index: int64(choice.Index), Reasoning: d.ReasoningContent, Content: d.Content, Refusal: d.Refusal}
		if choice.FinishReason != sdk.FinishReasonNull {
			c.Finish = string(choice.FinishReason)
		}
		for _, tc := range d.ToolCalls {
			index := 0
			if tc.Index != nil {
				index = *tc.Index
			}
			c.Calls = append(c.Calls, openaiwire.Call{Index: int64(index), ID: tc.ID, Type: string(tc.Type), Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		buf = append(buf, c)
	}
	return buf
}

// usageOf is the usage a chunk carries, zero when none.
func usageOf(u *sdk.Usage) agent.Usage {
	if u != nil && (u.PromptTokens > 0 || u.CompletionTokens > 0) {
		return tokenUsage(*u)
	}
	return agent.Usage{}
}
