package eino

import (
	"context"
	"sync"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
)

// spent sums the usage of every chat model call one run of an eino agent
// or graph makes, read from eino's callbacks: the final message carries
// only its own call's, and the calls that chose tools cost as much.
type spent struct {
	mu      sync.Mutex
	total   agent.Usage
	calls   int // model calls that reported usage
	streams []*schema.StreamReader[callbacks.CallbackOutput]
}

// watch is ctx with a handler that tells s of each chat model call. It
// replaces the callback handlers ctx holds for the run (eino's global
// handlers stay): the agent's loop, not an eino graph, is the caller.
func (s *spent) watch(ctx context.Context) context.Context {
	h := callbacks.NewHandlerBuilder().
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			if isModel(info) {
				s.add(callUsage(model.ConvCallbackOutput(out)))
			}
			return ctx
		}).
		OnEndWithStreamOutputFn(func(ctx context.Context, info *callbacks.RunInfo, out *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
			if !isModel(info) {
				out.Close() // a copy of its own, which nobody else reads
				return ctx
			}
			// Kept unread until the run ends: reading a copy pulls the
			// model's stream, which must go only as fast as the graph
			// reads it, so that a cut closes it there.
			s.mu.Lock()
			s.streams = append(s.streams, out)
			s.mu.Unlock()
			return ctx
		}).Build()
	return callbacks.InitCallbacks(ctx, &callbacks.RunInfo{Name: "enforcer"}, h)
}

func isModel(info *callbacks.RunInfo) bool {
	return info != nil && info.Component == components.ComponentOfChatModel
}

func (s *spent) add(u agent.Usage) {
	if u == (agent.Usage{}) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total = agent.Usage{InputTokens: s.total.InputTokens + u.InputTokens, OutputTokens: s.total.OutputTokens + u.OutputTokens}
	s.calls++
}

// sum reads the kept streams, which the graph has read to their end, and
// gives the total, with false when no model call reported usage. After
// a run that was cut or failed, whole is false: the streams are closed
// unread, and the total is of no use.
func (s *spent) sum(whole bool) (agent.Usage, bool) {
	s.mu.Lock()
	streams := s.streams
	s.streams = nil
	s.mu.Unlock()
	for _, sr := range streams {
		var u agent.Usage
		for whole {
			o, err := sr.Recv()
			if err != nil {
				break
			}
			c := callUsage(model.ConvCallbackOutput(o))
			u.InputTokens = max(u.InputTokens, c.InputTokens)
			u.OutputTokens = max(u.OutputTokens, c.OutputTokens)
		}
		sr.Close()
		s.add(u)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total, s.calls > 0
}

// callUsage is one model call's usage: the component's own report, else
// its message's.
func callUsage(o *model.CallbackOutput) agent.Usage {
	switch {
	case o == nil:
		return agent.Usage{}
	case o.TokenUsage != nil:
		return agent.Usage{InputTokens: o.TokenUsage.PromptTokens, OutputTokens: o.TokenUsage.CompletionTokens}
	case o.Message != nil && o.Message.ResponseMeta != nil:
		return usage(o.Message.ResponseMeta.Usage)
	}
	return agent.Usage{}
}
