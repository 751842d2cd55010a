package openai

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/internal/toolcall"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwire"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/native"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// System names the provider in *agent.ProviderError and recorded events.
const System = "openai"

// Model is an agent.Model over the chat completions API of an
// OpenAI-compatible endpoint. It is immutable after New and safe for
// concurrent use.
type Model struct {
	client     sdk.Client
	model      string
	native     native.Profile // "" without WithNativeSchema
	lowered    openaiwire.Lowerings
	unstreamed bool
	reasons    bool // WithReasoning
	opts       wire.Options[sdk.ChatCompletionNewParams]
	reqOpts    []option.RequestOption
}

var (
	_ agent.Model        = (*Model)(nil)
	_ agent.ModeReporter = (*Model)(nil)
)

// Option configures a Model.
type Option interface{ apply(*Model) }

type optionFunc func(*Model)

func (f optionFunc) apply(m *Model) { f(m) }

// New returns a Model that sends chat completion requests for model through
// client, configured as the caller likes (API key, base URL, HTTP client,
// middleware).
//
// Every request runs with option.WithMaxRetries(0): retries belong to
// agent.WithModelRetry, which records each one (turn/modelRetryScheduled)
// before it waits, so a client watching the turn sees why it stalls. The
// SDK's own retries would be silent. WithClientRetries keeps the client's
// setting instead.
//
// Invalid options (and an empty model name) do not panic: they make every
// Generate return an error matching agent.ErrInvalidOption.
func New(client sdk.Client, model string, opts ...Option) *Model {
	m := &Model{client: client, model: model, opts: wire.Options[sdk.ChatCompletionNewParams]{System: System}}
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
// request's output schema (agent.Request.OutputSchema) with
// response_format {"type": "json_schema", "json_schema": {"name",
// "schema", "strict"}}, the schema lowered for profile p by
// [native.Lower]: native.OpenAI for OpenAI's strict mode, native.VLLM,
// native.LlamaCpp or native.Ollama for those servers. The lowering sends
// what the endpoint takes, strict when it can express the contract,
// non-strict (OpenAI) or not at all (the others) when it cannot;
// [NativeReport] says which, and which keywords only the agent
// judges. The answer is judged by the contract itself: a null the model
// writes for an optional member the lowering made nullable is removed
// from the answer's text before the agent sees it (native.ReadBack).
// Requests without an output schema are sent unchanged. A profile not
// in native.Profiles makes every call fail with agent.ErrInvalidOption.
func WithNativeSchema(p native.Profile) Option {
	return optionFunc(func(m *Model) {
		if !slices.Contains(native.Profiles, p) {
			m.opts.Invalid("WithNativeSchema(%q): want one of %v", string(p), native.Profiles)
			return
		}
		m.native = p
	})
}

// WithClientRetries keeps the client's own retry setting (the SDK retries
// twice by default) instead of sending each request with
// option.WithMaxRetries(0). Those retries are invisible to the agent: they
// are not recorded, and they add to the delay of agent.WithModelRetry.
func WithClientRetries() Option {
	return optionFunc(func(m *Model) { m.opts.ClientRetries = true })
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
// server that answers a streamed request with the whole reply as JSON
// (GenerateStream fails saying so without it). GenerateStream then makes
// Generate's request and yields its reply whole once it has come: the
// agent judges the answer then, and has nothing to cut early.
func WithoutStreaming() Option {
	return optionFunc(func(m *Model) { m.unstreamed = true })
}

// WithParams lets f adjust every request's parameters (temperature,
// max_completion_tokens, tool_choice, …) after the adapter has set the
// model, messages, tools and response format.
func WithParams(f func(*sdk.ChatCompletionNewParams)) Option {
	return optionFunc(func(m *Model) { m.opts.Adjust("WithParams", f) })
}

// WithRequestOptions adds per-request options (headers, timeouts, …),
// applied after the adapter's own.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return optionFunc(func(m *Model) { m.reqOpts = append(m.reqOpts, opts...) })
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
	params, err := m.newParams(req, false)
	if err != nil {
		return agent.Response{}, err
	}
	var raw *http.Response
	cc, err := m.client.Chat.Completions.New(ctx, params, m.requestOptions(&raw, false)...)
	if err != nil {
		return agent.Response{}, failure(ctx, err, raw)
	}
	resp, err := fromCompletion(cc, raw)
	if err == nil && resp.Stop != agent.StopRefusal {
		l, _ := m.lowering(req) // it lowered above
		resp.Message.Content, resp.ReadBack = l.Text(resp.Message.Content)
	}
	return resp, err
}

// requestOptions are the options of every request (see
// wire.SDK.RequestOptions): the SDK's retries off unless
// WithClientRetries, the caller's WithRequestOptions among them.
func (m *Model) requestOptions(raw **http.Response, stream bool) []option.RequestOption {
	return sdkOptions.RequestOptions(raw, m.opts.ClientRetries, m.reqOpts, stream)
}

var sdkOptions = wire.SDK[option.RequestOption]{
	ResponseInto: option.WithResponseInto, MaxRetries: option.WithMaxRetries, Middleware: option.WithMiddleware,
}

// newParams maps req. A streamed request asks for usage at the end of the
// stream; WithParams may still change that.
func (m *Model) newParams(req agent.Request, stream bool) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{Model: shared.ChatModel(m.model)}
	if stream {
		p.StreamOptions.IncludeUsage = sdk.Bool(true)
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case agent.RoleSystem:
			p.Messages = append(p.Messages, sdk.SystemMessage(msg.Content))
		case agent.RoleUser:
			p.Messages = append(p.Messages, sdk.UserMessage(msg.Content))
		case agent.RoleTool:
			p.Messages = append(p.Messages, sdk.ToolMessage(msg.Content, msg.ToolCallID))
		case agent.RoleAssistant:
			var a sdk.ChatCompletionAssistantMessageParam
			// An assistant message needs content or tool calls; content may
			// be left out only when there are calls.
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				a.Content.OfString = sdk.String(msg.Content)
			}
			for _, c := range msg.ToolCalls {
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
					},
				})
			}
			if msg.Reasoning != "" && len(msg.ToolCalls) > 0 {
				a.SetExtraFields(map[string]any{openaiwire.SentReasoning: msg.Reasoning})
			}
			p.Messages = append(p.Messages, sdk.ChatCompletionMessageParamUnion{OfAssistant: &a})
		default:
			return p, fmt.Errorf("openai: message %d: unknown role %q", i, msg.Role)
		}
	}
	for _, t := range req.Tools {
		fd := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fd.Description = sdk.String(t.Description)
		}
		if len(t.Parameters) > 0 {
			_, obj, err := openaiwire.InlineRoot(t.Parameters)
			if err != nil {
				return p, fmt.Errorf("openai: tool %q: parameters: %w", t.Name, err)
			}
			fd.Parameters = obj
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(fd))
	}
	if req.RequireToolCall && len(p.Tools) > 0 {
		// agent.WithOutputTool: the reply must call a tool.
		p.ToolChoice.OfAuto = sdk.String(string(sdk.ChatCompletionToolChoiceOptionAutoRequired))
	}
	if l, err := m.lowering(req); err != nil {
		return p, err
	} else if l != nil && l.Schema != nil {
		name, schema, err := openaiwire.ResponseFormat(l)
		if err != nil {
			return p, fmt.Errorf("openai: output schema: %w", err)
		}
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: name, Schema: schema, Strict: sdk.Bool(l.Strict())},
		}
	}
	m.opts.Apply(&p)
	return p, nil
}

