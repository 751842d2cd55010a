package openaiwiretest

import (
	"context"
	"encoding/json"
	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
	"slices"
	"testing"
	"time"
)

func (h Harness) testGenerateSendsThePlainConversationAndMapsTheAnswer(t *testing.T) {
	srv := newFakeServer(t, okReply(PlainCompletion))
	m := h.New(srv.URL, "gpt-4o-mini")

	resp, err := m.Generate(context.Background(), agent.Request{Messages: []agent.Message{
		{Role: agent.RoleSystem, Content: "Answer briefly."},
		{Role: agent.RoleUser, Content: "Capital of France?"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Message, (agent.Message{Role: agent.RoleAssistant, Content: "Paris."}); got.Role != want.Role || got.Content != want.Content || got.ToolCalls != nil {
		t.Errorf("message = %+v, want %+v", got, want)
	}
	if got, want := resp.Usage, (agent.Usage{InputTokens: 21, OutputTokens: 3}); got != want {
		t.Errorf("usage = %+v, want %+v", got, want)
	}

	bodies := srv.requests()
	if got, want := srv.Paths()[0], "POST /v1/chat/completions"; got != want {
		t.Errorf("request = %s, want %s", got, want)
	}
	req, keys := DecodeRequest(t, bodies[0])
	if got, want := req.Model, "gpt-4o-mini"; got != want {
		t.Errorf("model = %q, want %q", got, want)
	}
	if got, want := req.roles(), []string{"system", "user"}; !slices.Equal(got, want) {
		t.Errorf("roles = %v, want %v", got, want)
	}
	absent := []string{"tools", "tool_choice", "response_format"}
	if h.SendsStream {
		if got, want := string(keys["stream"]), "false"; got != want {
			t.Errorf("stream = %s, want %s", got, want)
		}
	} else {
		absent = append(absent, "stream")
	}
	for _, k := range absent {
		if _, ok := keys[k]; ok {
			t.Errorf("request has %q, want it absent", k)
		}
	}
	CheckGolden(t, "plain_request.json", bodies[0])
}

func (h Harness) testToolCallRoundTripSendsTheResultWithTheCallID(t *testing.T) {
	srv := newFakeServer(t, okReply(ToolCallCompletion), okReply(Completion("It is 18°C in Paris.")))
	var gotArgs weatherArgs
	tool := agent.NewTool("weather", "Current weather for a city.", func(_ context.Context, in weatherArgs) (string, error) {
		gotArgs = in
		return "18°C, clear", nil
	})
	a := agent.New(h.New(srv.URL, "gpt-4o-mini"), agent.WithTools(tool))

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
	if got, want := res.Usage, (agent.Usage{InputTokens: 50, OutputTokens: 17}); got != want {
		t.Errorf("usage = %+v, want %+v (summed over both calls)", got, want)
	}

	bodies := srv.requests()
	if len(bodies) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(bodies))
	}
	first, keys := DecodeRequest(t, bodies[0])
	if len(first.Tools) != 1 || first.Tools[0].Type != "function" || first.Tools[0].Function.Name != "weather" {
		t.Fatalf("tools = %+v, want one function tool named weather", first.Tools)
	}
	var params struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(first.Tools[0].Function.Parameters, &params); err != nil {
		t.Fatal(err)
	}
	if params.Type != "object" || params.Properties["city"] == nil || !slices.Equal(params.Required, []string{"city"}) {
		t.Errorf("parameters = %s, want an object schema with required city at the root", first.Tools[0].Function.Parameters)
	}
	if _, ok := keys["tool_choice"]; ok {
		t.Error("tool_choice is set, want it absent unless the user sets it")
	}

	second, _ := DecodeRequest(t, bodies[1])
	if got, want := second.roles(), []string{"user", "assistant", "tool"}; !slices.Equal(got, want) {
		t.Fatalf("second request roles = %v, want %v", got, want)
	}
	call := second.Messages[1].ToolCalls
	if len(call) != 1 || call[0].ID != "call_abc" || call[0].Type != "function" || call[0].Function.Name != "weather" || call[0].Function.Arguments != `{"city":"Paris"}` {
		t.Errorf("assistant tool calls sent back = %+v, want call_abc weather {\"city\":\"Paris\"}", call)
	}
	toolMsg := second.Messages[2]
	if got, want := toolMsg.ToolCallID, "call_abc"; got != want {
		t.Errorf("tool_call_id = %q, want %q", got, want)
	}
	if got, want := string(toolMsg.Content), `"18°C, clear"`; got != want {
		t.Errorf("tool content = %s, want %s", got, want)
	}
	CheckGolden(t, "tool_result_request.json", bodies[1])
}

func (h Harness) testGenerateMapsToolCallsFromTheResponse(t *testing.T) {
	srv := newFakeServer(t, okReply(`{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
"tool_calls":[{"type":"function","function":{"name":"a","arguments":""}},
              {"id":"x1","type":"function","function":{"name":"b","arguments":"{not json"}}]}}]}`))
	resp, err := h.New(srv.URL, "local").Generate(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Message.ToolCalls
	want := []agent.ToolCall{
		{ID: "call_0", Name: "a", Arguments: json.RawMessage(`{}`)},
		{ID: "x1", Name: "b", Arguments: json.RawMessage(`"{not json"`)},
	}
	if len(got) != len(want) {
		t.Fatalf("tool calls = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Name != want[i].Name || string(got[i].Arguments) != string(want[i].Arguments) {
			t.Errorf("call %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if resp.Usage != (agent.Usage{}) {
		t.Errorf("usage = %+v, want zero when the body has none", resp.Usage)
	}
}

func (h Harness) testProviderErrors(t *testing.T) {
	wiretest.ProviderErrors(t, h.Adapter, []wiretest.Failure{
		{
			Name:  "a 429 with Retry-After in seconds is a retryable rate limit",
			Reply: reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: ErrorBody("rate_limit_exceeded", "Rate limit reached")},
			Kind:  events.KindRateLimit, Status: 429, RetryAfter: 7 * time.Second, Message: "Rate limit reached", Retryable: true,
		},
		{
			Name:  "a 429 with retry-after-ms prefers the milliseconds",
			Reply: reply{Status: 429, Header: map[string]string{"Retry-After": "2", "Retry-After-Ms": "1500"}, Body: ErrorBody("rate_limit_exceeded", "slow down")},
			Kind:  events.KindRateLimit, Status: 429, RetryAfter: 1500 * time.Millisecond, Message: "slow down", Retryable: true,
		},
		{
			Name:  "a 500 is a retryable server error",
			Reply: reply{Status: 500, Body: ErrorBody("server_error", "The server had an error")},
			Kind:  events.KindServerError, Status: 500, Message: "The server had an error", Retryable: true,
		},
		{
			Name:  "a 503 is overload",
			Reply: reply{Status: 503, Body: ErrorBody("server_error", "overloaded")},
			Kind:  events.KindOverloaded, Status: 503, Message: "overloaded", Retryable: true,
		},
		{
			Name:  "a 502 with an HTML body keeps the status and the body's text",
			Reply: reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html>\n  Bad   Gateway\n</html>"},
			Kind:  events.KindServerError, Status: 502, Message: "<html> Bad Gateway </html>", Retryable: true,
		},
		{
			Name:  "a 400 is a bad request that is never retried",
			Reply: reply{Status: 400, Body: ErrorBody("invalid_request_error", "Invalid 'messages'")},
			Kind:  events.KindBadRequest, Status: 400, Message: "Invalid 'messages'", Retryable: false,
		},
		{
			Name:  "a 401 is an auth failure",
			Reply: reply{Status: 401, Body: ErrorBody("invalid_request_error", "Incorrect API key provided")},
			Kind:  events.KindAuth, Status: 401, Message: "Incorrect API key provided", Retryable: false,
		},
	}, h.IsSDKError)
}

func (h Harness) testMalformedResponsesAreErrorsNotPanics(t *testing.T) {
	wiretest.MalformedResponses(t, h.Adapter, []wiretest.Body{
		{Name: "a body that is not JSON", Body: `{"choices": [ this is not json`},
		{Name: "a body with no choices", Body: `{"id":"x","object":"chat.completion","choices":[]}`},
		{Name: "a body that is a JSON string", Body: `"hello"`},
		{Name: "a tool call of a type never declared", Body: `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{"name":"x","input":"y"}}]}}]}`},
	})
}

func (h Harness) testTransportFailures(t *testing.T) {
	wiretest.TransportFailures(t, h.Adapter)
}

func (h Harness) testWithNativeSchemaSendsAJSONSchemaResponseFormat(t *testing.T) {
	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		t.Fatal(err)
	}
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Paris?"}}, OutputSchema: s.JSON()}

	t.Run("with the option, response_format carries the schema inlined at the root", func(t *testing.T) {
		srv := newFakeServer(t, okReply(Completion(`{"city":"Paris","tempC":18}`)))
		if _, err := h.New(srv.URL, "gpt-4o-mini", WithNativeSchema(native.OpenAI)).Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		body := srv.requests()[0]
		got, _ := DecodeRequest(t, body)
		rf := got.ResponseFormat
		if rf == nil || rf.Type != "json_schema" || rf.JSONSchema.Name != "Weather" || rf.JSONSchema.Strict == nil || !*rf.JSONSchema.Strict {
			t.Fatalf("response_format = %+v, want json_schema named Weather, strict", rf)
		}
		var schema struct {
			Type                 string   `json:"type"`
			Required             []string `json:"required"`
			AdditionalProperties *bool    `json:"additionalProperties"`
			Ref                  string   `json:"$ref"`
		}
		if err := json.Unmarshal(rf.JSONSchema.Schema, &schema); err != nil {
			t.Fatal(err)
		}
		if schema.Type != "object" || schema.Ref != "" || !slices.Equal(schema.Required, []string{"city", "tempC"}) || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
			t.Errorf("schema = %s, want the Weather object at the root", rf.JSONSchema.Schema)
		}
		CheckGolden(t, "native_schema_request.json", body)
	})
	t.Run("without the option, no response_format is sent", func(t *testing.T) {
		srv := newFakeServer(t, okReply(Completion(`{"city":"Paris","tempC":18}`)))
		if _, err := h.New(srv.URL, "gpt-4o-mini").Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if _, keys := DecodeRequest(t, srv.requests()[0]); keys["response_format"] != nil {
			t.Errorf("response_format = %s, want it absent", keys["response_format"])
		}
	})
	t.Run("with the option but no output schema, no response_format is sent", func(t *testing.T) {
		srv := newFakeServer(t, okReply(PlainCompletion))
		if _, err := h.New(srv.URL, "gpt-4o-mini", WithNativeSchema(native.OpenAI)).Generate(context.Background(), agent.Request{}); err != nil {
			t.Fatal(err)
		}
		if _, keys := DecodeRequest(t, srv.requests()[0]); keys["response_format"] != nil {
			t.Errorf("response_format = %s, want it absent", keys["response_format"])
		}
	})
}

func (h Harness) testBadRequestInputIsRefusedBeforeSending(t *testing.T) {
	wiretest.BadInputIsRefused(t, h.Adapter)
}

func (h Harness) testAStatusOutsideHTTPsRangeIsAnUnknownFailureWithoutTheStatus(t *testing.T) {
	wiretest.AStatusOutsideHTTP(t, h.Adapter, ErrorBody("api_error", "odd"))
}

// weatherArgs are the arguments of the weather tool.
type weatherArgs struct {
	City string `json:"city"`
}

// Weather is an answer whose schema is named Weather.
type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}
