package eino

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

// Agent makes an agent.Model of an eino agent or graph that answers a
// conversation with one message: generate is a ReAct agent's Generate
// (react.Agent.Generate, with opts of type agent.AgentOption of eino's
// flow/agent) or a compiled graph's Invoke (compose.Runnable, with
// compose.Option), called with opts on every run.
//
// Each Generate of the returned model runs the eino agent once, with the
// whole conversation so far as its input, and gives its final message as
// the final answer: its tools run inside eino, none in enforcer's loop.
// Under agent.WithOutputRetries a failing answer is appended to that
// conversation as an assistant message and the corrective turn as a user
// message, and the eino agent runs again on it; the rows, corrective
// hashes, events and observer calls are the agent package's. The tool
// calls the eino agent made inside one run are not kept in the
// conversation: the next run sees its answer, not how it got there.
// Usage is the final message's (for a ReAct agent, its last model call).
//
// The agent.Agent must offer no tools (agent.WithTools, agent.WithOutputTool):
// the eino agent could not run them. A request with tools fails with an
// error matching agent.ErrInvalidOption, as does a nil generate. A failed
// run of the eino agent is mapped as [Model.Generate] maps a failed call.
func Agent[O any](generate func(ctx context.Context, input []*schema.Message, opts ...O) (*schema.Message, error), opts ...O) agent.Model {
	return agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		if generate == nil {
			return agent.Response{}, fmt.Errorf("%w: eino: Agent(nil)", agent.ErrInvalidOption)
		}
		if len(req.Tools) > 0 {
			return agent.Response{}, fmt.Errorf("%w: eino: Agent runs its own tools; the agent offers %d of its own (WithTools or WithOutputTool), which the eino agent cannot run", agent.ErrInvalidOption, len(req.Tools))
		}
		msgs, err := toMessages(req.Messages)
		if err != nil {
			return agent.Response{}, err
		}
		out, err := generate(ctx, msgs, opts...)
		if err != nil {
			return agent.Response{}, glue.Failure(ctx, System, err)
		}
		if out == nil {
			return agent.Response{}, glue.Malformed(System, "the eino agent returned no message")
		}
		// The final message is the answer whoever wrote it: a ReAct agent
		// whose tool returns directly ends with that tool's message.
		resp := fromMessage(out)
		resp.Message.ToolCalls = nil
		if resp.Stop == agent.StopToolUse {
			resp.Stop = agent.StopComplete
		}
		return resp, nil
	})
}
