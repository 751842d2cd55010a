// Package openaiwiretest is the suite both adapters of OpenAI's chat
// completions wire run (providers/openai over openai-go, providers/goopenai
// over go-openai): each scenario drives the adapter against a scripted
// server and checks one behaviour both document alike. An adapter's module
// runs it with one test function, [Run], given a [Harness] that builds the
// adapter; what differs between the clients stays in each module's tests.
package openaiwiretest

import (
	"encoding/json"
	"flag"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

var update = flag.Bool("update", false, "rewrite the golden request bodies in testdata/")

// Model is the adapter under test.
type Model interface {
	agent.StreamingModel
	agent.ModeReporter
}

// Harness is how the suite builds the adapter under test.
type Harness struct {
	// Adapter drives wiretest's scenarios; its Streams is [StreamOf].
	wiretest.Adapter
	// Build returns the adapter asking for model over a client of the
	// server at url, configured as a user would, with o's options.
	Build func(url, model string, o Options) Model
	// IsSDKError reports the error the client's SDK returns for an error
	// body, which a ProviderError must unwrap to.
	IsSDKError func(error) bool
	// SendsStream says that an unstreamed request carries "stream": false
	// (go-openai's always does), where it would carry no "stream".
	SendsStream bool
	// ReasoningContentOnly says that the client decodes a reply's thinking
	// from reasoning_content alone, dropping a reasoning member.
	ReasoningContentOnly bool
}

// Options are the adapter options a scenario asks for.
type Options struct {
	Native     native.Profile // WithNativeSchema's profile; "" for none
	Unstreamed bool           // WithoutStreaming
	Reasoning  bool           // WithReasoning
	Invalid    bool           // an option the adapter refuses: WithParams(nil)
}

// Option sets one of [Options].
type Option func(*Options)

// WithNativeSchema asks for the adapter's WithNativeSchema(p).
func WithNativeSchema(p native.Profile) Option { return func(o *Options) { o.Native = p } }

// WithoutStreaming asks for the adapter's WithoutStreaming().
func WithoutStreaming() Option { return func(o *Options) { o.Unstreamed = true } }

// WithReasoning asks for the adapter's WithReasoning().
func WithReasoning() Option { return func(o *Options) { o.Reasoning = true } }

// withAnInvalidOption asks for an option the adapter refuses.
func withAnInvalidOption() Option { return func(o *Options) { o.Invalid = true } }

// New is the adapter for model over a client of the server at url.
func (h Harness) New(url, model string, opts ...Option) Model {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	return h.Build(url, model, o)
}

// Run runs every scenario of the suite against h's adapter, each as a
// subtest named as the test it was.
func Run(t *testing.T, h Harness) {
	for _, tt := range []struct {
		name string
		test func(*testing.T)
	}{
		{"TestAgentRetriesAProseAnswerThroughTheAdapter", h.testAgentRetriesAProseAnswerThroughTheAdapter},
		{"TestAgentModelRetryRetriesARateLimitOnce", h.testAgentModelRetryRetriesARateLimitOnce},
		{"TestAgentCutsADoomedAnswerOffMidStream", h.testAgentCutsADoomedAnswerOffMidStream},
		{"TestRunElementsThroughTheWire", h.testRunElementsThroughTheWire},
		{"TestAgentChoiceThroughTheWire", h.testAgentChoiceThroughTheWire},
		{"TestAgentChoiceAsAnOutputToolThroughTheWire", h.testAgentChoiceAsAnOutputToolThroughTheWire},
		{"TestAgentChoiceInStrictModeThroughTheWire", h.testAgentChoiceInStrictModeThroughTheWire},
		{"TestAgentTextCutAtAForbiddenSubstringThroughTheWire", h.testAgentTextCutAtAForbiddenSubstringThroughTheWire},
		{"TestAutoOutputModeThroughTheWire", h.testAutoOutputModeThroughTheWire},
		{"TestOutputModesSaysWhatTheEndpointTakes", h.testOutputModesSaysWhatTheEndpointTakes},
		{"TestAReasoningModelsModesOnAServerThatIgnoresTheFormat", h.testAReasoningModelsModesOnAServerThatIgnoresTheFormat},
		{"TestARefusedOutputModeIsOnTheProviderError", h.testARefusedOutputModeIsOnTheProviderError},
		{"TestAgentCutsADoomedOutputToolCallOffMidStream", h.testAgentCutsADoomedOutputToolCallOffMidStream},
		{"TestAgentOutputToolThroughTheWire", h.testAgentOutputToolThroughTheWire},
		{"TestRequireToolCallSendsToolChoiceOnlyWithTools", h.testRequireToolCallSendsToolChoiceOnlyWithTools},
		{"TestAgentOutputToolProseInsteadOfTheCallThroughTheWire", h.testAgentOutputToolProseInsteadOfTheCallThroughTheWire},
		{"TestEachCompatibleProfileIsNeverRefusedByItsServer", h.testEachCompatibleProfileIsNeverRefusedByItsServer},
		{"TestDeepSeekIsNeverSentASchema", h.testDeepSeekIsNeverSentASchema},
		{"TestGenerateSaysWhyTheReplyEnded", h.testGenerateSaysWhyTheReplyEnded},
		{"TestAgentThroughTheWire", h.testAgentThroughTheWire},
		{"TestAgentUnionToolsThroughTheWire", h.testAgentUnionToolsThroughTheWire},
		{"TestAgentUnionNativeThroughTheWire", h.testAgentUnionNativeThroughTheWire},
		{"TestUsageCountsCachedAndReasoningTokens", h.testUsageCountsCachedAndReasoningTokens},
		{"TestGenerateStreamAddsUpToWhatGenerateReturns", h.testGenerateStreamAddsUpToWhatGenerateReturns},
		{"TestGenerateStreamSendsAStreamedRequestAskingForUsage", h.testGenerateStreamSendsAStreamedRequestAskingForUsage},
		{"TestGenerateStreamYieldsEachDeltaAsItArrives", h.testGenerateStreamYieldsEachDeltaAsItArrives},
		{"TestGenerateStreamClassifiesFailuresAsGenerateDoes", h.testGenerateStreamClassifiesFailuresAsGenerateDoes},
		{"TestGenerateStreamClosesTheConnectionWhenTheConsumerStops", h.testGenerateStreamClosesTheConnectionWhenTheConsumerStops},
		{"TestGenerateStreamRefusesBadInputBeforeSending", h.testGenerateStreamRefusesBadInputBeforeSending},
		{"TestBreakingOutOfATypedStreamLeavesNothingBehind", h.testBreakingOutOfATypedStreamLeavesNothingBehind},
		{"TestAServerThatDoesNotStreamIsToldSo", h.testAServerThatDoesNotStreamIsToldSo},
		{"TestWithoutStreamingAsksForWholeReplies", h.testWithoutStreamingAsksForWholeReplies},
		{"TestAnAgentRunsOverAServerThatDoesNotStream", h.testAnAgentRunsOverAServerThatDoesNotStream},
		{"TestNativeSchemaIsNeverRefusedByAStrictServer", h.testNativeSchemaIsNeverRefusedByAStrictServer},
		{"TestNativeSchemaNullsForOptionalMembersPassTheContract", h.testNativeSchemaNullsForOptionalMembersPassTheContract},
		{"TestNativeSchemaADroppedKeywordIsStillJudged", h.testNativeSchemaADroppedKeywordIsStillJudged},
		{"TestWithNativeSchemaRefusesAnUnknownProfile", h.testWithNativeSchemaRefusesAnUnknownProfile},
		{"TestWithNativeSchemaForALocalServerSendsItsSubset", h.testWithNativeSchemaForALocalServerSendsItsSubset},
		{"TestReasoningFieldsAreThinking", h.testReasoningFieldsAreThinking},
		{"TestReasoningSentBack", h.testReasoningSentBack},
		{"TestGenerateSendsThePlainConversationAndMapsTheAnswer", h.testGenerateSendsThePlainConversationAndMapsTheAnswer},
		{"TestToolCallRoundTripSendsTheResultWithTheCallID", h.testToolCallRoundTripSendsTheResultWithTheCallID},
		{"TestGenerateMapsToolCallsFromTheResponse", h.testGenerateMapsToolCallsFromTheResponse},
		{"TestProviderErrors", h.testProviderErrors},
		{"TestMalformedResponsesAreErrorsNotPanics", h.testMalformedResponsesAreErrorsNotPanics},
		{"TestTransportFailures", h.testTransportFailures},
		{"TestWithNativeSchemaSendsAJSONSchemaResponseFormat", h.testWithNativeSchemaSendsAJSONSchemaResponseFormat},
		{"TestBadRequestInputIsRefusedBeforeSending", h.testBadRequestInputIsRefusedBeforeSending},
		{"TestAStatusOutsideHTTPsRangeIsAnUnknownFailureWithoutTheStatus", h.testAStatusOutsideHTTPsRangeIsAnUnknownFailureWithoutTheStatus},
		{"TestAReplyIsReadNoFurtherThanItsBounds", h.testAReplyIsReadNoFurtherThanItsBounds},
		{"TestAStreamedReplyEndsAtItsFinishReason", h.testAStreamedReplyEndsAtItsFinishReason},
		{"TestAWebPageIsTheSameFailureStreamedOrNot", h.testAWebPageIsTheSameFailureStreamedOrNot},
		{"TestARetryAfterPastTheCapIsTheCap", h.testARetryAfterPastTheCapIsTheCap},
		{"TestUsageWithEveryDeltaRidesOnTheDeltasChunk", h.testUsageWithEveryDeltaRidesOnTheDeltasChunk},
		{"TestARunOverAReplyPastItsBoundFailsWithErrModel", h.testARunOverAReplyPastItsBoundFailsWithErrModel},
		{"TestFormatStepThroughTheWire", h.testFormatStepThroughTheWire},
		{"TestAgentCutsADoomedToolCallOffMidStream", h.testAgentCutsADoomedToolCallOffMidStream},
	} {
		t.Run(tt.name, tt.test)
	}
	if h.ReasoningContentOnly {
		t.Run("TestAReasoningMemberGoOpenAIDropsLeavesTheAnswer", h.testAReasoningMemberGoOpenAIDropsLeavesTheAnswer)
	}
}

// reply is one scripted HTTP response.
type reply = wiretest.Reply

// okReply is a 200 with a chat completions body.
func okReply(body string) reply { return wiretest.OK(body) }

// fakeServer speaks the chat completions wire format from a script and keeps
// every request body it received.
type fakeServer struct{ *wiretest.Server }

func newFakeServer(t *testing.T, script ...reply) *fakeServer {
	t.Helper()
	s := wiretest.NewServer(t, script...)
	s.StreamsWith(StreamOf)
	return &fakeServer{s}
}

// StreamOf is a chat completion body streamed as OpenAI streams it: the
// first choice's thinking (reasoning_content or reasoning), then its
// content (or refusal), in deltas of a few bytes, each tool
// call's id, type and name first and its arguments in fragments, the
// finish_reason, the usage in a last chunk without choices, [DONE]. A body
// that does not decode is sent as one event.
func StreamOf(body string) []string {
	var cc struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content *string `json:"content"`
				Refusal *string `json:"refusal"`
				// The thinking OpenAI-compatible servers give apart
				// (see openaiwire's reasoningFields), streamed first, as they do.
				ReasoningContent *string `json:"reasoning_content"`
				Reasoning        *string `json:"reasoning"`
				ToolCalls        []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if json.Unmarshal([]byte(body), &cc) != nil || len(cc.Choices) == 0 {
		return []string{Event(body)}
	}
	ch := cc.Choices[0]
	jsonOf := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	evs := []string{Delta(`{"role":"assistant","content":"","refusal":null}`, "")}
	for _, f := range [...]struct {
		name string
		text *string
	}{{"reasoning_content", ch.Message.ReasoningContent}, {"reasoning", ch.Message.Reasoning}} {
		if f.text != nil {
			for _, p := range wiretest.Pieces(*f.text, 5) {
				evs = append(evs, Delta(`{`+jsonOf(f.name)+`:`+jsonOf(p)+`}`, ""))
			}
		}
	}
	if c := ch.Message.Content; c != nil {
		for _, p := range wiretest.Pieces(*c, 5) {
			evs = append(evs, Delta(`{"content":`+jsonOf(p)+`}`, ""))
		}
	}
	if r := ch.Message.Refusal; r != nil {
		for _, p := range wiretest.Pieces(*r, 5) {
			evs = append(evs, Delta(`{"refusal":`+jsonOf(p)+`}`, ""))
		}
	}
	for i, tc := range ch.Message.ToolCalls {
		first := map[string]any{"index": i, "type": tc.Type, "function": map[string]string{"name": tc.Function.Name, "arguments": ""}}
		if tc.ID != "" {
			first["id"] = tc.ID
		}
		evs = append(evs, Delta(`{"tool_calls":[`+jsonOf(first)+`]}`, ""))
		for _, p := range wiretest.Pieces(tc.Function.Arguments, 4) {
			evs = append(evs, Delta(`{"tool_calls":[{"index":`+jsonOf(i)+`,"function":{"arguments":`+jsonOf(p)+`}}]}`, ""))
		}
	}
	evs = append(evs, Delta(`{}`, ch.FinishReason))
	if len(cc.Usage) > 0 && string(cc.Usage) != "null" {
		evs = append(evs, Event(`{"id":"chatcmpl-s1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","choices":[],"usage":`+string(cc.Usage)+`}`))
	}
	return append(evs, Done)
}

// ReadRequest reads a chat completions request into wiretest's terms
// (wiretest.Adapter.Read): a message's content is a string or null, a
// tool message one result, a tool call or a tool a function.
func ReadRequest(t *testing.T, body []byte) wiretest.Sent {
	t.Helper()
	req, keys := DecodeRequest(t, body)
	var sent wiretest.Sent
	for i, m := range req.Messages {
		msg := wiretest.Message{Role: m.Role}
		var text *string
		if len(m.Content) > 0 && string(m.Content) != "null" {
			text = new(string)
			if err := json.Unmarshal(m.Content, text); err != nil {
				t.Fatalf("message %d: content %s, want a string", i, m.Content)
			}
		}
		switch m.Role {
		case "tool":
			if text == nil || len(m.ToolCalls) > 0 {
				t.Fatalf("message %d: a tool message %+v, want its content and no calls", i, m)
			}
			msg.Parts = []wiretest.Part{{Kind: "result", ID: m.ToolCallID, Text: *text}}
		case "system", "user", "assistant":
			if text != nil {
				msg.Parts = append(msg.Parts, wiretest.Part{Kind: "text", Text: *text})
			}
			for _, c := range m.ToolCalls {
				if c.Type != "function" {
					t.Fatalf("message %d: a tool call of type %q", i, c.Type)
				}
				msg.Parts = append(msg.Parts, wiretest.Part{Kind: "call", ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
			}
		default:
			t.Fatalf("message %d: role %q", i, m.Role)
		}
		sent.Messages = append(sent.Messages, msg)
	}
	for _, tool := range req.Tools {
		if tool.Type != "function" {
			t.Fatalf("a tool of type %q", tool.Type)
		}
		sent.Tools = append(sent.Tools, wiretest.Tool{Name: tool.Function.Name, Description: tool.Function.Description, Schema: tool.Function.Parameters})
	}
	sent.ToolChoice = wiretest.Field(keys, "tool_choice")
	sent.CallRequired = string(sent.ToolChoice) == `"required"`
	sent.Format = wiretest.Field(keys, "response_format")
	return sent
}

// requests returns the request bodies received so far.
func (f *fakeServer) requests() [][]byte { return f.Requests() }

// WireRequest is a chat completions request body as OpenAI documents it.
type WireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Strict *bool           `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Temperature *float64 `json:"temperature"`
}

// DecodeRequest reads a request body the adapter sent, and its members.
func DecodeRequest(t *testing.T, body []byte) (WireRequest, map[string]json.RawMessage) {
	t.Helper()
	var req WireRequest
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body is not a chat completions request: %v\n%s", err, body)
	}
	if err := json.Unmarshal(body, &keys); err != nil {
		t.Fatal(err)
	}
	return req, keys
}

// roles lists the roles of a request's messages, in order.
func (r WireRequest) roles() []string {
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.Role)
	}
	return out
}

// PlainCompletion is a 200 body answering "Paris.".
const PlainCompletion = `{
  "id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o-mini",
  "choices": [{"index": 0, "finish_reason": "stop",
    "message": {"role": "assistant", "content": "Paris.", "refusal": null}}],
  "usage": {"prompt_tokens": 21, "completion_tokens": 3, "total_tokens": 24}
}`

// ToolCallCompletion is a 200 body calling the weather tool.
const ToolCallCompletion = `{
  "id": "chatcmpl-2", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o-mini",
  "choices": [{"index": 0, "finish_reason": "tool_calls",
    "message": {"role": "assistant", "content": null, "refusal": null,
      "tool_calls": [{"id": "call_abc", "type": "function",
        "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}}]}}],
  "usage": {"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52}
}`

// Completion is a 200 body whose answer is content.
func Completion(content string) string {
	b, _ := json.Marshal(content)
	return `{"id":"chatcmpl-3","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",
"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":` + string(b) + `}}],
"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`
}

// ErrorBody is an error body of OpenAI's of type typ.
func ErrorBody(typ, msg string) string {
	return `{"error":{"message":"` + msg + `","type":"` + typ + `","param":null,"code":null}}`
}

// CheckGolden compares a request body with testdata/name; -update
// rewrites the file.
func CheckGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	wiretest.Golden(t, name, body, *update)
}
