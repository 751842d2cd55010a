package eino

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

// ToolCalls judges the calls of the tools [JudgeTools] wrapped and keeps
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

// JudgeTools wraps eino tools so that each call's arguments are judged
// against the tool's parameters (its Info's ParamsOneOf) before it runs,
// with a row in calls. A failed call never reaches the tool: the model
// is given the corrective message as the tool's output; the exhausted
// call fails the eino run with an *agent.ToolCallError. A tool whose
// parameters enforce refuses, or of a kind it cannot judge (eino's
// enhanced tools), is an error matching agent.ErrInvalidOption naming it.
func JudgeTools(ctx context.Context, calls *ToolCalls, tools ...tool.BaseTool) ([]tool.BaseTool, error) {
	out := make([]tool.BaseTool, len(tools))
	for i, t := range tools {
		info, err := t.Info(ctx)
		if err != nil || info == nil {
			return nil, fmt.Errorf("%w: eino: JudgeTools: tool %d: no Info: %v", agent.ErrInvalidOption, i, err)
		}
		js, err := info.ParamsOneOf.ToJSONSchema()
		if err != nil {
			return nil, fmt.Errorf("%w: eino: JudgeTools: tool %q: parameters: %w", agent.ErrInvalidOption, info.Name, err)
		}
		var params []byte
		if js != nil {
			if params, err = json.Marshal(js); err != nil {
				return nil, fmt.Errorf("%w: eino: JudgeTools: tool %q: parameters: %w", agent.ErrInvalidOption, info.Name, err)
			}
		}
		s, err := calls.Compile(info.Name, params)
		if err != nil {
			return nil, fmt.Errorf("eino: JudgeTools: %w", err)
		}
		j := judged{BaseTool: t, name: info.Name, args: s, calls: calls}
		inv, isInv := t.(tool.InvokableTool)
		str, isStr := t.(tool.StreamableTool)
		switch {
		case isInv && isStr:
			out[i] = both{invokable{j, inv}, streamable{j, str}}
		case isInv:
			out[i] = invokable{j, inv}
		case isStr:
			out[i] = streamable{j, str}
		default:
			// An enhanced tool's arguments come as a *schema.ToolArgument;
			// left unwrapped, its calls would run unjudged.
			return nil, fmt.Errorf("%w: eino: JudgeTools: tool %q is neither an InvokableTool nor a StreamableTool", agent.ErrInvalidOption, info.Name)
		}
	}
	return out, nil
}

// judged is a tool whose calls are judged before they run.
type judged struct {
	tool.BaseTool
	name  string
	args  *enforce.Schema
	calls *ToolCalls
}

// judge judges one call: the arguments to run it with, or the message
// that answers it instead, or the error that ends the run.
func (j judged) judge(ctx context.Context, args string) (string, string, error) {
	return j.calls.Judge(j.args, enforce.Call{Tool: j.name, ID: compose.GetToolCallID(ctx), Arguments: args})
}

type invokable struct {
	judged
	inner tool.InvokableTool
}

func (t invokable) InvokableRun(ctx context.Context, args string, opts ...tool.Option) (string, error) {
	args, msg, err := t.judge(ctx, args)
	if err != nil || msg != "" {
		return msg, err
	}
	return t.inner.InvokableRun(ctx, args, opts...)
}

type streamable struct {
	judged
	inner tool.StreamableTool
}

func (t streamable) StreamableRun(ctx context.Context, args string, opts ...tool.Option) (*schema.StreamReader[string], error) {
	args, msg, err := t.judge(ctx, args)
	if err != nil {
		return nil, err
	}
	if msg != "" {
		return schema.StreamReaderFromArray([]string{msg}), nil
	}
	return t.inner.StreamableRun(ctx, args, opts...)
}

// both is a tool that is invokable and streamable.
type both struct {
	invokable
	streamable
}

func (b both) Info(ctx context.Context) (*schema.ToolInfo, error) { return b.invokable.Info(ctx) }
