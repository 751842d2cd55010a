package gemini

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/internal/toolcall"
	"github.com/enforcer-go/enforcer/internal/wireschema"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/native"
)

// System names the provider in *agent.ProviderError and recorded events.
const System = "gemini"

// Model is an agent.Model over the generateContent method of the Gemini
// API (or Vertex AI). It is immutable after New and safe for concurrent
// use.
type Model struct {
	client   *genai.Client
	model    string
	provider string
	native   bool
	maxReply int64
	opts     wire.Options[genai.GenerateContentConfig]
}

var (
	_ agent.Model        = (*Model)(nil)
	_ agent.ModeReporter = (*Model)(nil)
)

// Option configures a Model.
type Option interface{ apply(*Model) }

type optionFunc func(*Model)

func (f optionFunc) apply(m *Model) { f(m) }

// New returns a Model that asks model for content through client,
// configured as the caller likes (API key or credentials, backend, base
// URL, HTTP client, headers).
//
// The Model sends through a client of its own made from client's
// configuration, whose HTTP client bounds every reply (see
// [WithMaxReplyBytes]); client itself is left as it was.
//
// Every request runs with HTTP retries off (one try) and the SDK's
// automatic continuation off: retries belong to agent.WithModelRetry,
// which records each one (turn/modelRetryScheduled) before it waits, so a
// client watching the turn sees why it stalls; the SDK's would be
// silent. [WithClientRetries] keeps the client's retry setting instead.
//
// Invalid options, a nil client and an empty model name do not panic:
// they make every Generate return an error matching
// agent.ErrInvalidOption.
func New(client *genai.Client, model string, opts ...Option) *Model {
	m := &Model{model: model, provider: "gcp.gemini", maxReply: DefaultMaxReplyBytes, opts: wire.Options[genai.GenerateContentConfig]{System: System}}
	for _, o := range opts {
		if o != nil {
			o.apply(m)
		}
	}
	switch {
	case client == nil:
		m.opts.Invalid("New: nil client")
	case model == "":
		m.opts.Invalid("New: empty model name")
	}
	if m.opts.Err() != nil {
		return m
	}
	cfg := client.ClientConfig()
	if cfg.Backend == genai.BackendVertexAI {
		m.provider = "gcp.vertex_ai"
	}
	bounded, err := boundedClient(cfg, m.maxReply)
	if err != nil {
		m.opts.Invalid("New: %v", err)
		return m
	}
	m.client = bounded
	return m
}

// ModelName is the model the adapter asks for, as given to New: what a
// tracer names as gen_ai.request.model (the otel module's WithModelOf).
func (m *Model) ModelName() string { return m.model }

// ProviderName is what a tracer names as gen_ai.provider.name, as the
// GenAI conventions name it: "gcp.gemini" for the Gemini API,
// "gcp.vertex_ai" for a Vertex AI client.
func (m *Model) ProviderName() string { return m.provider }

// WithNativeSchema asks the model to constrain its answer to the
// request's output schema (agent.Request.OutputSchema) with Gemini's
// structured output: responseMimeType "application/json" and the schema
// lowered by providers/native for Gemini as responseJsonSchema (a
// contract it cannot express is sent without one; [NativeReport] says
// which keywords Gemini enforces). The answer is still judged by the
// agent either way. Requests without an output schema are sent unchanged.
func WithNativeSchema() Option {
	return optionFunc(func(m *Model) { m.native = true })
}

// OutputModes says what the API takes for contract
// (agent.ModeReporter, read by agent.WithAutoOutputMode): native when
// WithNativeSchema is given and its lowering is exact
// (native.Report.Exact), and tools.
func (m *Model) OutputModes(contract json.RawMessage) agent.Modes {
	if !m.native {
		return wire.Modes(nil, nil, "WithNativeSchema")
	}
	l, err := native.Lower(contract, native.Gemini)
	if err != nil {
		err = fmt.Errorf("gemini: output schema: %w", err)
	}
	return wire.Modes(l, err, "WithNativeSchema")
}

// NativeReport says how WithNativeSchema sends contract (a JSON Schema,
// as agent.Request.OutputSchema carries it): with a schema or not at all,
// and which of its keywords Gemini enforces and which only the agent
// judges.
func NativeReport(contract []byte) (native.Report, error) {
	l, err := native.Lower(contract, native.Gemini)
	if err != nil {
		return native.Report{}, err
	}
	return l.Report, nil
}

// WithClientRetries keeps the client's own HTTP retry options
// (HTTPOptions.RetryOptions) instead of sending each request with one
// try. Those retries are invisible to the agent: they are not
// recorded, and they add to the delay of agent.WithModelRetry. Automatic
// continuation stays off either way: a reply truncated at the per-request
// limit (finish reason CONTINUATION) is agent.StopLength.
func WithClientRetries() Option {
	return optionFunc(func(m *Model) { m.opts.ClientRetries = true })
}

