package fantasy

import (
	"context"
	"fmt"
	"strings"

	"charm.land/fantasy"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
	"github.com/enforcer-go/enforcer/internal/toolcall"
	"github.com/enforcer-go/enforcer/internal/wireschema"
)

// System names fantasy in *agent.ProviderError and recorded events: the
// provider behind a fantasy model is the model's own business.
const System = "fantasy"

// Model is an agent.Model and agent.StreamingModel over a
// fantasy.LanguageModel. It is immutable and safe for concurrent use
// when the fantasy model is.
type Model struct {
	lm   fantasy.LanguageModel
	base fantasy.Call
}

var (
	_ agent.Model          = (*Model)(nil)
	_ agent.StreamingModel = (*Model)(nil)
)

// NewModel returns a Model that calls lm. base holds the settings of
// every call (temperature, max output tokens, provider options, …); its
// Prompt, Tools and ToolChoice are the request's.
func NewModel(lm fantasy.LanguageModel, base fantasy.Call) *Model {
	return &Model{lm: lm, base: base}
}

// Generate sends req through the fantasy model's Generate. A request
// with RequireToolCall (agent.WithOutputTool) is sent with
// fantasy.ToolChoiceRequired. A failed call returns *agent.ProviderError
// (System "fantasy"; the HTTP status and Retry-After of fantasy's
// *ProviderError kept), except a done ctx, which returns
// context.Cause(ctx).
func (m *Model) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	call, err := m.prepare(req)
	if err != nil {
		return agent.Response{}, err
	}
	out, err := m.lm.Generate(ctx, call)
	if err != nil {
		return agent.Response{}, failure(ctx, err)
	}
	if out == nil {
		return agent.Response{}, glue.Malformed(System, "the model returned no response")
	}
	return fromResponse(out), nil
}

// prepare maps req to the fantasy call.
func (m *Model) prepare(req agent.Request) (fantasy.Call, error) {
	if m.lm == nil {
		return fantasy.Call{}, fmt.Errorf("%w: fantasy: NewModel(nil)", agent.ErrInvalidOption)
	}
	call := m.base
	var err error
	if call.Prompt, err = toPrompt(req.Messages); err != nil {
		return fantasy.Call{}, err
	}
	call.Tools, call.ToolChoice = nil, nil
	if len(req.Tools) > 0 {
		if call.Tools, err = toTools(req.Tools); err != nil {
			return fantasy.Call{}, err
		}
		choice := fantasy.ToolChoiceAuto
		if req.RequireToolCall {
			choice = fantasy.ToolChoiceRequired
		}
		call.ToolChoice = &choice
	}
	return call, nil
}

// toPrompt maps the conversation. Thinking is not sent back: fantasy
// keeps a provider's signed reasoning in provider metadata the agent
// does not hold.
func toPrompt(in []agent.Message) (fantasy.Prompt, error) {
	out := make(fantasy.Prompt, 0, len(in))
	for i, msg := range in {
		switch msg.Role {
		case agent.RoleSystem:
			out = append(out, fantasy.NewSystemMessage(msg.Content))
		case agent.RoleUser:
			out = append(out, fantasy.NewUserMessage(msg.Content))
		case agent.RoleAssistant:
			var parts []fantasy.MessagePart
			if msg.Content != "" {
				parts = append(parts, fantasy.TextPart{Text: msg.Content})
			}
			for _, c := range msg.ToolCalls {
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				parts = append(parts, fantasy.ToolCallPart{ToolCallID: c.ID, ToolName: c.Name, Input: args})
			}
			out = append(out, fantasy.Message{Role: fantasy.MessageRoleAssistant, Content: parts})
		case agent.RoleTool:
			out = append(out, fantasy.Message{Role: fantasy.MessageRoleTool, Content: []fantasy.MessagePart{
				fantasy.ToolResultPart{ToolCallID: msg.ToolCallID, Output: fantasy.ToolResultOutputContentText{Text: msg.Content}},
			}})
		default:
			return nil, fmt.Errorf("fantasy: message %d: unknown role %q", i, msg.Role)
		}
	}
	return out, nil
}

// toTools maps the tools' specs. A root "$ref" into "$defs" (as
// agent.NewTool makes) is inlined, as the provider adapters do:
// providers want "type": "object" at the root.
func toTools(specs []agent.ToolSpec) ([]fantasy.Tool, error) {
	out := make([]fantasy.Tool, 0, len(specs))
	for _, t := range specs {
		ft := fantasy.FunctionTool{Name: t.Name, Description: t.Description, InputSchema: map[string]any{"type": "object"}}
		if len(t.Parameters) > 0 {
			_, obj, err := wireschema.InlineRoot(t.Parameters)
			if err != nil {
				return nil, fmt.Errorf("fantasy: tool %q: parameters: %w", t.Name, err)
			}
			ft.InputSchema = obj
		}
		out = append(out, ft)
	}
	return out, nil
}

// fromResponse maps the model's reply: its text parts joined, its
// reasoning kept apart, its calls (but those the provider ran itself).
func fromResponse(r *fantasy.Response) agent.Response {
	var text, reasoning strings.Builder
	out := agent.Message{Role: agent.RoleAssistant}
	for _, c := range r.Content {
		switch c := c.(type) {
		case fantasy.TextContent:
			text.WriteString(c.Text)
		case fantasy.ReasoningContent:
			reasoning.WriteString(c.Text)
		case fantasy.ToolCallContent:
			if !c.ProviderExecuted {
				i := len(out.ToolCalls)
				out.ToolCalls = append(out.ToolCalls, agent.ToolCall{ID: toolcall.ID(c.ToolCallID, i), Name: c.ToolName, Arguments: toolcall.Arguments(c.Input)})
			}
		}
	}
	out.Content, out.Reasoning = text.String(), reasoning.String()
	return agent.Response{Message: out, Usage: usage(r.Usage), Stop: stopReason(r.FinishReason), StopRaw: string(r.FinishReason)}
}

// usage maps fantasy's counts. fantasy's providers count the prompt
// tokens read from (or written to) the cache apart from InputTokens
// (OpenAI's are subtracted), so they are added back: the agent's
// InputTokens are the whole prompt's, CachedTokens the part read from
// the cache. Detailed stays false: a zero here may be a count fantasy's
// provider never had.
func usage(u fantasy.Usage) agent.Usage {
	return agent.Usage{
		InputTokens:     int(u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens),
		OutputTokens:    int(u.OutputTokens),
		CachedTokens:    int(u.CacheReadTokens),
		ReasoningTokens: int(u.ReasoningTokens),
	}
}

// stopReason maps fantasy's finish reason, which its providers have
// already put in its own words.
func stopReason(f fantasy.FinishReason) agent.StopReason {
	switch f {
	case "":
		return ""
	case fantasy.FinishReasonStop:
		return agent.StopComplete
	case fantasy.FinishReasonLength:
		return agent.StopLength
	case fantasy.FinishReasonToolCalls:
		return agent.StopToolUse
	case fantasy.FinishReasonContentFilter:
		return agent.StopContentFilter
	}
	return agent.StopUnknown
}
