package gemini

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

func TestGenerateSendsThePlainConversationAndMapsTheAnswer(t *testing.T) {
	srv := newFakeServer(t, okReply(response("STOP",
		`{"promptTokenCount":52,"candidatesTokenCount":9,"cachedContentTokenCount":40,"thoughtsTokenCount":30,"totalTokenCount":91}`,
		`{"text":"thinking about Paris","thought":true}`, text(`{"city":"Paris",`), text(`"tempC":18}`))))
	m := New(srv.client(t), "gemini-2.5-flash")
	resp, err := m.Generate(t.Context(), agent.Request{Messages: []agent.Message{
		{Role: agent.RoleSystem, Content: "Answer in JSON."},
		{Role: agent.RoleUser, Content: "Weather in Paris?"},
		{Role: agent.RoleAssistant, Content: "It is sunny."},
		{Role: agent.RoleUser, Content: "Only JSON, please."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := agent.Response{
		Message: agent.Message{Role: agent.RoleAssistant, Content: `{"city":"Paris","tempC":18}`, Reasoning: "thinking about Paris"},
		Usage:   agent.Usage{InputTokens: 52, OutputTokens: 39, CachedTokens: 40, ReasoningTokens: 30, Detailed: true},
		Stop:    agent.StopComplete, StopRaw: "STOP",
	}
	if got := resp; !equalResponse(got, want) {
		t.Errorf("response = %+v, want %+v", got, want)
	}
	if got, want := srv.Paths(), []string{"POST /v1beta/models/gemini-2.5-flash:generateContent"}; !slices.Equal(got, want) {
		t.Errorf("paths = %v, want %v", got, want)
	}
	checkGolden(t, "plain_request.json", srv.requests()[0])
}

func equalResponse(a, b agent.Response) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb) && a.Stop == b.Stop && a.StopRaw == b.StopRaw && a.Usage == b.Usage
}

func TestToolCallRoundTripSendsTheResultWithTheCallID(t *testing.T) {
	srv := newFakeServer(t, okReply(answer("ok")))
	m := New(srv.client(t), "gemini-2.5-flash")
	lookup := agent.ToolSpec{Name: "lookup", Description: "looks a city up",
		Parameters: json.RawMessage(`{"$ref":"#/$defs/Args","$defs":{"Args":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}`)}
	// The first call came with an ID and a thought signature, the second
	// with neither (the adapter named it call_1).
	first := callID(&genai.FunctionCall{ID: "fc-1"}, []byte("sig-bytes"), 0)
	_, err := m.Generate(t.Context(), agent.Request{
		Tools: []agent.ToolSpec{lookup},
		Messages: []agent.Message{
			{Role: agent.RoleUser, Content: "Weather in Paris and Rome?"},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{
				{ID: first, Name: "lookup", Arguments: json.RawMessage(`{"city":"Paris"}`)},
				{ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{"city":"Ro`)},
			}},
			{Role: agent.RoleTool, ToolCallID: first, Content: "18C"},
			{Role: agent.RoleTool, ToolCallID: "call_1", Content: "bad arguments"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "tool_result_request.json", srv.requests()[0])
}

func TestGenerateMapsFunctionCallsFromTheResponse(t *testing.T) {
	srv := newFakeServer(t, okReply(response("STOP", "",
		text("Looking both up."),
		`{"functionCall":{"id":"fc-1","name":"lookup","args":{"city":"Paris"}},"thoughtSignature":"c2lnLWJ5dGVz"}`,
		funcCall("", "lookup", `{"city":"Rome"}`),
		funcCall("", "clock", `{}`))))
	resp, err := New(srv.client(t), "gemini-2.5-flash").Generate(t.Context(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.ToolCall{
		{ID: "fc-1|ts:c2lnLWJ5dGVz", Name: "lookup", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{"city":"Rome"}`)},
		{ID: "call_2", Name: "clock", Arguments: json.RawMessage(`{}`)},
	}
	got, _ := json.Marshal(resp.Message.ToolCalls)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("tool calls = %s, want %s", got, wantJSON)
	}
	if got, want := resp.Message.Content, "Looking both up."; got != want {
		t.Errorf("content = %q, want %q", got, want)
	}
	if got, want := resp.Stop, agent.StopToolUse; got != want {
		t.Errorf("stop = %q, want %q (STOP with calls)", got, want)
	}
	if resp.Usage != (agent.Usage{}) {
		t.Errorf("usage = %+v, want none: the reply reported none", resp.Usage)
	}
}

func TestGenerateSaysWhyTheReplyEnded(t *testing.T) {
	var cases []wiretest.Ended
	for _, tt := range []struct {
		finish string
		want   agent.StopReason
	}{
		{"STOP", agent.StopComplete},
		{"MAX_TOKENS", agent.StopLength},
		{"CONTINUATION", agent.StopLength},
		{"SAFETY", agent.StopContentFilter},
		{"RECITATION", agent.StopContentFilter},
		{"PROHIBITED_CONTENT", agent.StopContentFilter},
		{"BLOCKLIST", agent.StopContentFilter},
		{"SPII", agent.StopContentFilter},
		{"LANGUAGE", agent.StopUnknown},
		{"MALFORMED_FUNCTION_CALL", agent.StopUnknown},
		{"OTHER", agent.StopUnknown},
		{"A_REASON_FROM_THE_FUTURE", agent.StopUnknown},
	} {
		cases = append(cases, wiretest.Ended{Name: tt.finish + " is " + string(tt.want), Body: response(tt.finish, "", text("partial")), Stop: tt.want, Raw: tt.finish, Content: "partial"})
	}
	wiretest.StopReasons(t, adapter, cases)
	t.Run("a blocked prompt is a content filter stop with the reason", func(t *testing.T) {
		srv := newFakeServer(t, okReply(`{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT","blockReasonMessage":"blocked"},"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7}}`))
		resp, err := New(srv.client(t), "gemini-test").Generate(t.Context(), plain())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Stop != agent.StopContentFilter || resp.StopRaw != "PROHIBITED_CONTENT" || resp.Message.Content != "blocked" {
			t.Errorf("response = %+v, want a content filter stop, PROHIBITED_CONTENT, its message", resp)
		}
		if got, want := resp.Usage, (agent.Usage{InputTokens: 7, Detailed: true}); got != want {
			t.Errorf("usage = %+v, want %+v", got, want)
		}
	})
}

func TestAgentDoesNotJudgeAFilteredReply(t *testing.T) {
	wiretest.AgentWithheld(t, adapter, []wiretest.Withheld{{
		Name: "a filtered reply", Reply: okReply(response("SAFETY", "", text(`{"city":"Par`))),
		Stop: agent.StopContentFilter, Raw: "SAFETY", Text: `{"city":"Par`,
	}})
}

func plain() agent.Request {
	return agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}
}

func TestProviderErrors(t *testing.T) {
	wiretest.ProviderErrors(t, adapter, []wiretest.Failure{
		{Name: "RESOURCE_EXHAUSTED carries its retry delay in RetryInfo",
			Reply: reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted",
				`{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[]}`, retryInfo("38s"))},
			Kind: events.KindRateLimit, Status: 429, RetryAfter: 38 * time.Second, Message: "Resource has been exhausted", Retryable: true},
		{Name: "a fractional retry delay",
			Reply: reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", "slow down", retryInfo("0.250s"))},
			Kind:  events.KindRateLimit, Status: 429, RetryAfter: 250 * time.Millisecond, Message: "slow down", Retryable: true},
		{Name: "an absurd retry delay is capped",
			Reply: reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", "slow down", retryInfo("1e300s"))},
			Kind:  events.KindRateLimit, Status: 429, RetryAfter: 24 * time.Hour, Message: "slow down", Retryable: true},
		{Name: "without RetryInfo, Retry-After",
			Reply: reply{Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: errorBody(429, "RESOURCE_EXHAUSTED", "slow down")},
			Kind:  events.KindRateLimit, Status: 429, RetryAfter: 3 * time.Second, Message: "slow down", Retryable: true},
		{Name: "INVALID_ARGUMENT is a bad request",
			Reply: reply{Status: 400, Body: errorBody(400, "INVALID_ARGUMENT", "Invalid JSON payload")},
			Kind:  events.KindBadRequest, Status: 400, Message: "Invalid JSON payload"},
		{Name: "a bad API key",
			Reply: reply{Status: 403, Body: errorBody(403, "PERMISSION_DENIED", "API key not valid")},
			Kind:  events.KindAuth, Status: 403, Message: "API key not valid"},
		{Name: "an unknown model",
			Reply: reply{Status: 404, Body: errorBody(404, "NOT_FOUND", "models/nope is not found")},
			Kind:  events.KindBadRequest, Status: 404, Message: "models/nope is not found"},
		{Name: "INTERNAL is a server error",
			Reply: reply{Status: 500, Body: errorBody(500, "INTERNAL", "An internal error has occurred")},
			Kind:  events.KindServerError, Status: 500, Message: "An internal error has occurred", Retryable: true},
		{Name: "UNAVAILABLE is overloaded",
			Reply: reply{Status: 503, Body: errorBody(503, "UNAVAILABLE", "The model is overloaded")},
			Kind:  events.KindOverloaded, Status: 503, Message: "The model is overloaded", Retryable: true},
		{Name: "a proxy's HTML page keeps its status",
			Reply: reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html>Bad gateway</html>"},
			Kind:  events.KindServerError, Status: 502, Message: "<html>Bad gateway</html>", Retryable: true},
	}, func(err error) bool {
		var apiErr genai.APIError
		return errors.As(err, &apiErr)
	})
}

func TestAnAPIErrorUnwrapsToTheSDKError(t *testing.T) {
	srv := newFakeServer(t, reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", "slow down", retryInfo("2s"))})
	_, err := New(srv.client(t), "gemini-test").Generate(t.Context(), plain())
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != "RESOURCE_EXHAUSTED" {
		t.Errorf("err = %v, want it to unwrap to the SDK's genai.APIError", err)
	}
}

func TestMalformedResponsesAreErrorsNotPanics(t *testing.T) {
	wiretest.MalformedResponses(t, adapter, []wiretest.Body{
		{Name: "an HTML page with a 200", Body: "<html>maintenance</html>"},
		{Name: "no candidates", Body: `{}`},
		{Name: "candidates null", Body: `{"candidates":null}`},
		{Name: "a JSON array", Body: `[1,2]`},
		{Name: "a body cut short", Body: `{"candidates":[{"content":`},
	})
}

func TestTransportFailures(t *testing.T) {
	wiretest.TransportFailures(t, adapter)
	t.Run("a chunked body that ends early is a retryable connection error", func(t *testing.T) {
		srv := newFakeServer(t, reply{Status: 200, Body: `{"candidates":[{"content":{"parts":[{"text":"{\"ci`, Cut: true})
		_, err := New(srv.client(t), "gemini-test").Generate(t.Context(), plain())
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.Kind != events.KindConnection || !pe.Retryable() {
			t.Errorf("err = %v, want a retryable connection error", err)
		}
	})
	t.Run("an error body that ends early keeps its status", func(t *testing.T) {
		// Events flush the start of the body before the cut.
		srv := newFakeServer(t, reply{Status: 429, Events: []string{`{"error":{"code":429,"mess`}, Cut: true})
		_, err := New(srv.client(t), "gemini-test").Generate(t.Context(), plain())
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.Kind != events.KindRateLimit || pe.HTTPStatus != 429 {
			t.Errorf("err = %v, want the 429", err)
		}
	})
}

func TestNoHiddenSDKRetries(t *testing.T) {
	t.Run("a client set to retry is sent one attempt", func(t *testing.T) {
		srv := newFakeServer(t, reply{Status: 503, Body: errorBody(503, "UNAVAILABLE", "overloaded")})
		_, err := New(srv.client(t, retrying), "gemini-test").Generate(t.Context(), plain())
		var pe *agent.ProviderError
		if !errors.As(err, &pe) || pe.Kind != events.KindOverloaded {
			t.Errorf("err = %v, want the overload", err)
		}
		if n := len(srv.requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
	t.Run("a WithConfig that sets headers still sends one attempt", func(t *testing.T) {
		srv := newFakeServer(t, reply{Status: 503, Body: errorBody(503, "UNAVAILABLE", "overloaded")})
		headers := WithConfig(func(c *genai.GenerateContentConfig) {
			c.HTTPOptions = &genai.HTTPOptions{Headers: http.Header{"X-Trace": {"1"}}}
		})
		if _, err := New(srv.client(t, retrying), "gemini-test", headers).Generate(t.Context(), plain()); err == nil {
			t.Error("err = nil, want the overload")
		}
		if n := len(srv.requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
	t.Run("WithClientRetries keeps the client's retries", func(t *testing.T) {
		srv := newFakeServer(t, reply{Status: 503, Body: errorBody(503, "UNAVAILABLE", "overloaded")}, okReply(answer("ok")))
		resp, err := New(srv.client(t, retrying), "gemini-test", WithClientRetries()).Generate(t.Context(), plain())
		if err != nil || resp.Message.Content != "ok" {
			t.Errorf("Generate = %+v, %v; want ok after the SDK's retry", resp, err)
		}
	})
	t.Run("a reply to be continued is not continued behind the agent's back", func(t *testing.T) {
		srv := newFakeServer(t, okReply(`{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"city\":"}]},"finishReason":"CONTINUATION","continuationToken":"dG9rZW4=","index":0}]}`))
		resp, err := New(srv.client(t), "gemini-test").Generate(t.Context(), plain())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Stop != agent.StopLength {
			t.Errorf("stop = %q, want %q", resp.Stop, agent.StopLength)
		}
		if n := len(srv.requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
}

func TestWithNativeSchemaSendsAResponseJSONSchema(t *testing.T) {
	schema, err := enforce.SchemaFor[Weather]()
	if err != nil {
		t.Fatal(err)
	}
	req := agent.Request{Messages: plain().Messages, OutputSchema: json.RawMessage(schema.JSON())}
	t.Run("with the option, the schema goes inlined at the root, with the JSON MIME type", func(t *testing.T) {
		srv := newFakeServer(t, okReply(answer(`{"city":"Paris","tempC":18}`)))
		if _, err := New(srv.client(t), "gemini-test", WithNativeSchema()).Generate(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, "native_schema_request.json", srv.requests()[0])
	})
	t.Run("without the option, none is sent", func(t *testing.T) {
		srv := newFakeServer(t, okReply(answer("ok")))
		if _, err := New(srv.client(t), "gemini-test").Generate(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		if got := string(srv.requests()[0]); strings.Contains(got, "responseJsonSchema") || strings.Contains(got, "responseMimeType") {
			t.Errorf("request = %s, want no response schema", got)
		}
	})
	t.Run("with the option but no output schema, none is sent", func(t *testing.T) {
		srv := newFakeServer(t, okReply(answer("ok")))
		if _, err := New(srv.client(t), "gemini-test", WithNativeSchema()).Generate(t.Context(), plain()); err != nil {
			t.Fatal(err)
		}
		if got := string(srv.requests()[0]); strings.Contains(got, "responseJsonSchema") {
			t.Errorf("request = %s, want no response schema", got)
		}
	})
}

func TestWithConfigAdjustsTheRequest(t *testing.T) {
	srv := newFakeServer(t, okReply(answer("ok")))
	m := New(srv.client(t), "gemini-test", WithConfig(func(c *genai.GenerateContentConfig) {
		c.MaxOutputTokens = 256
		c.Temperature = genai.Ptr[float32](0)
	}))
	if _, err := m.Generate(t.Context(), plain()); err != nil {
		t.Fatal(err)
	}
	r, _ := decodeRequest(t, srv.requests()[0])
	if got, want := string(r.GenerationConfig["maxOutputTokens"]), "256"; got != want {
		t.Errorf("maxOutputTokens = %s, want %s", got, want)
	}
	if got, want := string(r.GenerationConfig["temperature"]), "0"; got != want {
		t.Errorf("temperature = %s, want %s", got, want)
	}
}

func TestInvalidConfigurationFailsEveryCall(t *testing.T) {
	srv := newFakeServer(t)
	client := srv.client(t)
	wiretest.InvalidOptions(t, []wiretest.Configured{
		{Name: "a nil client", Model: New(nil, "gemini-test")},
		{Name: "an empty model name", Model: New(client, "")},
		{Name: "WithConfig(nil)", Model: New(client, "gemini-test", WithConfig(nil))},
		{Name: "a reply bound below 1 KiB", Model: New(client, "gemini-test", WithMaxReplyBytes(100))},
	})
}

func TestBadRequestInputIsRefusedBeforeSending(t *testing.T) {
	wiretest.BadInputIsRefused(t, adapter)
}

func TestAStatusOutsideHTTPsRangeIsAnUnknownFailureWithoutTheStatus(t *testing.T) {
	wiretest.AStatusOutsideHTTP(t, adapter, errorBody(999, "ODD", "odd"))
}

func TestModelAndProviderNames(t *testing.T) {
	srv := newFakeServer(t, okReply(answer("ok")))
	gemini := New(srv.client(t), "gemini-2.5-flash")
	vertex := New(srv.client(t, func(c *genai.ClientConfig) { c.Backend = genai.BackendVertexAI }), "gemini-2.5-flash")
	// The adapter's own client keeps the backend of the one it was given.
	if _, err := vertex.Generate(t.Context(), plain()); err != nil {
		t.Fatal(err)
	}
	if got, want := srv.Paths(), []string{"POST /v1beta1/publishers/google/models/gemini-2.5-flash:generateContent"}; !slices.Equal(got, want) {
		t.Errorf("Vertex AI paths = %v, want %v", got, want)
	}
	for _, tt := range []struct{ got, want string }{
		{gemini.ModelName(), "gemini-2.5-flash"},
		{gemini.ProviderName(), "gcp.gemini"},
		{vertex.ProviderName(), "gcp.vertex_ai"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestRequireToolCallSendsModeAnyOnlyWithTools(t *testing.T) {
	wiretest.RequireToolCallOnlyWithTools(t, adapter, answer("ok"))
}

func TestSplitCallIDReadsWhatCallIDWrote(t *testing.T) {
	for _, tt := range []struct {
		name, id   string
		wantID     string
		wantSig    string
		fromCallID bool
		givenID    string
		givenSig   string
		callIndex  int
	}{
		{name: "the API's ID and a signature", fromCallID: true, givenID: "fc-9", givenSig: "\x00\xffsig", wantID: "fc-9", wantSig: "\x00\xffsig"},
		{name: "a made-up ID is sent as none", fromCallID: true, callIndex: 3, wantID: ""},
		{name: "a made-up ID with a signature", fromCallID: true, callIndex: 0, givenSig: "s", wantID: "", wantSig: "s"},
		{name: "an ID of the agent's own", id: "call_1_1", wantID: "call_1_1"},
		{name: "a mark with no base64 after it stays in the ID", id: "x|ts:!!", wantID: "x|ts:!!"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id := tt.id
			if tt.fromCallID {
				id = callID(&genai.FunctionCall{ID: tt.givenID}, []byte(tt.givenSig), tt.callIndex)
			}
			gotID, gotSig := splitCallID(id)
			if gotID != tt.wantID || string(gotSig) != tt.wantSig {
				t.Errorf("splitCallID(%q) = %q, %q; want %q, %q", id, gotID, gotSig, tt.wantID, tt.wantSig)
			}
		})
	}
}

// A Retry-After past the cap, however large, reads as the cap (24 h),
// not as absent.
func TestARetryAfterPastTheCapIsTheCap(t *testing.T) {
	wiretest.ARetryAfterPastTheCapIsTheCap(t, adapter)
}
