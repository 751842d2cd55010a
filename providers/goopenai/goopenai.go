package goopenai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	sdk "github.com/sashabaranov/go-openai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/internal/toolcall"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/native"
)

// System names the provider in *agent.ProviderError and recorded events:
// the API spoken, OpenAI's chat completions, as providers/openai names it.
const System = "openai"

// Model is an agent.Model over the chat completions API of an
// OpenAI-compatible endpoint, called through go-openai's client. It is
// immutable after New and safe for concurrent use.
type Model struct {
	client     *sdk.Client
	model      string
	native     native.Profile // "" without WithNativeSchema
	lowered    openaiwire.Lowerings
	unstreamed bool
	reasons    bool // WithReasoning
	opts       wire.Options[sdk.ChatCompletionRequest]
}

var (
	_ agent.Model        = (*Model)(nil)
	_ agent.ModeReporter = (*Model)(nil)
)

// Option configures a Model.
type Option interface{ apply(*Model) }

type optionFunc func(*Model)

func (f optionFunc) apply(m *Model) { f(m) }

// New returns a Model that sends chat completion requests for model
// through a client of config, the configuration openai.NewClientWithConfig
// takes (openai.DefaultConfig(key), a BaseURL for a compatible server, an
// HTTPClient of the caller's). The client's HTTPClient is wrapped, never
// replaced: the adapter reads each response's status and Retry-After
// there, which go-openai's errors do not carry, and bounds what is read.
//
// Invalid options (and an empty model name) do not panic: they make every
// Generate return an error matching agent.ErrInvalidOption.
func New(config sdk.ClientConfig, model string, opts ...Option) *Model {
	m := &Model{model: model, opts: wire.Options[sdk.ChatCompletionRequest]{System: System}}
	config.HTTPClient = bounded{next: config.HTTPClient}
	m.client = sdk.NewClientWithConfig(config)
	for _, o := range opts {
		if o != nil {
			o.apply(m)
		}
	}
	if model == "" {
		m.opts.Invalid("New: empty model name")
	}
	return m
}

// ModelName is the model the adapter asks for, as given to New: what a
// tracer names as gen_ai.request.model (the otel module's WithModelOf).
func (m *Model) ModelName() string { return m.model }

// ProviderName is [System]: what a tracer names as gen_ai.provider.name.
func (m *Model) ProviderName() string { return System }

// WithNativeSchema asks the endpoint to constrain its answer to the
// request's output schema with a json_schema response format, the schema
// lowered for profile p by [native.Lower] (native.OpenAI, native.VLLM,
// native.LlamaCpp, native.Ollama, …), as providers/openai's option of the
// same name does. A null the model writes for an optional member the
// lowering made nullable is removed before the agent sees the answer. A
// profile not in native.Profiles makes every call fail with
// agent.ErrInvalidOption.
func WithNativeSchema(p native.Profile) Option {
	return optionFunc(func(m *Model) {
		if !slices.Contains(native.Profiles, p) {
			m.opts.Invalid("WithNativeSchema(%q): want one of %v", string(p), native.Profiles)
			return
		}
		m.native = p
	})
}

// WithReasoning says the model reasons before it answers (a reasoning
// model, or reasoning turned on through WithParams). OutputModes then
// reports no native mode for a profile whose server does not hold a
// reasoning model's answer to the response format (native.Ollama,
// native.LlamaCpp), and says why, for agent.WithAutoOutputMode.
func WithReasoning() Option {
	return optionFunc(func(m *Model) { m.reasons = true })
}

// WithoutStreaming sends every request unstreamed, for an OpenAI-compatible
// server that answers a streamed request with the whole reply as JSON.
// GenerateStream then makes Generate's request and yields its reply whole.
func WithoutStreaming() Option {
	return optionFunc(func(m *Model) { m.unstreamed = true })
}

// WithParams lets f adjust every request (temperature,
// max_completion_tokens, tool_choice, …) after the adapter has set the
// model, messages, tools and response format.
func WithParams(f func(*sdk.ChatCompletionRequest)) Option {
	return optionFunc(func(m *Model) { m.opts.Adjust("WithParams", f) })
}

// Generate sends req as one chat completion request and returns the first
// choice. A failed call returns *agent.ProviderError (System "openai"),
// except a done ctx, which returns context.Cause(ctx). A request with
// RequireToolCall (agent.WithOutputTool) and tools is sent with
// tool_choice "required".
func (m *Model) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	if err := m.opts.Err(); err != nil {
		return agent.Response{}, err
	}
	params, err := m.newRequest(req, false)
	if err != nil {
		return agent.Response{}, err
	}
	ctx, c := withCall(ctx, false)
	cc, err := m.client.CreateChatCompletion(ctx, params)
	if err != nil {
		return agent.Response{}, failure(ctx, err, c.res)
	}
	resp, err := fromCompletion(cc, c.res)
	if err == nil && resp.Stop != agent.StopRefusal {
		l, _ := m.lowering(req) // it lowered above
		resp.Message.Content, resp.ReadBack = l.Text(resp.Message.Content)
	}
	return resp, err
}