// WithConfig lets f adjust every request's configuration (temperature,
// maxOutputTokens, thinkingConfig, safetySettings, headers in
// HTTPOptions, …) after the adapter has set the system instruction,
// tools, tool config and response schema. Retry options and automatic
// continuation f leaves unset are the adapter's (one try, off).
func WithConfig(f func(*genai.GenerateContentConfig)) Option {
	return optionFunc(func(m *Model) { m.opts.Adjust("WithConfig", f) })
}

// Generate sends req as one generateContent request and returns the first
// candidate. A failed call returns *agent.ProviderError (System
// "gemini"), except a done ctx, which returns context.Cause(ctx). A
// request with RequireToolCall (agent.WithOutputTool) and tools is sent
// with function calling mode ANY.
func (m *Model) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	if err := m.opts.Err(); err != nil {
		return agent.Response{}, err
	}
	contents, config, err := m.newRequest(req)
	if err != nil {
		return agent.Response{}, err
	}
	ctx, c := withCall(ctx, m.maxReply)
	resp, err := m.client.Models.GenerateContent(ctx, m.model, contents, config)
	if err != nil {
		return agent.Response{}, failure(ctx, err, c)
	}
	return fromResponse(resp, c.status)
}

// newRequest maps req. System messages become the system instruction;
// assistant messages are "model" contents, tool results functionResponse
// parts of a "user" content; consecutive messages of one role are merged
// into one content, so that the results of parallel calls travel
// together, as the API expects. Empty text is left out: the API refuses
// a content without parts.
func (m *Model) newRequest(req agent.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	config := &genai.GenerateContentConfig{}
	names := map[string]string{} // a call's ID → its function's name, for its result
	var contents []*genai.Content
	add := func(role string, parts ...*genai.Part) {
		if len(parts) == 0 {
			return
		}
		if n := len(contents); n > 0 && contents[n-1].Role == role {
			contents[n-1].Parts = append(contents[n-1].Parts, parts...)
			return
		}
		contents = append(contents, &genai.Content{Role: role, Parts: parts})
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case agent.RoleSystem:
			if msg.Content != "" {
				if config.SystemInstruction == nil {
					config.SystemInstruction = &genai.Content{}
				}
				config.SystemInstruction.Parts = append(config.SystemInstruction.Parts, &genai.Part{Text: msg.Content})
			}
		case agent.RoleUser:
			if msg.Content != "" {
				add(genai.RoleUser, &genai.Part{Text: msg.Content})
			}
		case agent.RoleTool:
			id, _ := splitCallID(msg.ToolCallID)
			add(genai.RoleUser, &genai.Part{FunctionResponse: &genai.FunctionResponse{
				ID: id, Name: names[msg.ToolCallID], Response: map[string]any{"output": msg.Content},
			}})
		case agent.RoleAssistant:
			var parts []*genai.Part
			if msg.Content != "" {
				parts = append(parts, &genai.Part{Text: msg.Content})
			}
			for _, c := range msg.ToolCalls {
				names[c.ID] = c.Name
				id, signature := splitCallID(c.ID)
				parts = append(parts, &genai.Part{
					FunctionCall:     &genai.FunctionCall{ID: id, Name: c.Name, Args: callArgs(c.Arguments)},
					ThoughtSignature: signature,
				})
			}
			add(genai.RoleModel, parts...)
		default:
			return nil, nil, fmt.Errorf("gemini: message %d: unknown role %q", i, msg.Role)
		}
	}
	if len(req.Tools) > 0 {
		tool := &genai.Tool{}
		for _, t := range req.Tools {
			fd := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
			if len(t.Parameters) > 0 {
				_, schema, err := wireschema.InlineRoot(t.Parameters)
				if err != nil {
					return nil, nil, fmt.Errorf("gemini: tool %q: parameters: %w", t.Name, err)
				}
				fd.ParametersJsonSchema = schema
			}
			tool.FunctionDeclarations = append(tool.FunctionDeclarations, fd)
		}
		config.Tools = []*genai.Tool{tool}
		if req.RequireToolCall {
			// agent.WithOutputTool: the reply must call a function.
			config.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny}}
		}
	}
	if m.native && len(req.OutputSchema) > 0 {
		// Lowered to what Gemini's structured output accepts; a contract
		// it cannot express is sent with no schema, never as a 400.
		l, err := native.Lower(req.OutputSchema, native.Gemini)
		if err != nil {
			return nil, nil, fmt.Errorf("gemini: output schema: %w", err)
		}
		if l.Schema != nil {
			config.ResponseMIMEType = "application/json"
			config.ResponseJsonSchema = l.Schema
		}
	}
	m.opts.Apply(config)
	// A WithConfig that replaced the HTTP options or the continuation
	// setting without saying otherwise gets the adapter's again.
	if config.HTTPOptions == nil {
		config.HTTPOptions = &genai.HTTPOptions{}
	}
	if config.HTTPOptions.RetryOptions == nil && !m.opts.ClientRetries {
		config.HTTPOptions.RetryOptions = &genai.HTTPRetryOptions{Attempts: genai.Ptr[int32](1)}
	}
	if config.AutomaticContinuation == nil {
		config.AutomaticContinuation = genai.Ptr(false)
	}
	return contents, config, nil
}