// fromCompletion maps the first choice. A body that decoded but carries no
// choice is a malformed response, not an empty answer.
func fromCompletion(cc *sdk.ChatCompletion, raw *http.Response) (agent.Response, error) {
	status := wire.Status(raw)
	if cc == nil || len(cc.Choices) == 0 {
		return agent.Response{}, wire.Malformed(System, status, "no choices")
	}
	choice := cc.Choices[0]
	msg := choice.Message
	out := agent.Message{Role: agent.RoleAssistant, Content: msg.Content, Reasoning: openaiwire.ReasoningOf(msg.JSON.ExtraFields)}
	stop := openaiwire.StopReason(choice.FinishReason)
	if msg.Refusal != "" {
		// A refusal ends with finish_reason "stop" and its text in
		// message.refusal: no answer to judge. The agent returns the text
		// in *agent.RefusalError.
		stop, out.Content = agent.StopRefusal, msg.Refusal
	}
	for i, tc := range msg.ToolCalls {
		if err := openaiwire.CheckToolType(System, status, i, tc.Type); err != nil {
			return agent.Response{}, err
		}
		out.ToolCalls = append(out.ToolCalls, agent.ToolCall{ID: toolcall.ID(tc.ID, i), Name: tc.Function.Name, Arguments: toolcall.Arguments(tc.Function.Arguments)})
	}
	return agent.Response{
		Message: out,
		Usage:   tokenUsage(cc.Usage),
		Stop:    stop,
		StopRaw: choice.FinishReason,
	}, nil
}

// tokenUsage maps token counts. prompt_tokens counts the cached ones too, and
// completion_tokens the reasoning ones; servers that leave out either
// detail (many OpenAI-compatible ones) give a usage that is not Detailed.
func tokenUsage(u sdk.CompletionUsage) agent.Usage {
	return agent.Usage{
		InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens),
		CachedTokens:    int(u.PromptTokensDetails.CachedTokens),
		ReasoningTokens: int(u.CompletionTokensDetails.ReasoningTokens),
		Detailed:        u.PromptTokensDetails.JSON.CachedTokens.Valid() && u.CompletionTokensDetails.JSON.ReasoningTokens.Valid(),
	}
}
