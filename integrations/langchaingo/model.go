package langchaingo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
	"github.com/enforcer-go/enforcer/internal/toolcall"
	"github.com/enforcer-go/enforcer/internal/wireschema"
)

// System names langchaingo in *agent.ProviderError and recorded events:
// the provider behind a langchaingo model is the model's own business.
const System = "langchaingo"

// Model is an agent.Model and agent.StreamingModel over a langchaingo
// llms.Model. It is immutable and safe for concurrent use when the
// langchaingo model is.
type Model struct {
	m    llms.Model
	opts []llms.CallOption
}

var (
	_ agent.Model          = (*Model)(nil)
	_ agent.StreamingModel = (*Model)(nil)
)

// NewModel returns a Model that calls m, with opts (model name,
// temperature, max tokens, …) on every call, before the adapter's own.
func NewModel(m llms.Model, opts ...llms.CallOption) *Model {
	return &Model{m: m, opts: opts}
}

// Generate sends req with GenerateContent, the tools with llms.WithTools
// and, for RequireToolCall, llms.WithToolChoice("required"). The reply's
// choices are read as one reply, their text joined and their tool calls
// in order, so more than one alternative (llms.WithN) is not supported.
// A failed call returns *agent.ProviderError (System "langchaingo"; one
// that already is one as it is), a done ctx context.Cause(ctx).
func (m *Model) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	msgs, opts, err := m.prepare(req)
	if err != nil {
		return agent.Response{}, err
	}
	cr, err := m.m.GenerateContent(ctx, msgs, opts...)
	if err != nil {
		return agent.Response{}, failure(ctx, err)
	}
	return fromResponse(cr)
}

// prepare maps req to the langchaingo call's messages and options.
func (m *Model) prepare(req agent.Request) ([]llms.MessageContent, []llms.CallOption, error) {
	if m.m == nil {
		return nil, nil, fmt.Errorf("%w: langchaingo: NewModel(nil)", agent.ErrInvalidOption)
	}
	msgs, err := toMessages(req.Messages)
	if err != nil {
		return nil, nil, err
	}
	opts := append([]llms.CallOption(nil), m.opts...)
	if len(req.Tools) > 0 {
		tools, err := toTools(req.Tools)
		if err != nil {
			return nil, nil, err
		}
		opts = append(opts, llms.WithTools(tools))
		if req.RequireToolCall {
			opts = append(opts, llms.WithToolChoice("required"))
		}
	}
	return msgs, opts, nil
}

// toMessages maps the conversation. A tool response gets the name of the
// tool whose call it answers, which some providers need.
func toMessages(in []agent.Message) ([]llms.MessageContent, error) {
	names := map[string]string{} // call ID → tool name
	out := make([]llms.MessageContent, 0, len(in))
	for i, msg := range in {
		switch msg.Role {
		case agent.RoleSystem:
			out = append(out, llms.TextParts(llms.ChatMessageTypeSystem, msg.Content))
		case agent.RoleUser:
			out = append(out, llms.TextParts(llms.ChatMessageTypeHuman, msg.Content))
		case agent.RoleAssistant:
			mc := llms.MessageContent{Role: llms.ChatMessageTypeAI}
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				mc.Parts = append(mc.Parts, llms.TextContent{Text: msg.Content})
			}
			for _, c := range msg.ToolCalls {
				names[c.ID] = c.Name
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				mc.Parts = append(mc.Parts, llms.ToolCall{ID: c.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: c.Name, Arguments: args}})
			}
			out = append(out, mc)
		case agent.RoleTool:
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: msg.ToolCallID, Name: names[msg.ToolCallID], Content: msg.Content},
			}})
		default:
			return nil, fmt.Errorf("langchaingo: message %d: unknown role %q", i, msg.Role)
		}
	}
	return out, nil
}

// toTools maps the tools' specs. Parameters go as a decoded object, the
// form every langchaingo provider takes (Google's accept no other), with a
// root "$ref" into "$defs" (as agent.NewTool makes) inlined, as the
// provider adapters do: providers want "type": "object" at the root.
func toTools(specs []agent.ToolSpec) ([]llms.Tool, error) {
	tools := make([]llms.Tool, 0, len(specs))
	for _, t := range specs {
		fd := &llms.FunctionDefinition{Name: t.Name, Description: t.Description}
		if len(t.Parameters) > 0 {
			params, err := parameters(t.Parameters)
			if err != nil {
				return nil, fmt.Errorf("langchaingo: tool %q: parameters: %w", t.Name, err)
			}
			fd.Parameters = params
		}
		tools = append(tools, llms.Tool{Type: "function", Function: fd})
	}
	return tools, nil
}

