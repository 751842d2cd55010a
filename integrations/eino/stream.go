package eino

import (
	"context"
	"errors"
	"io"
	"iter"

	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
	"github.com/enforcer-go/enforcer/internal/toolcall"
)

// GenerateStream streams req from the eino model (its Stream method) and
// yields the reply as it arrives: content as text, tool call fragments by
// call, usage and why the reply ended, adding up to the Response Generate
// would return. Tool call fragments are joined by their Index, as eino's
// schema.ConcatMessages joins them; a call without an Index is whole. A
// call without arguments gets "{}".
//
// Each message yields at least one chunk, an empty one for a message
// that adds nothing (empty, or reasoning alone), so that the agent's
// bound on chunks that add no bytes stops a model that sends such
// messages without end.
//
// A consumer that stops early, or a done ctx, closes the eino
// StreamReader at once, which tells the eino model (and the graph or
// provider behind it) to stop; a done ctx yields context.Cause(ctx).
// Failures are classified as for Generate.
func (m *Model) GenerateStream(ctx context.Context, req agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		cm, msgs, opts, err := m.prepare(req)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		sr, err := cm.Stream(ctx, msgs, opts...)
		if err != nil {
			yield(agent.Chunk{}, failure(ctx, err))
			return
		}
		if sr == nil {
			yield(agent.Chunk{}, glue.Malformed(System, "the model returned no stream"))
			return
		}
		readStream(ctx, sr, yield)
	}
}

// readStream yields what sr carries until it ends, the consumer stops, or
// ctx ends, and closes sr in every case.
func readStream(ctx context.Context, sr *schema.StreamReader[*schema.Message], yield func(agent.Chunk, error) bool) {
	defer sr.Close()
	r := chunkReader{calls: map[int]int{}}
	for {
		msg, err := sr.Recv()
		if ctx.Err() != nil {
			yield(agent.Chunk{}, context.Cause(ctx))
			return
		}
		if errors.Is(err, io.EOF) {
			for _, c := range r.end() {
				if !yield(c, nil) {
					return
				}
			}
			return
		}
		if err != nil {
			yield(agent.Chunk{}, failure(ctx, err))
			return
		}
		chunks := r.read(msg)
		if len(chunks) == 0 {
			// A message that adds nothing (empty, reasoning alone) is still
			// a chunk to the agent, which bounds how many such a reply may
			// hold: dropped here, endless ones would never reach it.
			chunks = append(chunks, agent.Chunk{})
		}
		for _, c := range chunks {
			if !yield(c, nil) {
				return
			}
		}
	}
}

// chunkReader turns eino message chunks into agent.Chunks, keeping what a
// chunk alone does not say.
type chunkReader struct {
	calls   map[int]int // eino's tool call Index → the call's place
	argless []bool      // per call: no argument fragment yet
	out     []agent.Chunk
}

func (r *chunkReader) read(msg *schema.Message) []agent.Chunk {
	r.out = r.out[:0]
	if msg == nil {
		return nil
	}
	if msg.Content != "" {
		r.out = append(r.out, agent.Chunk{Text: msg.Content})
	}
	for _, tc := range msg.ToolCalls {
		i, seen := -1, false
		if tc.Index != nil {
			i, seen = r.calls[*tc.Index]
		}
		if !seen {
			i = len(r.argless)
			if tc.Index != nil {
				r.calls[*tc.Index] = i
			}
			r.argless = append(r.argless, true)
			r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, ID: toolcall.ID(tc.ID, i), Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
		} else if tc.Function.Arguments != "" {
			r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: tc.Function.Arguments}})
		}
		if tc.Function.Arguments != "" {
			r.argless[i] = false
		}
	}
	if rm := msg.ResponseMeta; rm != nil {
		if u := usage(rm.Usage); u != (agent.Usage{}) {
			r.out = append(r.out, agent.Chunk{Usage: u})
		}
		if rm.FinishReason != "" {
			r.out = append(r.out, agent.Chunk{Stop: stopReason(rm.FinishReason), StopRaw: rm.FinishReason})
		}
	}
	return r.out
}

// end is what the stream's end adds: "{}" for each call that got no
// arguments, as Generate gives it.
func (r *chunkReader) end() []agent.Chunk {
	r.out = r.out[:0]
	for i, none := range r.argless {
		if none {
			r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: "{}"}})
		}
	}
	return r.out
}
