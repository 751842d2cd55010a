package anthropic

import (
	"context"
	"iter"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
)

var _ agent.StreamingModel = (*Model)(nil)

// GenerateStream sends req as one streamed Messages API request and
// yields the reply as it arrives: text deltas as text, tool_use blocks as
// calls (id and name from content_block_start, then the input_json_delta
// fragments), usage from message_start (input) and message_delta
// (output), and why the reply ended from message_delta. The chunks add up
// to the Response Generate would return for the same reply: text blocks
// joined, other blocks (thinking, server tools) left out, a call without
// input given "{}".
//
// Failures are classified as for Generate, before or during the stream:
// an error event mid-stream (overloaded_error, say) by its error type,
// with no HTTP status, the stream's being 200; a stream that ends before
// message_stop, or whose connection breaks, as kind connection. The
// reply ends at message_stop: nothing after it is read, and the
// connection is closed then, as it is at once when a consumer stops
// early or ctx is done (which yields context.Cause(ctx)).
func (m *Model) GenerateStream(ctx context.Context, req agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		if err := m.opts.Err(); err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		params, err := m.newParams(req)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		var raw *http.Response
		stream := m.client.Messages.NewStreaming(ctx, params, m.requestOptions(&raw, true)...)
		r := eventReader{calls: map[int64]int{}}
		wire.ReadStream(ctx, System, stream,
			func(ev sdk.MessageStreamEventUnion) ([]agent.Chunk, error) { return r.read(ev, raw) },
			func() bool { return r.stopped }, func() bool { return r.stopped },
			func(err error) error { return failure(ctx, err, raw) },
			yield)
	}
}

// eventReader turns the stream's events into agent.Chunks, keeping what
// an event alone does not say.
type eventReader struct {
	calls   map[int64]int // a tool_use block's index → the call's place
	argless []bool        // per call: no input fragment yet
	usage   sdk.Usage     // the counts so far; message_delta's are totals
	cached  bool          // cache_read_input_tokens was reported
	thought bool          // a thinking block began: reasoning tokens are unknown
	// th holds the thinking blocks so far, and thinking maps a thinking
	// block's index to its place there.
	th       thoughts
	thinking map[int64]bool
	stopped  bool // message_stop arrived
	out      []agent.Chunk
}

// read maps one event of the stream.
func (r *eventReader) read(ev sdk.MessageStreamEventUnion, raw *http.Response) ([]agent.Chunk, error) {
	r.out = r.out[:0]
	switch ev.Type {
	case "message_start":
		if ev.Message.Role != "assistant" {
			return nil, notAssistant(raw)
		}
		r.usage = ev.Message.Usage
		r.cached = ev.Message.Usage.JSON.CacheReadInputTokens.Valid()
		r.emitUsage(agent.Chunk{}, false)
	case "content_block_start":
		b := ev.ContentBlock
		switch b.Type {
		case "text":
			if b.Text != "" {
				r.out = append(r.out, agent.Chunk{Text: b.Text})
			}
		case "thinking", "redacted_thinking":
			r.thought = true
			if r.thinking == nil {
				r.thinking = map[int64]bool{}
			}
			r.thinking[ev.Index] = true
			if s := r.th.add(thought{Type: string(b.Type), Thinking: b.Thinking, Signature: b.Signature, Data: b.Data}); s != "" {
				r.out = append(r.out, agent.Chunk{Reasoning: s})
			}
		case "tool_use":
			i := len(r.argless)
			r.calls[ev.Index] = i
			// The start carries input {}, the deltas the whole input; an
			// input given whole at the start is kept, as the SDK does.
			input := b.JSON.Input.Raw()
			if noInput([]byte(input)) || input == "{}" {
				input = ""
			}
			r.argless = append(r.argless, input == "")
			r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, ID: b.ID, Name: b.Name, Arguments: input}})
		}
	case "content_block_delta":
		switch d := ev.Delta; d.Type {
		case "text_delta":
			if d.Text != "" {
				r.out = append(r.out, agent.Chunk{Text: d.Text})
			}
		case "thinking_delta":
			if !r.thinking[ev.Index] {
				break
			}
			if s := r.th.write(d.Thinking); s != "" {
				r.out = append(r.out, agent.Chunk{Reasoning: s})
			}
		case "signature_delta":
			if r.thinking[ev.Index] {
				r.th.sign(d.Signature)
			}
		case "input_json_delta":
			if i, ok := r.calls[ev.Index]; ok && d.PartialJSON != "" {
				r.argless[i] = false
				r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: d.PartialJSON}})
			}
		}
	case "content_block_stop":
		if r.thinking[ev.Index] {
			// The block is whole, its signature too: the blocks so far
			// are what the reply sends back.
			r.out = append(r.out, agent.Chunk{ReasoningRaw: r.th.raw()})
		}
		if i, ok := r.calls[ev.Index]; ok && r.argless[i] {
			r.argless[i] = false
			r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: "{}"}})
		}
	case "message_delta":
		u := ev.Usage
		r.usage.OutputTokens = u.OutputTokens
		if u.JSON.InputTokens.Valid() {
			r.usage.InputTokens = u.InputTokens
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			r.usage.CacheCreationInputTokens = u.CacheCreationInputTokens
		}
		if u.JSON.CacheReadInputTokens.Valid() {
			r.usage.CacheReadInputTokens, r.cached = u.CacheReadInputTokens, true
		}
		c := agent.Chunk{}
		if ev.Delta.StopReason != "" {
			c.Stop, c.StopRaw = stopReason(ev.Delta.StopReason), string(ev.Delta.StopReason)
		}
		// Whether the reply thought is known only now: the usage is Detailed
		// from here on, if ever.
		r.emitUsage(c, r.cached && !r.thought)
	case "message_stop":
		r.stopped = true
	}
	return r.out, nil
}

// emitUsage adds c with the usage so far.
func (r *eventReader) emitUsage(c agent.Chunk, detailed bool) {
	u := r.usage
	c.Usage = usage(u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.OutputTokens, detailed)
	r.out = append(r.out, c)
}
