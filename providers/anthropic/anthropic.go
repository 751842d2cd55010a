package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/native"
)

// System names the provider in *agent.ProviderError and recorded events.
const System = "anthropic"

// DefaultMaxTokens is the max_tokens of a request without WithMaxTokens.
// The Messages API requires one; every current Claude model can produce
// this many.
const DefaultMaxTokens = 4096

// Model is an agent.Model over the Anthropic Messages API. It is immutable
// after New and safe for concurrent use.
type Model struct {
	client    sdk.Client
	model     string
	maxTokens int64
	native    bool
	opts      wire.Options[sdk.MessageNewParams]
	reqOpts   []option.RequestOption
}

var (
	_ agent.Model        = (*Model)(nil)
	_ agent.ModeReporter = (*Model)(nil)
)

// Option configures a Model.
type Option interface{ apply(*Model) }

type optionFunc func(*Model)

func (f optionFunc) apply(m *Model) { f(m) }

// New returns a Model that sends Messages API requests for model through
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
	m := &Model{client: client, model: model, maxTokens: DefaultMaxTokens, opts: wire.Options[sdk.MessageNewParams]{System: System}}
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

// WithMaxTokens sets max_tokens, the bound on each reply (default
// DefaultMaxTokens). The SDK refuses non-streaming requests it expects to
// run past ten minutes (about 21,000 tokens, less for some models), for
// Generate; GenerateStream has no such bound.
func WithMaxTokens(n int) Option {
	return optionFunc(func(m *Model) {
		if n < 1 {
			m.opts.Invalid("WithMaxTokens(%d): want at least 1", n)
			return
		}
		m.maxTokens = int64(n)
	})
}

// WithNativeSchema asks the model to constrain its answer to the request's
// output schema (agent.Request.OutputSchema) with Anthropic's structured
// outputs, output_config.format {"type": "json_schema", "schema"}, the
// schema lowered by [native.Lower] with native.Anthropic: keywords the API
// does not take (numeric and length bounds, …) are left out, objects
// forbid additional properties. A contract the API cannot express at all
// (a map, recursion, more than 24 optional members) is sent with no
// output format; [NativeReport] says which, and which keywords only the
// agent judges. Only models that support structured outputs accept it.
// The answer is judged by the contract itself either way. Requests
// without an output schema are sent unchanged.
func WithNativeSchema() Option {
	return optionFunc(func(m *Model) { m.native = true })
}

// WithClientRetries keeps the client's own retry setting (the SDK retries
// twice by default) instead of sending each request with
// option.WithMaxRetries(0). Those retries are invisible to the agent: they
// are not recorded, and they add to the delay of agent.WithModelRetry.
func WithClientRetries() Option {
	return optionFunc(func(m *Model) { m.opts.ClientRetries = true })
}

// WithParams lets f adjust every request's parameters (tool_choice, stop
// sequences, metadata, …) after the adapter has set the model,
// max_tokens, system prompt, messages, tools and output format.
func WithParams(f func(*sdk.MessageNewParams)) Option {
	return optionFunc(func(m *Model) { m.opts.Adjust("WithParams", f) })
}

// WithRequestOptions adds per-request options (headers, timeouts, …),
// applied after the adapter's own.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return optionFunc(func(m *Model) { m.reqOpts = append(m.reqOpts, opts...) })
}

// Generate sends req as one Messages API request. A failed call returns
// *agent.ProviderError (System "anthropic"), except a done ctx, which
// returns context.Cause(ctx). A request with RequireToolCall
// (agent.WithOutputTool) and tools is sent with tool_choice {"type":
// "any"}, or "auto" when thinking is on, which the API refuses to force.
func (m *Model) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	if err := m.opts.Err(); err != nil {
		return agent.Response{}, err
	}
	params, err := m.newParams(req)
	if err != nil {
		return agent.Response{}, err
	}
	var raw *http.Response
	msg, err := m.client.Messages.New(ctx, params, m.requestOptions(&raw, false)...)
	if err != nil {
		return agent.Response{}, failure(ctx, err, raw)
	}
	return fromMessage(msg, raw)
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