func parameters(raw json.RawMessage) (map[string]any, error) {
	_, obj, err := wireschema.InlineRoot(raw)
	if err != nil {
		return nil, err
	}
	// The inlined members are raw JSON; decoded, the object is what a
	// provider can walk.
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var params map[string]any
	if err := json.Unmarshal(b, &params); err != nil {
		return nil, err
	}
	return params, nil
}

// fromResponse reads the choices as one reply: langchaingo gives some
// providers' content blocks as choices of their own (Anthropic: one per
// text or tool use block).
func fromResponse(cr *llms.ContentResponse) (agent.Response, error) {
	if cr == nil || len(cr.Choices) == 0 {
		return agent.Response{}, glue.Malformed(System, "no choices")
	}
	var text strings.Builder
	resp := agent.Response{Message: agent.Message{Role: agent.RoleAssistant}}
	for _, c := range cr.Choices {
		if c == nil {
			continue
		}
		text.WriteString(c.Content)
		calls := c.ToolCalls
		if len(calls) == 0 && c.FuncCall != nil {
			calls = []llms.ToolCall{{FunctionCall: c.FuncCall}}
		}
		for _, tc := range calls {
			if tc.Type != "" && tc.Type != "function" {
				return agent.Response{}, glue.Malformed(System, fmt.Sprintf("tool call of type %q; only function tools are sent", tc.Type))
			}
			if tc.FunctionCall == nil {
				return agent.Response{}, glue.Malformed(System, "tool call without a function")
			}
			i := len(resp.Message.ToolCalls)
			resp.Message.ToolCalls = append(resp.Message.ToolCalls, agent.ToolCall{ID: toolcall.ID(tc.ID, i), Name: tc.FunctionCall.Name, Arguments: toolcall.Arguments(tc.FunctionCall.Arguments)})
		}
		if c.StopReason != "" {
			resp.Stop, resp.StopRaw = stopReason(c.StopReason), c.StopReason
		}
		if u := usage(c.GenerationInfo); resp.Usage == (agent.Usage{}) {
			resp.Usage = u
		}
	}
	resp.Message.Content = text.String()
	return resp, nil
}

// The GenerationInfo keys under which langchaingo's providers report
// token counts: OpenAI's and Mistral's, Anthropic's, Bedrock's and
// Ollama's, and the snake-case ones of some others.
var (
	inputKeys  = []string{"PromptTokens", "InputTokens", "input_tokens", "prompt_tokens"}
	outputKeys = []string{"CompletionTokens", "OutputTokens", "output_tokens", "completion_tokens"}
)

func usage(info map[string]any) agent.Usage {
	return agent.Usage{InputTokens: count(info, inputKeys), OutputTokens: count(info, outputKeys)}
}

// count is the first of keys that info holds as a number; 0 when none.
func count(info map[string]any, keys []string) int {
	for _, k := range keys {
		switch n := info[k].(type) {
		case int:
			return n
		case int32:
			return int(n)
		case int64:
			return int(n)
		case float64:
			return int(n)
		}
	}
	return 0
}

// stopReason maps a stop reason. langchaingo passes on the provider's
// own word, so the words of its providers are read here: OpenAI's and
// the compatible ones', Anthropic's, Google's (FinishReason names) and
// Ollama's.
func stopReason(raw string) agent.StopReason {
	switch strings.ToLower(raw) {
	case "stop", "end_turn", "stop_sequence", "finishreasonstop":
		return agent.StopComplete
	case "length", "max_tokens", "finishreasonmaxtokens":
		return agent.StopLength
	case "tool_calls", "tool_use", "function_call":
		return agent.StopToolUse
	case "content_filter", "safety", "recitation", "blocklist", "prohibited_content", "spii",
		"finishreasonsafety", "finishreasonrecitation", "finishreasonblocklist", "finishreasonprohibitedcontent", "finishreasonspii":
		return agent.StopContentFilter
	case "refusal":
		return agent.StopRefusal
	}
	return agent.StopUnknown
}
