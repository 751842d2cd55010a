package fantasy

import (
	"context"
	"iter"

	"charm.land/fantasy"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
	"github.com/enforcer-go/enforcer/internal/toolcall"
)

// GenerateStream streams req through the fantasy model's Stream and
// yields the reply as it arrives: text and reasoning deltas, tool call
// input by call, usage and why the reply ended, adding up to the
// Response Generate would return. A call is known by its ID; a call
// fantasy gives whole (a tool_call part with no input parts before it)
// comes in one chunk; a call without arguments gets "{}".
//
// Each part yields at least one chunk, an empty one for a part that adds
// nothing (a text's start, a warning), so that the agent's bound on
// chunks that add no bytes stops a stream of such parts without end.
//
// fantasy's streams have no Close: the call runs under a ctx of its own,
// cancelled when the consumer stops early (the agent cutting a doomed
// answer), which ends the provider's request there. A done ctx yields
// context.Cause(ctx); an error part is a failure classified as for
// Generate.
func (m *Model) GenerateStream(ctx context.Context, req agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		call, err := m.prepare(req)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		st, err := m.lm.Stream(sctx, call)
		if err != nil {
			yield(agent.Chunk{}, failure(ctx, err))
			return
		}
		if st == nil {
			yield(agent.Chunk{}, glue.Malformed(System, "the model returned no stream"))
			return
		}
		readStream(ctx, st, yield)
	}
}

// readStream yields what st carries until it ends, fails, the consumer
// stops, or ctx ends.
func readStream(ctx context.Context, st fantasy.StreamResponse, yield func(agent.Chunk, error) bool) {
	r := partReader{calls: map[string]int{}}
	for part := range st {
		if ctx.Err() != nil {
			yield(agent.Chunk{}, context.Cause(ctx))
			return
		}
		if part.Type == fantasy.StreamPartTypeError {
			err := glue.Malformed(System, "an error part without an error")
			if part.Error != nil {
				err = failure(ctx, part.Error)
			}
			yield(agent.Chunk{}, err)
			return
		}
		chunks := r.read(part)
		if len(chunks) == 0 {
			// A part that adds nothing is still a chunk to the agent,
			// which bounds how many such a reply may hold.
			chunks = append(chunks, agent.Chunk{})
		}
		for _, c := range chunks {
			if !yield(c, nil) {
				return
			}
		}
	}
	if ctx.Err() != nil {
		yield(agent.Chunk{}, context.Cause(ctx))
		return
	}
	for _, c := range r.end() {
		if !yield(c, nil) {
			return
		}
	}
}

// partReader turns fantasy stream parts into agent.Chunks, keeping what
// a part alone does not say.
type partReader struct {
	calls   map[string]int // a call's ID → its place
	argless []bool         // per call: no argument yet
	out     []agent.Chunk
}

// begin opens a call, with its first arguments when it has them.
func (r *partReader) begin(id, name, args string) {
	i := len(r.argless)
	r.calls[id] = i
	r.argless = append(r.argless, args == "")
	r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, ID: toolcall.ID(id, i), Name: name, Arguments: args}})
}

func (r *partReader) read(p fantasy.StreamPart) []agent.Chunk {
	r.out = r.out[:0]
	switch p.Type {
	case fantasy.StreamPartTypeTextDelta:
		if p.Delta != "" {
			r.out = append(r.out, agent.Chunk{Text: p.Delta})
		}
	case fantasy.StreamPartTypeReasoningDelta:
		if p.Delta != "" {
			r.out = append(r.out, agent.Chunk{Reasoning: p.Delta})
		}
	case fantasy.StreamPartTypeToolInputStart:
		if _, seen := r.calls[p.ID]; !seen && !p.ProviderExecuted {
			r.begin(p.ID, p.ToolCallName, "")
		}
	case fantasy.StreamPartTypeToolInputDelta:
		i, seen := r.calls[p.ID]
		switch {
		case p.Delta == "":
		case !seen:
			r.begin(p.ID, p.ToolCallName, p.Delta)
		default:
			r.argless[i] = false
			r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: p.Delta}})
		}
	case fantasy.StreamPartTypeToolCall:
		if p.ProviderExecuted {
			break // the provider ran it; it is no call of the agent's
		}
		i, seen := r.calls[p.ID]
		switch {
		case !seen:
			r.begin(p.ID, p.ToolCallName, p.ToolCallInput)
		case r.argless[i] && p.ToolCallInput != "":
			r.argless[i] = false
			r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: p.ToolCallInput}})
		}
	case fantasy.StreamPartTypeFinish:
		if u := usage(p.Usage); u != (agent.Usage{}) {
			r.out = append(r.out, agent.Chunk{Usage: u})
		}
		if s := stopReason(p.FinishReason); s != "" {
			r.out = append(r.out, agent.Chunk{Stop: s, StopRaw: string(p.FinishReason)})
		}
	}
	return r.out
}

// end is what the stream's end adds: "{}" for each call that got no
// arguments, as Generate gives it.
func (r *partReader) end() []agent.Chunk {
	r.out = r.out[:0]
	for i, none := range r.argless {
		if none {
			r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: "{}"}})
		}
	}
	return r.out
}
