package eino

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
	"github.com/enforcer-go/enforcer/internal/toolcall"
	"github.com/enforcer-go/enforcer/internal/wireschema"
)

// System names eino in *agent.ProviderError and recorded events: the
// provider behind an eino model is the model's own business.
const System = "eino"

// Model is an agent.Model and agent.StreamingModel over an eino
// model.ToolCallingChatModel. It is immutable and safe for concurrent use
// when the eino model is.
type Model struct {
	m    model.ToolCallingChatModel
	opts []model.Option
}

var (
	_ agent.Model          = (*Model)(nil)
	_ agent.StreamingModel = (*Model)(nil)
)

// NewModel returns a Model that calls m, with opts (temperature, max
// tokens, …) on every call. A request's tools are bound with m.WithTools
// for that call alone; a request without tools calls m as it is.
func NewModel(m model.ToolCallingChatModel, opts ...model.Option) *Model {
	return &Model{m: m, opts: opts}
}

// Generate sends req to the eino model. A request with RequireToolCall
// (agent.WithOutputTool) is sent with model.WithToolChoice
// (schema.ToolChoiceForced). A failed call returns *agent.ProviderError
// (System "eino"; an error that already is one is returned as it is),
// except a done ctx, which returns context.Cause(ctx).
func (m *Model) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	cm, msgs, opts, err := m.prepare(req)
	if err != nil {
		return agent.Response{}, err
	}
	out, err := cm.Generate(ctx, msgs, opts...)
	if err != nil {
		return agent.Response{}, failure(ctx, err)
	}
	if out == nil {
		return agent.Response{}, glue.Malformed(System, "the model returned no message")
	}
	return fromMessage(out), nil
}

// prepare maps req to the eino model to call, its input and its options.
func (m *Model) prepare(req agent.Request) (model.ToolCallingChatModel, []*schema.Message, []model.Option, error) {
	if m.m == nil {
		return nil, nil, nil, fmt.Errorf("%w: eino: NewModel(nil)", agent.ErrInvalidOption)
	}
	msgs, err := toMessages(req.Messages)
	if err != nil {
		return nil, nil, nil, err
	}
	cm, opts := m.m, m.opts
	if len(req.Tools) > 0 {
		infos, err := toolInfos(req.Tools)
		if err != nil {
			return nil, nil, nil, err
		}
		if cm, err = cm.WithTools(infos); err != nil {
			return nil, nil, nil, failure(context.Background(), err)
		}
		if req.RequireToolCall {
			opts = append(opts[:len(opts):len(opts)], model.WithToolChoice(schema.ToolChoiceForced))
		}
	}
	return cm, msgs, opts, nil
}

// toMessages maps the conversation. A tool message gets the name of the
// tool whose call it answers, which some eino providers need (Gemini).
func toMessages(in []agent.Message) ([]*schema.Message, error) {
	names := map[string]string{} // call ID → tool name
	out := make([]*schema.Message, 0, len(in))
	for i, msg := range in {
		switch msg.Role {
		case agent.RoleSystem:
			out = append(out, schema.SystemMessage(msg.Content))
		case agent.RoleUser:
			out = append(out, schema.UserMessage(msg.Content))
		case agent.RoleAssistant:
			var calls []schema.ToolCall
			for _, c := range msg.ToolCalls {
				names[c.ID] = c.Name
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				calls = append(calls, schema.ToolCall{ID: c.ID, Type: "function", Function: schema.FunctionCall{Name: c.Name, Arguments: args}})
			}
			out = append(out, schema.AssistantMessage(msg.Content, calls))
		case agent.RoleTool:
			var opts []schema.ToolMessageOption
			if name := names[msg.ToolCallID]; name != "" {
				opts = append(opts, schema.WithToolName(name))
			}
			out = append(out, schema.ToolMessage(msg.Content, msg.ToolCallID, opts...))
		default:
			return nil, fmt.Errorf("eino: message %d: unknown role %q", i, msg.Role)
		}
	}
	return out, nil
}

// toolInfos maps the tools' specs; their parameters are JSON Schema, which
// eino carries as a *jsonschema.Schema. A root "$ref" into "$defs" (as
// agent.NewTool makes) is inlined, as the provider adapters do: providers
// want "type": "object" at the root.
func toolInfos(specs []agent.ToolSpec) ([]*schema.ToolInfo, error) {
	infos := make([]*schema.ToolInfo, 0, len(specs))
	for _, t := range specs {
		info := &schema.ToolInfo{Name: t.Name, Desc: t.Description}
		if len(t.Parameters) > 0 {
			js, err := parameters(t.Parameters)
			if err != nil {
				return nil, fmt.Errorf("eino: tool %q: parameters: %w", t.Name, err)
			}
			info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(js)
		}
		infos = append(infos, info)
	}
	return infos, nil
}

func parameters(raw json.RawMessage) (*jsonschema.Schema, error) {
	_, obj, err := wireschema.InlineRoot(raw)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	js := new(jsonschema.Schema)
	if err := json.Unmarshal(b, js); err != nil {
		return nil, err
	}
	return js, nil
}

// fromMessage maps the model's reply.
func fromMessage(msg *schema.Message) agent.Response {
	out := agent.Message{Role: agent.RoleAssistant, Content: msg.Content}
	for i, tc := range msg.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, agent.ToolCall{ID: toolcall.ID(tc.ID, i), Name: tc.Function.Name, Arguments: toolcall.Arguments(tc.Function.Arguments)})
	}
	resp := agent.Response{Message: out}
	if rm := msg.ResponseMeta; rm != nil {
		resp.Stop, resp.StopRaw = stopReason(rm.FinishReason), rm.FinishReason
		resp.Usage = usage(rm.Usage)
	}
	return resp
}

func usage(u *schema.TokenUsage) agent.Usage {
	if u == nil {
		return agent.Usage{}
	}
	return agent.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
}

// stopReason maps a finish reason. eino passes on the provider's own
// word, so the words of the providers eino-ext supports are read here:
// OpenAI's and the compatible ones' (ARK, Qwen, DeepSeek, Ollama),
// Anthropic's and Gemini's.
func stopReason(finish string) agent.StopReason {
	switch strings.ToLower(finish) {
	case "":
		return ""
	case "stop", "end_turn", "stop_sequence":
		return agent.StopComplete
	case "length", "max_tokens":
		return agent.StopLength
	case "tool_calls", "tool_use", "function_call":
		return agent.StopToolUse
	case "content_filter", "safety", "recitation", "blocklist", "prohibited_content", "spii":
		return agent.StopContentFilter
	case "refusal":
		return agent.StopRefusal
	}
	return agent.StopUnknown
}
