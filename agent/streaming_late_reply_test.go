package agent_test

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
)

// endsRun is a model that ends the run's context and then gives a whole,
// valid answer at once: the reply comes after the context ended.
type endsRun struct {
	cancel context.CancelCauseFunc
	cause  error
}

func (m endsRun) Generate(context.Context, agent.Request) (agent.Response, error) {
	m.cancel(m.cause)
	return reply(valid), nil
}

type endsRunStreaming struct{ endsRun }

func (m endsRunStreaming) GenerateStream(context.Context, agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		if !yield(agent.Chunk{Text: valid}, nil) {
			return
		}
		m.cancel(m.cause)
	}
}

// A reply the run receives once its context has ended is dropped, as a
// tool's result is: Run returns the cause, with no answer and no row,
// however the reply and the context's end race to the run. (Which wins
// the race depends on the scheduler: under -race, which shuffles it, the
// reply won often enough to fail this test every time.)
func TestAReplyAfterTheContextEndedIsDropped(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := "a model that generates"
		if streaming {
			name = "a model that streams"
		}
		t.Run(name, func(t *testing.T) {
			for range 500 {
				cause := errors.New("user hung up")
				ctx, cancel := context.WithCancelCause(t.Context())
				var m agent.Model = endsRun{cancel, cause}
				if streaming {
					m = endsRunStreaming{endsRun{cancel, cause}}
				}
				res, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1)).Run(ctx, "?")
				cancel(nil)
				if !errors.Is(err, cause) || res.Output != "" || len(res.Attempts) != 0 {
					t.Fatalf("Run = output %q, %d rows, err %v; want no answer, no row, the cause", res.Output, len(res.Attempts), err)
				}
			}
		})
	}
}
