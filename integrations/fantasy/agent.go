package fantasy

import (
	"context"
	"fmt"
	"strings"

	"charm.land/fantasy"

	"github.com/enforcer-go/enforcer/agent"
)

// Agent makes an agent.Model of a fantasy agent: each call runs
// fa.Generate once on the conversation so far (call's Messages; its
// Prompt is left empty) and gives the text of its final step as the
// final answer, so a failing answer and its corrective turn are the
// input of its next run. Its tools run inside fantasy ([JudgeTools] puts
// the judge in front of them): the agent.Agent
// must offer none (agent.WithTools, agent.WithOutputTool), or the call
// fails with agent.ErrInvalidOption. Usage is the run's TotalUsage,
// every step's.
//
// fantasy retries a failed step itself (call.MaxRetries, its default
// when nil); set it to 0 to leave retrying to agent.WithModelRetry, so
// that one policy paces and records every retry.
func Agent(fa fantasy.Agent, call fantasy.AgentCall) agent.Model {
	return agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		if fa == nil {
			return agent.Response{}, fmt.Errorf("%w: fantasy: Agent(nil)", agent.ErrInvalidOption)
		}
		if len(req.Tools) > 0 {
			return agent.Response{}, fmt.Errorf("%w: fantasy: Agent runs its own tools; the agent offers %d of its own (WithTools or WithOutputTool), which the fantasy agent cannot run", agent.ErrInvalidOption, len(req.Tools))
		}
		msgs, err := toPrompt(req.Messages)
		if err != nil {
			return agent.Response{}, err
		}
		c := call
		c.Prompt, c.Messages = "", msgs
		var halt stopped
		res, err := fa.Generate(context.WithValue(ctx, stopKey{}, &halt), c)
		if err := halt.get(); err != nil {
			return agent.Response{}, err // a judged tool's exhausted call
		}
		if err != nil {
			return agent.Response{}, failure(ctx, err)
		}
		// The final step's text is the answer: fantasy's own Response
		// falls back to an earlier step's text when the last has none,
		// which would judge words the model wrote before its tools ran.
		var text strings.Builder
		var last fantasy.StepResult
		if n := len(res.Steps); n > 0 {
			last = res.Steps[n-1]
		}
		for _, c := range last.Content {
			if t, ok := c.(fantasy.TextContent); ok {
				text.WriteString(t.Text)
			}
		}
		stop := stopReason(last.FinishReason)
		if stop == agent.StopToolUse {
			stop = agent.StopComplete // tools were the fantasy agent's business
		}
		return agent.Response{
			Message: agent.Message{Role: agent.RoleAssistant, Content: text.String(), Reasoning: last.Content.ReasoningText()},
			Usage:   usage(res.TotalUsage),
			Stop:    stop, StopRaw: string(last.FinishReason),
		}, nil
	})
}
