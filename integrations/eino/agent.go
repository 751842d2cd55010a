package eino

import (
	"context"
	"fmt"
	"iter"

	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

// Agent makes an agent.Model of an eino agent or graph that answers a
// conversation with one message: generate is a ReAct agent's Generate or
// a compiled graph's Invoke, called with opts. Each call runs it once on
// the conversation so far and gives its final message as the final
// answer, so a failing answer and its corrective turn are the input of
// its next run. Its tools run inside eino ([JudgeTools] puts the judge
// in front of them): the agent.Agent must offer none (agent.WithTools,
// agent.WithOutputTool), or the call fails with agent.ErrInvalidOption. Usage is the sum of every chat model call the
// run made, read from eino's callbacks (a handler is set in the ctx
// generate is called with, replacing the ctx's own; eino's global
// handlers stay); when no model call reports any, the final message's.
func Agent[O any](generate func(ctx context.Context, input []*schema.Message, opts ...O) (*schema.Message, error), opts ...O) agent.Model {
	return agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		msgs, err := agentInput(generate == nil, req)
		if err != nil {
			return agent.Response{}, err
		}
		// The tool calls the eino agent made inside one run stay in eino:
		// the next run sees its answer, not how it got there.
		var s spent
		out, err := generate(s.watch(ctx), msgs, opts...)
		total, counted := s.sum(err == nil && ctx.Err() == nil)
		if err != nil {
			return agent.Response{}, failure(ctx, err)
		}
		if out == nil {
			return agent.Response{}, glue.Malformed(System, "the eino agent returned no message")
		}
		// The final message is the answer whoever wrote it: a ReAct agent
		// whose tool returns directly ends with that tool's message.
		resp := fromMessage(out)
		resp.Message.ToolCalls = nil
		resp.Stop = answerStop(resp.Stop)
		if counted {
			resp.Usage = total
		}
		return resp, nil
	})
}

// answerStop is why an eino agent's final message ended: tool use there
// was the agent's business, and its final message is an answer.
func answerStop(s agent.StopReason) agent.StopReason {
	if s == agent.StopToolUse {
		return agent.StopComplete
	}
	return s
}

// AgentStream is [Agent] for a ReAct agent's or a graph's Stream. The
// model it returns streams, so a failing answer is cut at the first byte
// that dooms it (agent.WithEarlyAbort): the eino StreamReader is closed
// there, which stops the graph and its model. Tool call fragments in the
// final message are dropped, as Agent drops its tool calls; each still
// counts toward the agent's bound on chunks that add no bytes. Usage is
// summed as for Agent and given once the stream ends; a stream the agent
// cut keeps what it had read.
func AgentStream[O any](stream func(ctx context.Context, input []*schema.Message, opts ...O) (*schema.StreamReader[*schema.Message], error), opts ...O) agent.StreamingModel {
	return &streamingAgent[O]{stream: stream, opts: opts}
}

type streamingAgent[O any] struct {
	stream func(context.Context, []*schema.Message, ...O) (*schema.StreamReader[*schema.Message], error)
	opts   []O
}

func (a *streamingAgent[O]) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	resp := agent.Response{Message: agent.Message{Role: agent.RoleAssistant}}
	for c, err := range a.GenerateStream(ctx, req) {
		if err != nil {
			return agent.Response{}, err
		}
		resp.Message.Content += c.Text
		if c.Usage.InputTokens > 0 {
			resp.Usage.InputTokens = c.Usage.InputTokens
		}
		if c.Usage.OutputTokens > 0 {
			resp.Usage.OutputTokens = c.Usage.OutputTokens
		}
		if c.Stop != "" {
			resp.Stop, resp.StopRaw = c.Stop, c.StopRaw
		}
	}
	return resp, nil
}

func (a *streamingAgent[O]) GenerateStream(ctx context.Context, req agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		msgs, err := agentInput(a.stream == nil, req)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		var s spent
		sr, err := a.stream(s.watch(ctx), msgs, a.opts...)
		if err != nil || sr == nil {
			s.sum(false)
		}
		if err != nil {
			yield(agent.Chunk{}, failure(ctx, err))
			return
		}
		if sr == nil {
			yield(agent.Chunk{}, glue.Malformed(System, "the eino agent returned no stream"))
			return
		}
		more := true // the consumer takes more
		readStream(ctx, sr, func(c agent.Chunk, err error) bool {
			if c.Call != nil {
				// Dropped, but counted: the agent bounds the chunks that
				// add nothing, and a final message of endless call
				// fragments would otherwise never reach it.
				c.Call = nil
			}
			c.Stop = answerStop(c.Stop)
			more = yield(c, err) && err == nil
			return more
		})
		whole := more && ctx.Err() == nil
		u, ok := s.sum(whole)
		if !whole {
			return // cut or failed: the cost is what the agent has read
		}
		if ok {
			yield(agent.Chunk{Usage: u}, nil)
		}
	}
}

// agentInput is the eino agent's input for req, or why it cannot run.
func agentInput(missing bool, req agent.Request) ([]*schema.Message, error) {
	if missing {
		return nil, fmt.Errorf("%w: eino: Agent(nil)", agent.ErrInvalidOption)
	}
	if len(req.Tools) > 0 {
		return nil, fmt.Errorf("%w: eino: Agent runs its own tools; the agent offers %d of its own (WithTools or WithOutputTool), which the eino agent cannot run", agent.ErrInvalidOption, len(req.Tools))
	}
	return toMessages(req.Messages)
}