// callArgs is a call's arguments as the API takes them, a JSON object.
// Arguments that are not one (a call cut mid-stream leaves half an
// object) are sent as {}; the tool result that answers the call says
// what happened to it.
func callArgs(args json.RawMessage) map[string]any {
	var obj map[string]any
	if json.Unmarshal(args, &obj) != nil || obj == nil {
		return map[string]any{}
	}
	return obj
}

// A tool call's ID carries what the API needs back with the call: the
// API's own call ID (or one made up, "call_<n>", when it gave none) and
// the thought signature of the part the call came in, which Gemini 3
// models require back with the call ("<id>|ts:<base64url>"). The
// conversation stays the agent's: no state is kept between requests.
const signatureMark = "|ts:"

// callID is the ID of the reply's call i.
func callID(fc *genai.FunctionCall, signature []byte, i int) string {
	id := toolcall.ID(fc.ID, i)
	if len(signature) > 0 {
		id += signatureMark + base64.RawURLEncoding.EncodeToString(signature)
	}
	return id
}

// splitCallID is the API's call ID (empty for one made up) and the thought
// signature a call's ID carries.
func splitCallID(s string) (id string, signature []byte) {
	id = s
	if i := strings.LastIndex(s, signatureMark); i >= 0 {
		if b, err := base64.RawURLEncoding.DecodeString(s[i+len(signatureMark):]); err == nil {
			id, signature = s[:i], b
		}
	}
	if toolcall.MadeUp(id) {
		id = ""
	}
	return id, signature
}

// arguments is a call's arguments as JSON: the API sends them as an
// object, which the SDK has decoded.
func arguments(args map[string]any) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage("{}")
	}
	b, err := json.Marshal(args)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

// fromResponse maps the first candidate: its text parts joined into the
// content (thoughts left out), its functionCall parts into tool calls. A
// prompt the API blocked (promptFeedback.blockReason, no candidate) is
// agent.StopContentFilter; a body with neither is a malformed response.
func fromResponse(resp *genai.GenerateContentResponse, status int) (agent.Response, error) {
	if resp == nil {
		return agent.Response{}, wire.Malformed(System, status, "empty response")
	}
	u := usage(resp.UsageMetadata)
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			return agent.Response{
				Message: agent.Message{Role: agent.RoleAssistant, Content: pf.BlockReasonMessage},
				Usage:   u, Stop: agent.StopContentFilter, StopRaw: string(pf.BlockReason),
			}, nil
		}
		return agent.Response{}, wire.Malformed(System, status, "no candidates")
	}
	cand := resp.Candidates[0]
	out := agent.Message{Role: agent.RoleAssistant}
	var parts []*genai.Part
	if cand.Content != nil {
		parts = cand.Content.Parts
	}
	for _, p := range parts {
		switch {
		case p == nil:
		case p.Thought:
			out.Reasoning += p.Text // a thought summary (includeThoughts), never the answer
		case p.FunctionCall != nil:
			out.ToolCalls = append(out.ToolCalls, agent.ToolCall{
				ID: callID(p.FunctionCall, p.ThoughtSignature, len(out.ToolCalls)), Name: p.FunctionCall.Name, Arguments: arguments(p.FunctionCall.Args),
			})
		default:
			out.Content += p.Text
		}
	}
	return agent.Response{
		Message: out, Usage: u,
		Stop: stopReason(cand.FinishReason, len(out.ToolCalls) > 0), StopRaw: string(cand.FinishReason),
	}, nil
}

// stopReason maps a candidate's finishReason. A reply with function calls
// ends with STOP; it stopped for them.
func stopReason(r genai.FinishReason, calls bool) agent.StopReason {
	switch r {
	case genai.FinishReasonStop:
		if calls {
			return agent.StopToolUse
		}
		return agent.StopComplete
	case genai.FinishReasonMaxTokens, genai.FinishReasonContinuation:
		return agent.StopLength
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety,
		genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation:
		return agent.StopContentFilter
	}
	return agent.StopUnknown
}

// usage maps usageMetadata. Gemini counts thoughts apart from the
// candidates and tool-use prompts apart from the prompt; the agent counts
// them among output and input, and the cached content among the prompt,
// where Gemini counts it too. The API leaves a zero count out, so a
// usageMetadata present is all four counts: Detailed.
func usage(u *genai.GenerateContentResponseUsageMetadata) agent.Usage {
	if u == nil {
		return agent.Usage{}
	}
	return agent.Usage{
		InputTokens:     int(u.PromptTokenCount) + int(u.ToolUsePromptTokenCount),
		OutputTokens:    int(u.CandidatesTokenCount) + int(u.ThoughtsTokenCount),
		CachedTokens:    int(u.CachedContentTokenCount),
		ReasoningTokens: int(u.ThoughtsTokenCount),
		Detailed:        true,
	}
}
