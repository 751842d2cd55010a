package langchaingo

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

// errStopped is what the streaming callback returns to make langchaingo's
// provider stop reading the reply once the consumer stopped.
var errStopped = errors.New("langchaingo: the reply's reader stopped")

// MaxToolReplyBytes bounds what the streaming callback is given of a
// reply to a request with tools, which it cannot pass on as it comes
// (see [Model.GenerateStream]) and the agent's bounds therefore do not
// see: twice enforce.MaxAnswerBytes, room for a reply of the default
// answer bound with its tool calls' JSON. Reaching it costs time
// quadratic in its pieces' count (langchaingo's OpenAI client joins the
// reply by string concatenation), so it is no larger.
const MaxToolReplyBytes = 8 << 20

// ErrReplyTooLong is matched by the failure of a reply to a request with
// tools that ran past [MaxToolReplyBytes].
var ErrReplyTooLong = errors.New("langchaingo: reply longer than its bound")

// GenerateStream makes Generate's call with llms.WithStreamingFunc and
// yields each piece the callback is given as text; the rest of the reply
// (tool calls, usage, stop, text the provider did not stream) follows
// when the call returns. A consumer that stops, or a done ctx, makes the
// callback return an error, which ends the provider's stream. A request
// with tools streams nothing before the call returns, and a reply whose
// text does not begin with what streamed is malformed.
//
// The reply is read no further than the agent's bounds allow: each empty
// piece the callback is given is yielded as an empty chunk, which the
// agent's bound on chunks that add no bytes counts; with tools, where
// nothing is yielded until the call returns, the pieces' bytes are
// counted here, and past [MaxToolReplyBytes] the callback stops the
// provider's stream and the call fails with a *agent.ProviderError
// matching [ErrReplyTooLong]. When the call returns, usage and the stop
// reason come before the tool calls, so that an answer the agent cuts
// there keeps the reply's cost.
func (m *Model) GenerateStream(ctx context.Context, req agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		msgs, opts, err := m.prepare(req)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		var streamed strings.Builder
		stopped := false // yield returned false: never call it again
		unstreamed := 0  // bytes given to the callback with tools
		tooLong := false
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
			var c agent.Chunk
			switch {
			case !streams && len(chunk) > 0:
				if unstreamed += len(chunk); unstreamed > MaxToolReplyBytes {
					tooLong = true
					return ErrReplyTooLong
				}
				return nil
			case len(chunk) > 0:
				streamed.Write(chunk)
				c.Text = string(chunk)
			}
			if !yield(c, nil) {
				stopped = true
				return errStopped
			}
			return nil
		}))
		cr, err := m.m.GenerateContent(ctx, msgs, opts...)
		if stopped {
			return
		}
		if err != nil && tooLong && ctx.Err() == nil {
			yield(agent.Chunk{}, &agent.ProviderError{System: System, Kind: events.KindUnknown,
				Message: fmt.Sprintf("reply to a request with tools longer than %d MiB", MaxToolReplyBytes>>20), Err: err})
			return
		}
		if err != nil {
			yield(agent.Chunk{}, failure(ctx, err))
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
	// Usage and stop first, with the rest of the text: the whole reply is
	// here, so the agent judges it whole (it cuts only a reply still
	// coming), and an answer in a call's arguments keeps its cost.
	if rest != "" || resp.Usage != (agent.Usage{}) || resp.Stop != "" {
		out = append(out, agent.Chunk{Text: rest, Usage: resp.Usage, Stop: resp.Stop, StopRaw: resp.StopRaw})
	}
	for i, c := range resp.Message.ToolCalls {
		out = append(out, agent.Chunk{Call: &agent.CallDelta{Index: i, ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)}})
	}
	return out
}
