package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// The Messages API stream: named events, each with its JSON in one data
// line — message_start (the message, its usage's input tokens),
// content_block_start / content_block_delta / content_block_stop per
// block, message_delta (stop_reason and the output tokens so far),
// message_stop; ping anywhere; an error event instead when the stream
// fails.

// sse is one server-sent event of the stream.
func sse(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func sseStart(input, cacheCreation, cacheRead int) string {
	return sse("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_s1","type":"message","role":"assistant",`+
		`"model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,`+
		`"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":1}}}`,
		input, cacheCreation, cacheRead))
}

const ssePing = "event: ping\ndata: {\"type\": \"ping\"}\n\n"

func sseBlockStart(i int, block string) string {
	return sse("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, i, block))
}

func sseDelta(i int, delta string) string {
	return sse("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, i, delta))
}

func sseText(i int, s string) string {
	b, _ := json.Marshal(s)
	return sseDelta(i, `{"type":"text_delta","text":`+string(b)+`}`)
}

func sseJSON(i int, s string) string {
	b, _ := json.Marshal(s)
	return sseDelta(i, `{"type":"input_json_delta","partial_json":`+string(b)+`}`)
}

func sseBlockStop(i int) string {
	return sse("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func sseEnd(stop string, output int) []string {
	return []string{
		sse("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, output)),
		sse("message_stop", `{"type":"message_stop"}`),
	}
}

func sseError(typ, msg string) string {
	return sse("error", `{"type":"error","error":{"type":"`+typ+`","message":"`+msg+`"}}`)
}

const textStart = `{"type":"text","text":""}`

// textStream streams one text block in pieces, ending with stop.
func textStream(stop string, input, output int, pieces ...string) []string {
	evs := []string{sseStart(input, 0, 0), sseBlockStart(0, textStart), ssePing}
	for _, p := range pieces {
		evs = append(evs, sseText(0, p))
	}
	return append(append(evs, sseBlockStop(0)), sseEnd(stop, output)...)
}

// toolUseStream streams toolUseMessage as the API does.
var toolUseStream = append([]string{
	sseStart(40, 0, 0),
	sseBlockStart(0, textStart), sseText(0, "Let me "), sseText(0, "check."), sseBlockStop(0),
	sseBlockStart(1, `{"type":"tool_use","id":"toolu_01","name":"weather","input":{}}`),
	sseJSON(1, ""), sseJSON(1, `{"city": `), sseJSON(1, `"Paris"}`), sseBlockStop(1),
}, sseEnd("tool_use", 12)...)

var userTurn = agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Weather in Paris?"}}}

func TestGenerateStreamAddsUpToWhatGenerateReturns(t *testing.T) {
	wiretest.StreamAddsUp(t, adapter, []wiretest.Streamed{
		{
			Name:   "a text answer, with cached prompt tokens",
			Body:   plainMessage,
			Events: append([]string{sseStart(21, 0, 5), ssePing, sseBlockStart(0, textStart), sseText(0, "Par"), sseText(0, "is."), sseBlockStop(0)}, sseEnd("end_turn", 3)...),
		},
		{Name: "text, then a tool call", Body: toolUseMessage, Events: toolUseStream},
		{
			Name: "a tool call without input, after whitespace",
			Body: stopped("tool_use", `[{"type":"text","text":"\n\n"},{"type":"tool_use","id":"toolu_2","name":"now","input":{}}]`),
			Events: append([]string{sseStart(10, 0, 0),
				sseBlockStart(0, textStart), sseText(0, "\n\n"), sseBlockStop(0),
				sseBlockStart(1, `{"type":"tool_use","id":"toolu_2","name":"now","input":{}}`), sseBlockStop(1),
			}, sseEnd("tool_use", 5)...),
		},
		{
			Name: "thinking is kept beside the answer, with its signature",
			Body: stopped("end_turn", `[{"type":"thinking","thinking":"Paris it is.","signature":"sig"},{"type":"text","text":"Paris."}]`),
			Events: append([]string{sseStart(10, 0, 0),
				sseBlockStart(0, `{"type":"thinking","thinking":"","signature":""}`),
				sseDelta(0, `{"type":"thinking_delta","thinking":"Paris it is."}`),
				sseDelta(0, `{"type":"signature_delta","signature":"sig"}`), sseBlockStop(0),
				sseBlockStart(1, textStart), sseText(1, "Paris."), sseBlockStop(1),
			}, sseEnd("end_turn", 5)...),
		},
		{Name: "a refusal", Body: stopped("refusal", textBlock("I can't help with that.")), Events: textStream("refusal", 10, 5, "I can't ", "help with that.")},
		{Name: "an answer cut at max_tokens", Body: stopped("max_tokens", textBlock(cutAnswer)), Events: textStream("max_tokens", 10, 5, `{"city":`, `"Paris","te`)},
		{Name: "pause_turn", Body: stopped("pause_turn", `[]`), Events: append([]string{sseStart(10, 0, 0)}, sseEnd("pause_turn", 5)...)},
	})
}

func TestGenerateStreamSendsAStreamedRequest(t *testing.T) {
	srv := newFakeServer(t, wiretest.Stream(textStream("end_turn", 10, 5, "Paris.")...))
	if _, err := wiretest.Collect(New(srv.client(), "claude-sonnet-4-5").GenerateStream(context.Background(), userTurn)); err != nil {
		t.Fatal(err)
	}
	_, keys := decodeRequest(t, srv.requests()[0])
	if got, want := string(keys["stream"]), "true"; got != want {
		t.Errorf("stream = %s, want %s", got, want)
	}
	if got, want := srv.Paths()[0], "POST /v1/messages"; got != want {
		t.Errorf("request = %s, want %s", got, want)
	}
}

func TestGenerateStreamYieldsEachDeltaAsItArrives(t *testing.T) {
	wiretest.StreamYields(t, adapter, toolUseStream, []agent.Chunk{
		{Usage: agent.Usage{InputTokens: 40, OutputTokens: 1}},
		{Text: "Let me "},
		{Text: "check."},
		{Call: &agent.CallDelta{Index: 0, ID: "toolu_01", Name: "weather"}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `{"city": `}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `"Paris"}`}},
		{Usage: agent.Usage{InputTokens: 40, OutputTokens: 12, Detailed: true}, Stop: agent.StopToolUse, StopRaw: "tool_use"},
	})
}

func TestGenerateStreamClassifiesFailuresAsGenerateDoes(t *testing.T) {
	wiretest.StreamFailures(t, adapter, []wiretest.StreamFailure{
		{
			Name:  "a 429 with Retry-After before the stream",
			Reply: reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: errorBody("rate_limit_error", "Number of request tokens has exceeded your rate limit")},
			Kind:  events.KindRateLimit, Status: 429, RetryAfter: 7 * time.Second, Message: "Number of request tokens has exceeded your rate limit",
		},
		{
			Name:  "a 529 before the stream",
			Reply: reply{Status: 529, Body: errorBody("overloaded_error", "Overloaded")},
			Kind:  events.KindOverloaded, Status: 529, Message: "Overloaded",
		},
		{
			Name:  "a 500 before the stream",
			Reply: reply{Status: 500, Body: errorBody("api_error", "Internal server error")},
			Kind:  events.KindServerError, Status: 500, Message: "Internal server error",
		},
		{
			Name:  "an overloaded_error event mid-stream",
			Reply: wiretest.Stream(sseStart(10, 0, 0), sseBlockStart(0, textStart), sseText(0, `{"city":`), sseError("overloaded_error", "Overloaded")),
			Kind:  events.KindOverloaded, Message: "Overloaded", Before: `{"city":`,
		},
		{
			Name:  "an api_error event mid-stream",
			Reply: wiretest.Stream(sseStart(10, 0, 0), sseError("api_error", "Internal server error")),
			Kind:  events.KindServerError, Message: "Internal server error",
		},
		{
			Name:  "an error event of a type Anthropic does not document",
			Reply: wiretest.Stream(sseError("weird_error", "odd")),
			Kind:  events.KindUnknown, Message: "odd",
		},
		{
			Name:  "a connection dropped mid-stream",
			Reply: reply{Status: 200, Events: []string{sseStart(10, 0, 0), sseBlockStart(0, textStart), sseText(0, "Par"), sseText(0, "is")}, Cut: true},
			Kind:  events.KindConnection, Before: "Paris",
		},
		{
			Name:  "a stream that ends cleanly before message_stop",
			Reply: wiretest.Stream(textStream("end_turn", 10, 5, "Par", "is")[:5]...),
			Kind:  events.KindConnection, Message: "stream ended before the reply did", Before: "Paris",
		},
		{
			Name:  "an event that is not JSON",
			Reply: wiretest.Stream(sseStart(10, 0, 0), sseBlockStart(0, textStart), sseText(0, "Par"), sse("content_block_delta", `{"type": [ not json`)),
			Kind:  events.KindUnknown, Status: 200, Message: "malformed response body", Before: "Par",
		},
		{
			Name:  "a message that is not the assistant's",
			Reply: wiretest.Stream(sse("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"user","content":[]}}`)),
			Kind:  events.KindUnknown, Status: 200, Message: "malformed response: not an assistant message",
		},
	})
}

func TestGenerateStreamClosesTheConnectionWhenTheConsumerStops(t *testing.T) {
	wiretest.StreamStopsWithItsConsumer(t, adapter, []string{sseStart(10, 0, 0), sseBlockStart(0, textStart), sseText(0, "Sure! "), sseText(0, "Here is")})
}

func TestGenerateStreamRefusesBadInputBeforeSending(t *testing.T) {
	wiretest.StreamRefusesBadInput(t, adapter, func(t *testing.T, srv *wiretest.Server) agent.StreamingModel {
		return New(clientAt(srv.URL), "claude-sonnet-4-5", WithMaxTokens(0))
	})
}

func TestAToolCallCutOffMidStreamIsSentBackWithAnEmptyInput(t *testing.T) {
	// At max_tokens the input stops mid-object; the API takes only an
	// object as a tool_use input.
	cut := append([]string{sseStart(10, 0, 0),
		sseBlockStart(0, `{"type":"tool_use","id":"toolu_cut","name":"weather","input":{}}`),
		sseJSON(0, `{"city": "Pa`), sseBlockStop(0),
	}, sseEnd("max_tokens", 5)...)
	srv := newFakeServer(t, wiretest.Stream(cut...), okReply(message(`{"city":"Paris","tempC":18}`)))
	ran := false
	tool := agent.NewTool("weather", "Current weather for a city.", func(context.Context, weatherArgs) (string, error) {
		ran = true
		return "18°C", nil
	})
	a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithTools(tool))
	if _, _, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Error("the tool ran with cut-off arguments")
	}
	second, _ := decodeRequest(t, srv.requests()[1])
	if got, want := second.roles(), []string{"user:text", "assistant:tool_use", "user:tool_result"}; !slices.Equal(got, want) {
		t.Fatalf("second request = %v, want %v", got, want)
	}
	if got, want := string(second.Messages[1].Content[0].Input), `{}`; got != want {
		t.Errorf("input of the cut call = %s, want %s", got, want)
	}
}

// A caller that stops reading a typed stream over the adapter ends the
// request: the server sees the connection close, and no goroutine of the
// run or the connection is left behind.
func TestBreakingOutOfATypedStreamLeavesNothingBehind(t *testing.T) {
	wiretest.TypedStreamLeavesNothingBehind(t, adapter, []string{
		sseStart(10, 0, 0), sseBlockStart(0, textStart), sseText(0, `{"city":"Pa`), sseText(0, `ris","te`),
	})
}
