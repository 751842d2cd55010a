package fantasy

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"charm.land/fantasy"

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

// JudgeTools wraps fantasy agent tools so that each call's input is
// judged against the tool's parameters (its Info's Parameters and
// Required, as fantasy sends them) before it runs, with a row in calls.
// A failed call never reaches the tool: the model is given the
// corrective message as the tool's error output. The exhausted call
// ends the fantasy run; run under [Agent], its *agent.ToolCallError is
// the agent's error (fantasy's own Generate drops a tool's error). A
// tool whose parameters enforce refuses is an error matching
// agent.ErrInvalidOption naming it.
func JudgeTools(calls *ToolCalls, tools ...fantasy.AgentTool) ([]fantasy.AgentTool, error) {
	out := make([]fantasy.AgentTool, len(tools))
	for i, t := range tools {
		info := t.Info()
		params, err := json.Marshal(map[string]any{"type": "object", "properties": orEmpty(info.Parameters), "required": orNone(info.Required)})
		if err != nil {
			return nil, fmt.Errorf("%w: fantasy: JudgeTools: tool %q: parameters: %w", agent.ErrInvalidOption, info.Name, err)
		}
		s, err := calls.Compile(info.Name, params)
		if err != nil {
			return nil, fmt.Errorf("fantasy: JudgeTools: %w", err)
		}
		out[i] = &judged{AgentTool: t, args: s, calls: calls}
	}
	return out, nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func orNone(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// judged is a tool whose calls are judged before they run.
type judged struct {
	fantasy.AgentTool
	args  *enforce.Schema
	calls *ToolCalls
}

func (j *judged) Run(ctx context.Context, call fantasy.ToolCall) (fantasy.ToolResponse, error) {
	args, msg, err := j.calls.Judge(j.args, enforce.Call{Tool: call.Name, ID: call.ID, Arguments: call.Input})
	switch {
	case err != nil:
		if s, ok := ctx.Value(stopKey{}).(*stopped); ok {
			s.set(err)
		}
		return fantasy.ToolResponse{StopTurn: true}, err
	case msg != "":
		return fantasy.NewTextErrorResponse(msg), nil
	}
	call.Input = args
	return j.AgentTool.Run(ctx, call)
}

// stopKey keys the [stopped] of a run of [Agent] in the ctx fantasy
// passes its tools.
type stopKey struct{}

// stopped keeps the error an exhausted tool call ended a fantasy run
// with: fantasy's Generate ends the run but returns no error.
type stopped struct {
	mu  sync.Mutex
	err error
}

func (s *stopped) set(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

func (s *stopped) get() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
