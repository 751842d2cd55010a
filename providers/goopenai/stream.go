package goopenai

import (
	"context"
	"errors"
	"io"
	"iter"

	sdk "github.com/sashabaranov/go-openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/internal/toolcall"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/native"
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
			for _, c := range wholeReply(resp) {
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
		r := chunkReader{calls: map[int]int{}, readBack: l.ReadBack()}
		status := wire.Status(c.res)
		wire.ReadStream(ctx, System, &sseEvents{s: stream},
			func(cc sdk.ChatCompletionStreamResponse) ([]agent.Chunk, error) { return r.read(cc, status) },
			func() bool { return r.finished }, func() bool { return r.done },
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
	calls    map[int]int // the provider's tool call index → the call's place
	argless  []bool      // per call: no argument fragment yet
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
func (r *chunkReader) read(cc sdk.ChatCompletionStreamResponse, status int) ([]agent.Chunk, error) {
	r.out = r.out[:0]
	var counts agent.Usage
	if u := cc.Usage; u != nil && (u.PromptTokens > 0 || u.CompletionTokens > 0) {
		counts = tokenUsage(*u)
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
		if d.ReasoningContent != "" {
			r.out = append(r.out, agent.Chunk{Reasoning: d.ReasoningContent})
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
			index := 0
			if tc.Index != nil {
				index = *tc.Index
			}
			i, seen := r.calls[index]
			if !seen {
				i = len(r.calls)
				if err := checkToolType(status, i, tc.Type); err != nil {
					return nil, err
				}
				r.calls[index] = i
				r.argless = append(r.argless, true)
				r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, ID: toolcall.ID(tc.ID, i), Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
			} else if tc.Function.Arguments != "" {
				r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: tc.Function.Arguments}})
			}
			if tc.Function.Arguments != "" {
				r.argless[i] = false
			}
		}
		if finish := string(choice.FinishReason); finish != "" && choice.FinishReason != sdk.FinishReasonNull {
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
			stop := stopReason(finish)
			if r.refusal {
				stop = agent.StopRefusal
			}
			r.out = append(r.out, agent.Chunk{Stop: stop, StopRaw: finish})
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
