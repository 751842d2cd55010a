package openaiwire

import (
	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/internal/toolcall"
	"github.com/enforcer-go/enforcer/providers/native"
)

// Choice is one choice of a stream chunk, as the adapter's SDK decoded it.
type Choice struct {
	Index                       int64
	Reasoning, Content, Refusal string
	Calls                       []Call
	Finish                      string // "" until the reply ends
}

// Call is a tool call delta of a Choice.
type Call struct {
	Index                     int64
	ID, Type, Name, Arguments string
}

// ChunkReader turns a stream's chunks into agent.Chunks, keeping what a
// chunk alone does not say. Make one with [NewChunkReader].
type ChunkReader struct {
	system   string
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

// NewChunkReader reads a stream of system's, its text through readBack.
func NewChunkReader(system string, readBack *native.ReadBack) *ChunkReader {
	return &ChunkReader{system: system, calls: map[int64]int{}, readBack: readBack}
}

// Finished reports that choice 0 had its finish_reason.
func (r *ChunkReader) Finished() bool { return r.finished }

// Done reports that the usage came after the finish_reason: nothing more
// belongs to the reply.
func (r *ChunkReader) Done() bool { return r.done }

// Read maps one chunk of the stream: its choices and its usage (zero when
// it carries none), the stream's HTTP status. Only choice 0 is read, as
// Generate reads only the first choice. The chunks it returns are valid
// until the next Read.
func (r *ChunkReader) Read(choices []Choice, counts agent.Usage, status int) ([]agent.Chunk, error) {
	r.out = r.out[:0]
	if counts != (agent.Usage{}) {
		// With include_usage the usage chunk is the last before [DONE].
		r.done = r.finished
	}
	for _, choice := range choices {
		if choice.Index != 0 || r.finished {
			// The reply ended at its finish_reason: deltas after it are
			// no part of it.
			continue
		}
		if choice.Reasoning != "" {
			r.out = append(r.out, agent.Chunk{Reasoning: choice.Reasoning})
		}
		if choice.Content != "" {
			if text := r.readBack.Write(choice.Content); text != "" {
				r.out = append(r.out, agent.Chunk{Text: text})
			}
		}
		if choice.Refusal != "" {
			r.refusal = true
			r.out = append(r.out, agent.Chunk{Text: choice.Refusal, Stop: agent.StopRefusal})
		}
		for _, tc := range choice.Calls {
			i, seen := r.calls[tc.Index]
			if !seen {
				i = len(r.calls)
				if err := CheckToolType(r.system, status, i, tc.Type); err != nil {
					return nil, err
				}
				r.calls[tc.Index] = i
				r.argless = append(r.argless, true)
				r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, ID: toolcall.ID(tc.ID, i), Name: tc.Name, Arguments: tc.Arguments}})
			} else if tc.Arguments != "" {
				r.out = append(r.out, agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: tc.Arguments}})
			}
			if tc.Arguments != "" {
				r.argless[i] = false
			}
		}
		if choice.Finish != "" {
			r.finish(choice.Finish)
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

// finish ends the reply at its finish_reason: the text the read-back
// kept, "{}" for each call that had no arguments, and why it ended (a
// refusal stays one whatever finish_reason says).
func (r *ChunkReader) finish(reason string) {
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
	stop := StopReason(reason)
	if r.refusal {
		stop = agent.StopRefusal
	}
	r.out = append(r.out, agent.Chunk{Stop: stop, StopRaw: reason})
}
