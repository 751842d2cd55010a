package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

const plainMessage = `{
  "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
  "content": [{"type": "text", "text": "Paris."}],
  "stop_reason": "end_turn", "stop_sequence": null,
  "usage": {"input_tokens": 21, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 0, "output_tokens": 3}
}`

const toolUseMessage = `{
  "id": "msg_02", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
  "content": [
    {"type": "text", "text": "Let me check."},
    {"type": "tool_use", "id": "toolu_01", "name": "weather", "input": {"city": "Paris"}}
  ],
  "stop_reason": "tool_use", "stop_sequence": null,
  "usage": {"input_tokens": 40, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 12}
}`

// message is a 200 body whose answer is text.
func message(text string) string {
	b, _ := json.Marshal(text)
	return `{"id":"msg_03","type":"message","role":"assistant","model":"claude-sonnet-4-5",
"content":[{"type":"text","text":` + string(b) + `}],"stop_reason":"end_turn","stop_sequence":null,
"usage":{"input_tokens":10,"output_tokens":5}}`
}

func errorBody(typ, msg string) string {
	return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"},"request_id":"req_011"}`
}

func TestGenerateSendsThePlainConversationAndMapsTheAnswer(t *testing.T) {
	srv := newFakeServer(t, okReply(plainMessage))
	m := New(srv.client(), "claude-sonnet-4-5")

	resp, err := m.Generate(context.Background(), agent.Request{Messages: []agent.Message{
		{Role: agent.RoleSystem, Content: "Answer briefly."},
		{Role: agent.RoleUser, Content: "Capital of France?"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message; got.Role != agent.RoleAssistant || got.Content != "Paris." || got.ToolCalls != nil {
		t.Errorf("message = %+v, want the assistant's Paris.", got)
	}
	if got, want := resp.Usage, (agent.Usage{InputTokens: 26, OutputTokens: 3, CachedTokens: 5, Detailed: true}); got != want {
		t.Errorf("usage = %+v, want %+v (cache reads count as input, and as cached)", got, want)
	}

	bodies := srv.requests()
	if got, want := srv.Paths()[0], "POST /v1/messages"; got != want {
		t.Errorf("request = %s, want %s", got, want)
	}
	req, keys := decodeRequest(t, bodies[0])
	if got, want := req.Model, "claude-sonnet-4-5"; got != want {
		t.Errorf("model = %q, want %q", got, want)
	}
	if got, want := req.MaxTokens, DefaultMaxTokens; got != want {
		t.Errorf("max_tokens = %d, want %d", got, want)
	}
	if len(req.System) != 1 || req.System[0].Type != "text" || req.System[0].Text != "Answer briefly." {
		t.Errorf("system = %+v, want one text block with the system message", req.System)
	}
	if got, want := req.roles(), []string{"user:text"}; !slices.Equal(got, want) {
		t.Errorf("messages = %v, want %v (the system message is not one)", got, want)
	}
	for _, k := range []string{"tools", "tool_choice", "output_config", "stream"} {
		if _, ok := keys[k]; ok {
			t.Errorf("request has %q, want it absent", k)
		}
	}
	checkGolden(t, "plain_request.json", bodies[0])
}

type weatherArgs struct {
	City string `json:"city"`
}

func TestToolCallRoundTripSendsTheResultWithTheToolUseID(t *testing.T) {
	srv := newFakeServer(t, okReply(toolUseMessage), okReply(message("It is 18°C in Paris.")))
	var gotArgs weatherArgs
	tool := agent.NewTool("weather", "Current weather for a city.", func(_ context.Context, in weatherArgs) (string, error) {
		gotArgs = in
		return "18°C, clear", nil
	})
	a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithTools(tool))

	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := gotArgs.City, "Paris"; got != want {
		t.Errorf("tool got city %q, want %q", got, want)
	}
	if got, want := res.Output, "It is 18°C in Paris."; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	if got, want := res.Usage, (agent.Usage{InputTokens: 50, OutputTokens: 17, Detailed: true}); got != want {
		t.Errorf("usage = %+v, want %+v (summed over both calls)", got, want)
	}

	bodies := srv.requests()
	if len(bodies) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(bodies))
	}
	first, keys := decodeRequest(t, bodies[0])
	if len(first.Tools) != 1 || first.Tools[0].Name != "weather" || first.Tools[0].Description != "Current weather for a city." {
		t.Fatalf("tools = %+v, want the weather tool", first.Tools)
	}
	var schema struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
		Ref        string         `json:"$ref"`
	}
	if err := json.Unmarshal(first.Tools[0].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || schema.Ref != "" || schema.Properties["city"] == nil || !slices.Equal(schema.Required, []string{"city"}) {
		t.Errorf("input_schema = %s, want an object schema with required city at the root", first.Tools[0].InputSchema)
	}
	if _, ok := keys["tool_choice"]; ok {
		t.Error("tool_choice is set, want it absent unless the user sets it")
	}

	second, _ := decodeRequest(t, bodies[1])
	if got, want := second.roles(), []string{"user:text", "assistant:text,tool_use", "user:tool_result"}; !slices.Equal(got, want) {
		t.Fatalf("second request messages = %v, want %v", got, want)
	}
	use := second.Messages[1].Content[1]
	if use.ID != "toolu_01" || use.Name != "weather" || string(use.Input) != `{"city":"Paris"}` {
		t.Errorf("tool_use sent back = %+v, want toolu_01 weather {\"city\":\"Paris\"}", use)
	}
	result := second.Messages[2].Content[0]
	if got, want := result.ToolUseID, "toolu_01"; got != want {
		t.Errorf("tool_use_id = %q, want %q", got, want)
	}
	if len(result.Content) != 1 || result.Content[0].Type != "text" || result.Content[0].Text != "18°C, clear" {
		t.Errorf("tool_result content = %+v, want one text block with the tool's output", result.Content)
	}
	checkGolden(t, "tool_result_request.json", bodies[1])
}

func TestConsecutiveMessagesOfOneRoleAreMerged(t *testing.T) {
	srv := newFakeServer(t, okReply(plainMessage))
	_, err := New(srv.client(), "claude-sonnet-4-5").Generate(context.Background(), agent.Request{Messages: []agent.Message{
		{Role: agent.RoleSystem, Content: "Be brief."},
		{Role: agent.RoleUser, Content: "Weather in Paris and Rome?"},
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{
			{ID: "toolu_a", Name: "weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
			{ID: "toolu_b", Name: "weather"},
			{ID: "toolu_c", Name: "weather", Arguments: json.RawMessage(`{"city": "Pa`)},
			{ID: "toolu_d", Name: "weather", Arguments: json.RawMessage(`"a string"`)},
		}},
		{Role: agent.RoleTool, ToolCallID: "toolu_a", Content: "18°C"},
		{Role: agent.RoleTool, ToolCallID: "toolu_b", Content: ""},
		{Role: agent.RoleTool, ToolCallID: "toolu_c", Content: "cut off"},
		{Role: agent.RoleTool, ToolCallID: "toolu_d", Content: "no"},
		{Role: agent.RoleUser, Content: "Reply with only the JSON."},
		{Role: agent.RoleSystem, Content: "Second system note."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := decodeRequest(t, srv.requests()[0])
	want := []string{"user:text", "assistant:tool_use,tool_use,tool_use,tool_use", "user:tool_result,tool_result,tool_result,tool_result,text"}
	if got := req.roles(); !slices.Equal(got, want) {
		t.Errorf("messages = %v, want %v", got, want)
	}
	for i, what := range []string{"", "a call without arguments", "a call truncated mid-object", "a call whose arguments are no object"} {
		if got := string(req.Messages[1].Content[i].Input); i > 0 && got != `{}` {
			t.Errorf("input of %s = %s, want {}", what, got)
		}
	}
	if got := req.Messages[2].Content[1].Content; len(got) != 0 {
		t.Errorf("an empty tool result has content %+v, want none (the API refuses empty text)", got)
	}
	if len(req.System) != 2 {
		t.Errorf("system = %+v, want both system messages", req.System)
	}
}

func TestProviderErrors(t *testing.T) {
	wiretest.ProviderErrors(t, adapter, []wiretest.Failure{
		{
			Name:  "a 429 with Retry-After in seconds is a retryable rate limit",
			Reply: reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: errorBody("rate_limit_error", "Number of request tokens has exceeded your rate limit")},
			Kind:  events.KindRateLimit, Status: 429, RetryAfter: 7 * time.Second, Message: "Number of request tokens has exceeded your rate limit", Retryable: true,
		},
		{
			Name:  "a 529 is overload",
			Reply: reply{Status: 529, Body: errorBody("overloaded_error", "Overloaded")},
			Kind:  events.KindOverloaded, Status: 529, Message: "Overloaded", Retryable: true,
		},
		{
			Name:  "a 500 is a retryable server error",
			Reply: reply{Status: 500, Body: errorBody("api_error", "Internal server error")},
			Kind:  events.KindServerError, Status: 500, Message: "Internal server error", Retryable: true,
		},
		{
			Name:  "a 503 with an HTML body keeps the status and the body's text",
			Reply: reply{Status: 503, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html>\n  Service   Unavailable\n</html>"},
			Kind:  events.KindOverloaded, Status: 503, Message: "<html> Service Unavailable </html>", Retryable: true,
		},
		{
			Name:  "a 400 is a bad request that is never retried",
			Reply: reply{Status: 400, Body: errorBody("invalid_request_error", "messages: roles must alternate")},
			Kind:  events.KindBadRequest, Status: 400, Message: "messages: roles must alternate", Retryable: false,
		},
		{
			Name:  "a 401 is an auth failure",
			Reply: reply{Status: 401, Body: errorBody("authentication_error", "invalid x-api-key")},
			Kind:  events.KindAuth, Status: 401, Message: "invalid x-api-key", Retryable: false,
		},
	}, func(err error) bool {
		var apiErr *sdk.Error
		return errors.As(err, &apiErr)
	})
}

func TestMalformedResponsesAreErrorsNotPanics(t *testing.T) {
	wiretest.MalformedResponses(t, adapter, []wiretest.Body{
		{Name: "a body that is not JSON", Body: `{"content": [ this is not json`},
		{Name: "a body that is a JSON string", Body: `"hello"`},
		{Name: "a body that is not a message", Body: `{"type":"completion","completion":"hi"}`},
	})
}

func TestTransportFailures(t *testing.T) {
	wiretest.TransportFailures(t, adapter)
}

func TestWithClientRetriesLeavesTheSDKRetrying(t *testing.T) {
	srv := newFakeServer(t,
		reply{Status: 529, Header: map[string]string{"Retry-After-Ms": "1"}, Body: errorBody("overloaded_error", "Overloaded")},
		okReply(plainMessage),
	)
	m := New(srv.client(option.WithMaxRetries(1)), "claude-sonnet-4-5", WithClientRetries())
	if _, err := m.Generate(context.Background(), agent.Request{}); err != nil {
		t.Fatal(err)
	}
	if got := len(srv.requests()); got != 2 {
		t.Errorf("server saw %d requests, want 2", got)
	}
}

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

func TestWithNativeSchemaSendsAnOutputFormat(t *testing.T) {
	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		t.Fatal(err)
	}
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Paris?"}}, OutputSchema: s.JSON()}

	t.Run("with the option, output_config carries the schema inlined at the root", func(t *testing.T) {
		srv := newFakeServer(t, okReply(message(`{"city":"Paris","tempC":18}`)))
		if _, err := New(srv.client(), "claude-sonnet-4-5", WithNativeSchema()).Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		body := srv.requests()[0]
		got, _ := decodeRequest(t, body)
		if got.OutputConfig == nil || got.OutputConfig.Format.Type != "json_schema" {
			t.Fatalf("output_config = %+v, want a json_schema format", got.OutputConfig)
		}
		var schema struct {
			Type     string   `json:"type"`
			Required []string `json:"required"`
			Ref      string   `json:"$ref"`
		}
		if err := json.Unmarshal(got.OutputConfig.Format.Schema, &schema); err != nil {
			t.Fatal(err)
		}
		if schema.Type != "object" || schema.Ref != "" || !slices.Equal(schema.Required, []string{"city", "tempC"}) {
			t.Errorf("schema = %s, want the Weather object at the root", got.OutputConfig.Format.Schema)
		}
		checkGolden(t, "native_schema_request.json", body)
	})
	t.Run("without the option, no output_config is sent", func(t *testing.T) {
		srv := newFakeServer(t, okReply(message(`{"city":"Paris","tempC":18}`)))
		if _, err := New(srv.client(), "claude-sonnet-4-5").Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if _, keys := decodeRequest(t, srv.requests()[0]); keys["output_config"] != nil {
			t.Errorf("output_config = %s, want it absent", keys["output_config"])
		}
	})
}

func TestOptionsShapeTheRequest(t *testing.T) {
	srv := newFakeServer(t, okReply(plainMessage))
	m := New(srv.client(), "claude-sonnet-4-5",
		WithMaxTokens(512),
		WithParams(func(p *sdk.MessageNewParams) {
			p.StopSequences = []string{"END"}
			p.ToolChoice = sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}
		}))
	if _, err := m.Generate(context.Background(), agent.Request{}); err != nil {
		t.Fatal(err)
	}
	got, keys := decodeRequest(t, srv.requests()[0])
	if got.MaxTokens != 512 {
		t.Errorf("max_tokens = %d, want 512", got.MaxTokens)
	}
	if got, want := string(keys["stop_sequences"]), `["END"]`; got != want {
		t.Errorf("stop_sequences = %s, want %s", got, want)
	}
	if got, want := string(keys["tool_choice"]), `{"type":"any"}`; got != want {
		t.Errorf("tool_choice = %s, want %s", got, want)
	}
}

func TestInvalidConfigurationFailsEveryCall(t *testing.T) {
	client := sdk.NewClient(option.WithAPIKey("k"), option.WithBaseURL("http://127.0.0.1:1/"))
	wiretest.InvalidOptions(t, []wiretest.Configured{
		{Name: "an empty model name", Model: New(client, "")},
		{Name: "max tokens of zero", Model: New(client, "claude-sonnet-4-5", WithMaxTokens(0))},
		{Name: "a nil params func", Model: New(client, "claude-sonnet-4-5", WithParams(nil))},
	})
}

func TestBadRequestInputIsRefusedBeforeSending(t *testing.T) {
	wiretest.BadInputIsRefused(t, adapter)
}

func TestAStatusOutsideHTTPsRangeIsAnUnknownFailureWithoutTheStatus(t *testing.T) {
	wiretest.AStatusOutsideHTTP(t, adapter, errorBody("api_error", "odd"))
}

func TestModelNameIsTheModelGivenToNew(t *testing.T) {
	m := New(sdk.NewClient(option.WithAPIKey("k")), "claude-sonnet-4-5")
	if got := m.ModelName(); got != "claude-sonnet-4-5" {
		t.Errorf("ModelName() = %q, want claude-sonnet-4-5", got)
	}
	if got := m.ProviderName(); got != "anthropic" {
		t.Errorf("ProviderName() = %q, want anthropic", got)
	}
}