// newRequest maps req. A streamed request asks for usage at the end of
// the stream; WithParams may still change that.
func (m *Model) newRequest(req agent.Request, stream bool) (sdk.ChatCompletionRequest, error) {
	p := sdk.ChatCompletionRequest{Model: m.model}
	if stream {
		p.StreamOptions = &sdk.StreamOptions{IncludeUsage: true}
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case agent.RoleSystem:
			p.Messages = append(p.Messages, sdk.ChatCompletionMessage{Role: sdk.ChatMessageRoleSystem, Content: msg.Content})
		case agent.RoleUser:
			p.Messages = append(p.Messages, sdk.ChatCompletionMessage{Role: sdk.ChatMessageRoleUser, Content: msg.Content})
		case agent.RoleTool:
			p.Messages = append(p.Messages, sdk.ChatCompletionMessage{Role: sdk.ChatMessageRoleTool, Content: msg.Content, ToolCallID: msg.ToolCallID})
		case agent.RoleAssistant:
			// go-openai leaves an empty content out (omitempty): an
			// assistant message that called tools is sent with its calls
			// alone, as OpenAI documents.
			a := sdk.ChatCompletionMessage{Role: sdk.ChatMessageRoleAssistant, Content: msg.Content}
			for _, c := range msg.ToolCalls {
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, sdk.ToolCall{
					ID: c.ID, Type: sdk.ToolTypeFunction,
					Function: sdk.FunctionCall{Name: c.Name, Arguments: args},
				})
			}
			if len(msg.ToolCalls) > 0 {
				// DeepSeek's thinking mode refuses a tool-calling turn sent
				// back without its reasoning_content; an answer's thinking
				// is not sent (see openaiwire.SentReasoning).
				a.ReasoningContent = msg.Reasoning
			}
			p.Messages = append(p.Messages, a)
		default:
			return p, fmt.Errorf("goopenai: message %d: unknown role %q", i, msg.Role)
		}
	}
	for _, t := range req.Tools {
		fd := &sdk.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: noParameters}
		if len(t.Parameters) > 0 {
			_, obj, err := openaiwire.InlineRoot(t.Parameters)
			if err != nil {
				return p, fmt.Errorf("goopenai: tool %q: parameters: %w", t.Name, err)
			}
			fd.Parameters = obj
		}
		p.Tools = append(p.Tools, sdk.Tool{Type: sdk.ToolTypeFunction, Function: fd})
	}
	if req.RequireToolCall && len(p.Tools) > 0 {
		// agent.WithOutputTool: the reply must call a tool.
		p.ToolChoice = "required"
	}
	if l, err := m.lowering(req); err != nil {
		return p, err
	} else if l != nil && l.Schema != nil {
		name, schema, err := openaiwire.ResponseFormat(l)
		if err != nil {
			return p, fmt.Errorf("goopenai: output schema: %w", err)
		}
		b, err := json.Marshal(schema)
		if err != nil {
			return p, fmt.Errorf("goopenai: output schema: %w", err)
		}
		p.ResponseFormat = &sdk.ChatCompletionResponseFormat{
			Type:       sdk.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &sdk.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: json.RawMessage(b), Strict: l.Strict()},
		}
	}
	m.opts.Apply(&p)
	return p, nil
}

// noParameters is the parameters of a tool that takes none: go-openai
// sends a nil Parameters as null, which OpenAI refuses.
var noParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// fromCompletion maps the first choice. A body that decoded but carries no
// choice is a malformed response, not an empty answer.
func fromCompletion(cc sdk.ChatCompletionResponse, raw *http.Response) (agent.Response, error) {
	status := wire.Status(raw)
	if len(cc.Choices) == 0 {
		return agent.Response{}, wire.Malformed(System, status, "no choices")
	}
	choice := cc.Choices[0]
	msg := choice.Message
	out := agent.Message{Role: agent.RoleAssistant, Content: msg.Content, Reasoning: msg.ReasoningContent}
	stop := openaiwire.StopReason(string(choice.FinishReason))
	if msg.Refusal != "" {
		// A refusal ends with finish_reason "stop" and its text in
		// message.refusal: no answer to judge. The agent returns the text
		// in *agent.RefusalError.
		stop, out.Content = agent.StopRefusal, msg.Refusal
	}
	for i, tc := range msg.ToolCalls {
		if err := openaiwire.CheckToolType(System, status, i, string(tc.Type)); err != nil {
			return agent.Response{}, err
		}
		out.ToolCalls = append(out.ToolCalls, agent.ToolCall{ID: toolcall.ID(tc.ID, i), Name: tc.Function.Name, Arguments: toolcall.Arguments(tc.Function.Arguments)})
	}
	return agent.Response{
		Message: out,
		Usage:   tokenUsage(cc.Usage),
		Stop:    stop,
		StopRaw: string(choice.FinishReason),
	}, nil
}

// tokenUsage maps token counts. prompt_tokens counts the cached ones too,
// and completion_tokens the reasoning ones. go-openai keeps the details
// as pointers, nil when the reply left them out: the usage is Detailed
// when both came.
func tokenUsage(u sdk.Usage) agent.Usage {
	out := agent.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if d := u.PromptTokensDetails; d != nil {
		out.CachedTokens = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningTokens = d.ReasoningTokens
	}
	out.Detailed = u.PromptTokensDetails != nil && u.CompletionTokensDetails != nil
	return out
}
