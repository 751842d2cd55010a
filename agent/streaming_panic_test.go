package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
)

// A model whose stream panics after the loop stopped reading it (it yields
// again once yield returned false, which Go's range-over-func turns into a
// panic, or its cleanup panics) has failed the call: the panic is the
// model's, as it is when the stream runs on the caller's goroutine (a
// context that cannot end), and the run says so, whichever goroutine the
// stream ran on.
func TestAStreamThatPanicsAfterItWasStoppedFailsTheCall(t *testing.T) {
	models := []struct {
		name string
		m    chunks
	}{
		{"yields again after yield returned false", func(yield func(agent.Chunk, error) bool) {
			for _, b := range prose {
				yield(agent.Chunk{Text: string(b)}, nil) // ignores that the loop stopped
			}
		}},
		{"panics in its cleanup", func(yield func(agent.Chunk, error) bool) {
			defer func() { panic("cleanup on fire") }()
			for _, b := range prose {
				if !yield(agent.Chunk{Text: string(b)}, nil) {
					return
				}
			}
		}},
	}
	ctxs := []struct {
		name string
		ctx  context.Context
	}{
		{"on the caller's goroutine", context.Background()}, // Done is nil: the stream runs on the caller's goroutine
		{"on a goroutine of its own", t.Context()},
	}
	for _, m := range models {
		for _, c := range ctxs {
			t.Run(m.name+", "+c.name, func(t *testing.T) {
				// Early abort cuts the prose at its first byte: the loop
				// stops reading there.
				a := agent.New(m.m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2))
				res, err := a.Run(c.ctx, "Weather in Paris?")
				if !errors.Is(err, agent.ErrModel) {
					t.Errorf("err = %v, want an ErrModel: the model panicked", err)
				}
				if res == nil || len(res.Attempts) != 0 || res.Output != "" {
					t.Errorf("Result = %+v, want no row and no output: the call failed", res)
				}
			})
		}
	}
}

// A stream run on a goroutine of its own (the context can end) ends as it
// would on the caller's: one that yields nothing is an empty reply, and
// one whose iterator yields from a goroutine of its own (in turn, waiting
// for it) is read as any other.
func TestAStreamOnAGoroutineOfItsOwnEndsAsOnTheCallers(t *testing.T) {
	tests := []struct {
		name  string
		m     chunks
		check func(*agent.Result, error) bool
	}{
		{"one that yields nothing", func(func(agent.Chunk, error) bool) {},
			func(res *agent.Result, err error) bool { return errors.Is(err, agent.ErrEmptyAnswer) }},
		{"one that yields from another goroutine", func(yield func(agent.Chunk, error) bool) {
			done := make(chan struct{})
			go func() {
				defer close(done)
				for _, b := range prose {
					if !yield(agent.Chunk{Text: string(b)}, nil) {
						return
					}
				}
			}()
			<-done
		}, func(res *agent.Result, err error) bool { return err == nil && res.Output == prose }},
	}
	for _, tt := range tests {
		for _, ctx := range []context.Context{context.Background(), t.Context()} {
			t.Run(tt.name, func(t *testing.T) {
				res, err := agent.New(tt.m).Run(ctx, "?")
				if !tt.check(res, err) {
					t.Errorf("Run = %+v, %v", res, err)
				}
			})
		}
	}
}