// newParams maps the conversation. The system messages become the
// top-level system prompt; tool results become tool_result blocks of a user
// message; consecutive messages of one role are merged into one message, so
// tool results and a following user turn travel together, as the API
// expects. Text that is empty or only whitespace is
// left out, since the API refuses such text blocks.
func (m *Model) newParams(req agent.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{Model: sdk.Model(m.model), MaxTokens: m.maxTokens}
	var role agent.Role
	add := func(r agent.Role, blocks ...sdk.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if r == role {
			last := p.Messages[len(p.Messages)-1]
			if last.OfUser != nil {
				last.OfUser.Content = append(last.OfUser.Content, blocks...)
			} else {
				last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
			}
			return
		}
		role = r
		if r == agent.RoleUser {
			p.Messages = append(p.Messages, sdk.NewUserMessage(blocks...))
		} else {
			p.Messages = append(p.Messages, sdk.NewAssistantMessage(blocks...))
		}
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case agent.RoleSystem:
			if hasText(msg.Content) {
				p.System = append(p.System, sdk.TextBlockParam{Text: msg.Content})
			}
		case agent.RoleUser:
			if hasText(msg.Content) {
				add(agent.RoleUser, sdk.NewTextBlock(msg.Content))
			}
		case agent.RoleTool:
			result := sdk.ToolResultBlockParam{ToolUseID: msg.ToolCallID}
			if hasText(msg.Content) {
				result.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: msg.Content}}}
			}
			add(agent.RoleUser, sdk.ContentBlockParamUnion{OfToolResult: &result})
		case agent.RoleAssistant:
			blocks := sentBack(msg.ReasoningRaw, len(msg.ToolCalls))
			if hasText(msg.Content) {
				blocks = append(blocks, sdk.NewTextBlock(msg.Content))
			}
			for _, c := range msg.ToolCalls {
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, toolInput(c.Arguments), c.Name))
			}
			add(agent.RoleAssistant, blocks...)
		default:
			return p, fmt.Errorf("anthropic: message %d: unknown role %q", i, msg.Role)
		}
	}
	for _, t := range req.Tools {
		tp := sdk.ToolParam{Name: t.Name}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		if len(t.Parameters) > 0 {
			schema, err := inputSchema(t.Parameters)
			if err != nil {
				return p, fmt.Errorf("anthropic: tool %q: parameters: %w", t.Name, err)
			}
			tp.InputSchema = schema
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tp})
	}
	var forced *sdk.ToolChoiceAnyParam
	if req.RequireToolCall && len(p.Tools) > 0 {
		// agent.WithOutputTool: the reply must call a tool.
		forced = &sdk.ToolChoiceAnyParam{}
		p.ToolChoice = sdk.ToolChoiceUnionParam{OfAny: forced}
	}
	if m.native && len(req.OutputSchema) > 0 {
		l, err := native.Lower(req.OutputSchema, native.Anthropic)
		if err != nil {
			return p, fmt.Errorf("anthropic: output schema: %w", err)
		}
		if l.Schema != nil {
			schema, err := inlineRoot(l.Schema)
			if err != nil {
				return p, fmt.Errorf("anthropic: output schema: %w", err)
			}
			p.OutputConfig.Format = sdk.JSONOutputFormatParam{Schema: schema}
		}
	}
	m.opts.Apply(&p)
	if forced != nil && p.ToolChoice.OfAny == forced && thinking(p) {
		// The API refuses a forced tool call while thinking: the output
		// tool is offered, and a reply in text is judged as no call.
		p.ToolChoice = sdk.ToolChoiceUnionParam{OfAuto: &sdk.ToolChoiceAutoParam{}}
	}
	return p, nil
}

