package agent_test

import (
	"context"
	"errors"
	"iter"
	"runtime"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
)

// hung is a model that ignores its context: each call ends the run's
// context (as a user hanging up while it works would) at the point its
// kind names, then blocks until release is closed, and then gives a
// whole, valid answer — one the run must never take.
type hung struct {
	cancel  context.CancelCauseFunc
	cause   error
	release chan struct{}
	// at: "generate" blocks in Generate; "before" blocks in the stream's
	// iterator before its first chunk; "mid" after its first chunk;
	// "open" in GenerateStream itself, before it returns the iterator.
	at string
}

func (h *hung) block() {
	h.cancel(h.cause)
	<-h.release
}

func (h *hung) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	h.block()
	return reply(`{"city":"Paris","tempC":21}`), nil
}

type hungStream struct{ *hung }

func (h hungStream) GenerateStream(ctx context.Context, req agent.Request) iter.Seq2[agent.Chunk, error] {
	if h.at == "open" {
		h.block()
	}
	return func(yield func(agent.Chunk, error) bool) {
		if h.at == "before" {
			h.block()
		}
		if !yield(agent.Chunk{Text: `{"city":"Paris",`}, nil) {
			return
		}
		if h.at == "mid" {
			h.block()
		}
		yield(agent.Chunk{Text: `"tempC":21}`, Stop: agent.StopComplete}, nil)
	}
}

func TestAModelThatIgnoresItsContextDoesNotHoldTheRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		at   string
	}{
		{"a Generate that blocks", "generate"},
		{"a GenerateStream that blocks before it returns its iterator", "open"},
		{"a stream that blocks before its first chunk", "before"},
		{"a stream that blocks mid-reply", "mid"},
	} {
		t.Run(tc.name+" is left when the run's context ends", func(t *testing.T) {
			before := runtime.NumGoroutine()
			cause := errors.New("user hung up")
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			h := &hung{cancel: cancel, cause: cause, release: make(chan struct{}), at: tc.at}
			var m agent.Model = h
			if tc.at != "generate" {
				m = hungStream{h}
			}
			var calls []agent.ModelCall
			obs := agent.Observer{ModelEnd: func(_ context.Context, c agent.ModelCall) { calls = append(calls, c) }}
			a := agent.New(m, agent.WithOutputRetries(2), agent.WithObserver(obs))

			w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
			close(h.release) // the model now answers, too late

			if !errors.Is(err, cause) {
				t.Errorf("err = %v, want the context's cause", err)
			}
			if w != (Weather{}) || res == nil || res.Output != "" || len(res.Attempts) != 0 {
				t.Errorf("RunTyped = %+v, %+v; want no value, no output, no rows", w, res)
			}
			for _, msg := range res.Messages {
				if msg.Role == agent.RoleAssistant {
					t.Errorf("the abandoned call's reply joined the conversation: %+v", msg)
				}
			}
			if len(calls) != 1 || !errors.Is(calls[0].Err, cause) {
				t.Errorf("observed calls = %+v, want one that failed with the cause", calls)
			}
			if after := settledGoroutines(before); after > before {
				t.Errorf("%d goroutines after the model was released, %d before", after, before)
			}
		})
	}
}
