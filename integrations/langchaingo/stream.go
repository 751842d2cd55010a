package langchaingo

import (
	"context"
	"errors"
	"iter"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

// errStopped is what the streaming callback returns to make langchaingo's
// provider stop reading the reply once the consumer stopped.
var errStopped = errors.New("langchaingo: the reply's reader stopped")

// GenerateStream makes Generate's call with llms.WithStreamingFunc and
// yields each piece the callback is given as text; the rest of the reply
// (tool calls, usage, stop, text the provider did not stream) follows
// when the call returns. A consumer that stops, or a done ctx, makes the
// callback return an error, which ends the provider's stream. A request
// with tools streams nothing before the call returns, and a reply whose
// text does not begin with what streamed is malformed.
func (m *Model) GenerateStream(ctx context.Context, req agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		msgs, opts, err := m.prepare(req)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		var streamed strings.Builder
		stopped := false // yield returned false: never call it again
		// With tools, langchaingo gives the callback text and, for some
		// providers (OpenAI), tool call fragments as JSON in the same
		// bytes, which cannot be told apart.
		streams := len(req.Tools) == 0
		opts = append(opts, llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
			if stopped {
				return errStopped
			}
			if err := context.Cause(ctx); err != nil {
				return err
			}
			if !streams || len(chunk) == 0 {
				return nil
			}
			streamed.Write(chunk)
			if !yield(agent.Chunk{Text: string(chunk)}, nil) {
				stopped = true
				return errStopped
			}
			return nil
		}))
		cr, err := m.m.GenerateContent(ctx, msgs, opts...)
		if stopped {
			return
		}
		if err != nil {
			yield(agent.Chunk{}, glue.Failure(ctx, System, err))
			return
		}
		if err := context.Cause(ctx); err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		resp, err := fromResponse(cr)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		rest, ok := strings.CutPrefix(resp.Message.Content, streamed.String())
		if !ok {
			yield(agent.Chunk{}, glue.Malformed(System, "the reply's text does not begin with the text streamed"))
			return
		}
		for _, c := range endChunks(rest, resp) {
			if !yield(c, nil) {
				return
			}
		}
	}
}

// endChunks is what the end of the call adds to the streamed text.
func endChunks(rest string, resp agent.Response) []agent.Chunk {
	var out []agent.Chunk
	if rest != "" {
		out = append(out, agent.Chunk{Text: rest})
	}
	for i, c := range resp.Message.ToolCalls {
		out = append(out, agent.Chunk{Call: &agent.CallDelta{Index: i, ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)}})
	}
	if resp.Usage != (agent.Usage{}) {
		out = append(out, agent.Chunk{Usage: resp.Usage})
	}
	if resp.Stop != "" {
		out = append(out, agent.Chunk{Stop: resp.Stop, StopRaw: resp.StopRaw})
	}
	return out
}