// toolInput is a call's arguments as a tool_use input, which the API
// takes only as a JSON object. Arguments that are not one — a call
// truncated at max_tokens leaves half an object — are sent as {}, as the
// SDK's own stream accumulator does; the tool result that answers the call
// says what happened to it.
func toolInput(args json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return args
}

// hasText reports whether s may be sent as a text block: the API refuses
// empty text blocks and whitespace-only ones ("text content blocks must
// contain non-whitespace text"), which a model's own reply can be — a
// newline before a tool call, say.
func hasText(s string) bool { return strings.TrimSpace(s) != "" }

// inputSchema spreads a JSON Schema over the SDK's input schema type, which
// fixes "type": "object" and keeps every other keyword as it came.
func inputSchema(b json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	obj, err := inlineRoot(b)
	if err != nil {
		return sdk.ToolInputSchemaParam{}, err
	}
	var s sdk.ToolInputSchemaParam
	if v, ok := obj["properties"]; ok {
		s.Properties = v
	}
	if v, ok := obj["required"].(json.RawMessage); ok {
		if err := json.Unmarshal(v, &s.Required); err != nil {
			return s, fmt.Errorf("required: %w", err)
		}
	}
	delete(obj, "properties")
	delete(obj, "required")
	delete(obj, "type")
	if len(obj) > 0 {
		s.ExtraFields = obj
	}
	return s, nil
}

// fromMessage maps the reply: text blocks joined into the content, tool_use
// blocks into tool calls, thinking and redacted_thinking blocks into
// Reasoning and ReasoningRaw (see thoughts). Other blocks (server tools)
// are not part of agent.Message and are dropped.
func fromMessage(msg *sdk.Message, raw *http.Response) (agent.Response, error) {
	if msg == nil || msg.Role != "assistant" {
		return agent.Response{}, notAssistant(raw)
	}
	out := agent.Message{Role: agent.RoleAssistant}
	var th thoughts
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			out.Content += b.Text
		case "tool_use":
			args := b.Input
			if noInput(args) {
				args = json.RawMessage("{}")
			}
			out.ToolCalls = append(out.ToolCalls, agent.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		case "thinking", "redacted_thinking":
			th.add(thought{Type: string(b.Type), Thinking: b.Thinking, Signature: b.Signature, Data: b.Data})
		}
	}
	out.Reasoning, out.ReasoningRaw = th.text, th.raw()
	u := msg.Usage
	return agent.Response{
		Message: out,
		Stop:    stopReason(msg.StopReason),
		StopRaw: string(msg.StopReason),
		Usage:   usage(u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.OutputTokens, u.JSON.CacheReadInputTokens.Valid() && th.blocks == nil),
	}, nil
}

// usage maps token counts. Cached prompt tokens are counted apart from
// input_tokens; the prompt is all three, and the cache reads are
// CachedTokens. Anthropic counts thinking among output_tokens without
// saying how much of it: a reply with thinking blocks has unknown
// reasoning tokens, one without has none, so its usage is Detailed when
// the cache reads were reported (detailed).
func usage(input, cacheCreation, cacheRead, output int64, detailed bool) agent.Usage {
	return agent.Usage{
		InputTokens: int(input + cacheCreation + cacheRead), OutputTokens: int(output),
		CachedTokens: int(cacheRead), Detailed: detailed,
	}
}

// noInput reports a tool_use input that says nothing; the call gets "{}".
func noInput(b []byte) bool { return len(b) == 0 || string(b) == "null" }

// notAssistant is the failure of a reply that is not an assistant message.
func notAssistant(raw *http.Response) error {
	return wire.Malformed(System, wire.Status(raw), "not an assistant message")
}

// stopReason maps a Messages API stop_reason.
func stopReason(r sdk.StopReason) agent.StopReason {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return agent.StopComplete
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return agent.StopLength
	case sdk.StopReasonToolUse:
		return agent.StopToolUse
	case sdk.StopReasonRefusal:
		return agent.StopRefusal
	}
	return agent.StopUnknown
}
