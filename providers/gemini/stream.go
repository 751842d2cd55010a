package gemini

import (
	"context"
	"iter"

	"google.golang.org/genai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
)

var _ agent.StreamingModel = (*Model)(nil)

// GenerateStream sends req as one streamGenerateContent request (server-
// sent events) and yields the first candidate as it arrives: text parts as
// text, each functionCall part as a whole call, the usage each chunk
// reports, and why the reply ended. The chunks add up to the Response
// Generate would return for the same reply. The chunk with a finishReason
// (or a blocked prompt's promptFeedback) ends the reply: nothing after it
// is read, and the connection is closed.
//
// Failures are classified as for Generate, before or during the stream:
// an error event mid-stream by the status it carries (with no HTTP
// status, the stream's being 200), and a stream that ends before a
// finishReason arrived, or whose connection breaks, as kind connection. A
// consumer that stops early, or a done ctx, closes the stream and its
// connection at once; a done ctx yields context.Cause(ctx).
func (m *Model) GenerateStream(ctx context.Context, req agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		if err := m.opts.Err(); err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		contents, config, err := m.newRequest(req)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		ctx, c := withCall(ctx, m.maxReply)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var r chunkReader
		for resp, err := range m.client.Models.GenerateContentStream(ctx, m.model, contents, config) {
			if err != nil {
				yield(agent.Chunk{}, failure(ctx, err, c))
				return
			}
			status, _, _, _ := c.seen()
			chunks, err := r.read(resp, status)
			if err != nil {
				yield(agent.Chunk{}, err)
				return
			}
			for _, ch := range chunks {
				if !yield(ch, nil) {
					return
				}
			}
			if r.ended {
				return // breaking out closes the body, and so the connection
			}
		}
		if ctx.Err() != nil {
			yield(agent.Chunk{}, context.Cause(ctx))
			return
		}
		yield(agent.Chunk{}, wire.StreamEnded(System))
	}
}

// chunkReader turns the stream's chunks into agent.Chunks, keeping what
// a chunk alone does not say.
type chunkReader struct {
	calls int // calls so far
	ended bool
	out   []agent.Chunk
}

// read maps one chunk of the stream. Only candidate 0 is read, as
// Generate reads only the first candidate.
func (r *chunkReader) read(resp *genai.GenerateContentResponse, status int) ([]agent.Chunk, error) {
	r.out = r.out[:0]
	if resp == nil {
		return nil, wire.Malformed(System, status, "empty chunk")
	}
	if resp.UsageMetadata != nil {
		// Each chunk's usage is the running total.
		r.out = append(r.out, agent.Chunk{Usage: usage(resp.UsageMetadata)})
	}
	var cand *genai.Candidate
	if len(resp.Candidates) > 0 {
		cand = resp.Candidates[0]
	}
	if cand == nil {
		if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			r.ended = true
			r.out = append(r.out, agent.Chunk{Text: pf.BlockReasonMessage, Stop: agent.StopContentFilter, StopRaw: string(pf.BlockReason)})
		}
		return r.out, nil
	}
	if cand.Content != nil {
		for _, p := range cand.Content.Parts {
			switch {
			case p == nil:
			case p.Thought:
				if p.Text != "" {
					r.out = append(r.out, agent.Chunk{Reasoning: p.Text})
				}
			case p.FunctionCall != nil:
				fc := p.FunctionCall
				r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{
					Index: r.calls, ID: callID(fc, p.ThoughtSignature, r.calls), Name: fc.Name, Arguments: string(arguments(fc.Args)),
				}})
				r.calls++
			case p.Text != "":
				r.out = append(r.out, agent.Chunk{Text: p.Text})
			}
		}
	}
	if cand.FinishReason != "" && cand.FinishReason != genai.FinishReasonUnspecified {
		r.ended = true
		r.out = append(r.out, agent.Chunk{Stop: stopReason(cand.FinishReason, r.calls > 0), StopRaw: string(cand.FinishReason)})
	}
	return r.out, nil
}
