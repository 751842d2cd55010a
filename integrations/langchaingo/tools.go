package langchaingo

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/tools"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

// ToolCalls judges the calls of the tools [JudgeTool] wrapped and keeps
// their rows, as Result.Calls keeps an agent's: its Rows method returns
// them in order. Safe for concurrent use.
type ToolCalls = glue.Calls

// NewToolCalls returns a [ToolCalls] mending arguments with repairs (0:
// none) and ending a run at the limit-th failed call of one tool in a row
// and at the repeats-th failing with the same issues (0: off), as
// agent.WithRepairs, WithToolCallLimit and WithRepeatLimit do for the
// agent's own tools. Bad values match agent.ErrInvalidOption.
func NewToolCalls(repairs enforce.Repairs, limit, repeats int) (*ToolCalls, error) {
	return glue.NewCalls(repairs, limit, repeats)
}

// JudgeTool wraps a langchaingo tool so that each call's input is judged
// as JSON arguments against parameters, a JSON Schema (langchaingo's
// tools declare none), before it runs, with a row in calls. A failed
// call never reaches the tool: the agent is given the corrective message
// as the tool's observation; the exhausted call fails the executor's run
// with an *agent.ToolCallError. Parameters enforce refuses are an error
// matching agent.ErrInvalidOption naming the tool and the keyword.
func JudgeTool(calls *ToolCalls, t tools.Tool, parameters []byte) (tools.Tool, error) {
	s, err := calls.Compile(t.Name(), parameters)
	if err != nil {
		return nil, fmt.Errorf("langchaingo: JudgeTool: %w", err)
	}
	return judgedTool{Tool: t, args: s, calls: calls}, nil
}

type judgedTool struct {
	tools.Tool
	args  *enforce.Schema
	calls *ToolCalls
}

// Call judges input, then runs the tool with it (as written, or as
// mended) when it passed. langchaingo gives a tool no call ID.
func (t judgedTool) Call(ctx context.Context, input string) (string, error) {
	args, msg, err := t.calls.Judge(t.args, enforce.Call{Tool: t.Name(), Arguments: input})
	if err != nil || msg != "" {
		return msg, err
	}
	return t.Tool.Call(ctx, args)
}
