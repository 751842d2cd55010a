package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

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
	tests := []struct {
		name     string
		complete string   // the reply as one body, for Generate
		stream   []string // the same reply streamed
	}{
		{
			"a text answer, with cached prompt tokens",
			plainMessage,
			append([]string{sseStart(21, 0, 5), ssePing, sseBlockStart(0, textStart), sseText(0, "Par"), sseText(0, "is."), sseBlockStop(0)}, sseEnd("end_turn", 3)...),
		},
		{"text, then a tool call", toolUseMessage, toolUseStream},
		{
			"a tool call without input, after whitespace",
			stopped("tool_use", `[{"type":"text","text":"\n\n"},{"type":"tool_use","id":"toolu_2","name":"now","input":{}}]`),
			append([]string{sseStart(10, 0, 0),
				sseBlockStart(0, textStart), sseText(0, "\n\n"), sseBlockStop(0),
				sseBlockStart(1, `{"type":"tool_use","id":"toolu_2","name":"now","input":{}}`), sseBlockStop(1),
			}, sseEnd("tool_use", 5)...),
		},
		{
			"thinking is left out",
			stopped("end_turn", `[{"type":"thinking","thinking":"Paris it is.","signature":"sig"},{"type":"text","text":"Paris."}]`),
			append([]string{sseStart(10, 0, 0),
				sseBlockStart(0, `{"type":"thinking","thinking":"","signature":""}`),
				sseDelta(0, `{"type":"thinking_delta","thinking":"Paris it is."}`),
				sseDelta(0, `{"type":"signature_delta","signature":"sig"}`), sseBlockStop(0),
				sseBlockStart(1, textStart), sseText(1, "Paris."), sseBlockStop(1),
			}, sseEnd("end_turn", 5)...),
		},
		{"a refusal", stopped("refusal", textBlock("I can't help with that.")), textStream("refusal", 10, 5, "I can't ", "help with that.")},
		{"an answer cut at max_tokens", stopped("max_tokens", textBlock(cutAnswer)), textStream("max_tokens", 10, 5, `{"city":`, `"Paris","te`)},
		{"pause_turn", stopped("pause_turn", `[]`), append([]string{sseStart(10, 0, 0)}, sseEnd("pause_turn", 5)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, okReply(tt.complete), wiretest.Stream(tt.stream...))
			m := New(srv.client(), "claude-sonnet-4-5")
			want, err := m.Generate(context.Background(), userTurn)
			if err != nil {
				t.Fatal(err)
			}
			got, err := wiretest.Collect(m.GenerateStream(context.Background(), userTurn))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("streamed reply = %+v,\nwant what Generate returns: %+v", got, want)
			}
		})
	}
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
	srv := newFakeServer(t, wiretest.Stream(toolUseStream...))
	var got []agent.Chunk
	for c, err := range New(srv.client(), "claude-sonnet-4-5").GenerateStream(context.Background(), userTurn) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	want := []agent.Chunk{
		{Usage: agent.Usage{InputTokens: 40, OutputTokens: 1}},
		{Text: "Let me "},
		{Text: "check."},
		{Call: &agent.CallDelta{Index: 0, ID: "toolu_01", Name: "weather"}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `{"city": `}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `"Paris"}`}},
		{Usage: agent.Usage{InputTokens: 40, OutputTokens: 12, Detailed: true}, Stop: agent.StopToolUse, StopRaw: "tool_use"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks:\n%s\nwant:\n%s", wiretest.Show(got), wiretest.Show(want))
	}
}

func TestGenerateStreamClassifiesFailuresAsGenerateDoes(t *testing.T) {
	tests := []struct {
		name       string
		reply      reply
		kind       events.ErrorKind
		status     int
		retryAfter time.Duration
		message    string
		before     string // text yielded before the failure
	}{
		{
			name:  "a 429 with Retry-After before the stream",
			reply: reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: errorBody("rate_limit_error", "Number of request tokens has exceeded your rate limit")},
			kind:  events.KindRateLimit, status: 429, retryAfter: 7 * time.Second, message: "Number of request tokens has exceeded your rate limit",
		},
		{
			name:  "a 529 before the stream",
			reply: reply{Status: 529, Body: errorBody("overloaded_error", "Overloaded")},
			kind:  events.KindOverloaded, status: 529, message: "Overloaded",
		},
		{
			name:  "a 500 before the stream",
			reply: reply{Status: 500, Body: errorBody("api_error", "Internal server error")},
			kind:  events.KindServerError, status: 500, message: "Internal server error",
		},
		{
			name:  "an overloaded_error event mid-stream",
			reply: wiretest.Stream(sseStart(10, 0, 0), sseBlockStart(0, textStart), sseText(0, `{"city":`), sseError("overloaded_error", "Overloaded")),
			kind:  events.KindOverloaded, message: "Overloaded", before: `{"city":`,
		},
		{
			name:  "an api_error event mid-stream",
			reply: wiretest.Stream(sseStart(10, 0, 0), sseError("api_error", "Internal server error")),
			kind:  events.KindServerError, message: "Internal server error",
		},
		{
			name:  "an error event of a type Anthropic does not document",
			reply: wiretest.Stream(sseError("weird_error", "odd")),
			kind:  events.KindUnknown, message: "odd",
		},
		{
			name:  "a connection dropped mid-stream",
			reply: reply{Status: 200, Events: []string{sseStart(10, 0, 0), sseBlockStart(0, textStart), sseText(0, "Par"), sseText(0, "is")}, Cut: true},
			kind:  events.KindConnection, before: "Paris",
		},
		{
			name:  "a stream that ends cleanly before message_stop",
			reply: wiretest.Stream(textStream("end_turn", 10, 5, "Par", "is")[:5]...),
			kind:  events.KindConnection, message: "stream ended before the reply did", before: "Paris",
		},
		{
			name:  "an event that is not JSON",
			reply: wiretest.Stream(sseStart(10, 0, 0), sseBlockStart(0, textStart), sseText(0, "Par"), sse("content_block_delta", `{"type": [ not json`)),
			kind:  events.KindUnknown, status: 200, message: "malformed response body", before: "Par",
		},
		{
			name:  "a message that is not the assistant's",
			reply: wiretest.Stream(sse("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"user","content":[]}}`)),
			kind:  events.KindUnknown, status: 200, message: "malformed response: not an assistant message",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.reply)
			// The client asks for SDK retries; the adapter must still send once.
			m := New(srv.client(option.WithMaxRetries(3)), "claude-sonnet-4-5")
			got, err := wiretest.Collect(m.GenerateStream(context.Background(), userTurn))
			var pe *agent.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v (%T), want *agent.ProviderError", err, err)
			}
			if got, want := pe.System, "anthropic"; got != want {
				t.Errorf("System = %q, want %q", got, want)
			}
			if got, want := pe.Kind, tt.kind; got != want {
				t.Errorf("Kind = %q, want %q (%v)", got, want, pe)
			}
			if got, want := pe.HTTPStatus, tt.status; got != want {
				t.Errorf("HTTPStatus = %d, want %d", got, want)
			}
			if got, want := pe.RetryAfter, tt.retryAfter; got != want {
				t.Errorf("RetryAfter = %v, want %v", got, want)
			}
			if tt.message != "" && pe.Message != tt.message {
				t.Errorf("Message = %q, want %q", pe.Message, tt.message)
			}
			if got, want := pe.Retryable(), tt.kind.Retryable(); got != want {
				t.Errorf("Retryable() = %v, want %v", got, want)
			}
			if got, want := got.Message.Content, tt.before; got != want {
				t.Errorf("text before the failure = %q, want %q", got, want)
			}
			if got := len(srv.requests()); got != 1 {
				t.Errorf("server saw %d requests, want exactly 1: the SDK must not retry", got)
			}
		})
	}
}

func TestGenerateStreamClosesTheConnectionWhenTheConsumerStops(t *testing.T) {
	opening := []string{sseStart(10, 0, 0), sseBlockStart(0, textStart), sseText(0, "Sure! "), sseText(0, "Here is")}
	t.Run("a consumer that breaks out of its loop", func(t *testing.T) {
		gone := make(chan struct{})
		srv := newFakeServer(t, reply{Status: 200, Events: opening, Gone: gone})
		for c, err := range New(srv.client(), "claude-sonnet-4-5").GenerateStream(context.Background(), userTurn) {
			if err != nil {
				t.Fatal(err)
			}
			if c.Text != "" {
				break
			}
		}
		wiretest.WaitGone(t, gone)
	})
	t.Run("a consumer that cancels the context gets its cause", func(t *testing.T) {
		gone := make(chan struct{})
		srv := newFakeServer(t, reply{Status: 200, Events: opening, Gone: gone})
		stop := errors.New("doomed answer")
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		var last error
		for c, err := range New(srv.client(), "claude-sonnet-4-5").GenerateStream(ctx, userTurn) {
			if err != nil {
				last = err
				break
			}
			if c.Text != "" {
				cancel(stop)
			}
		}
		if !errors.Is(last, stop) {
			t.Errorf("err = %v, want the context's cause", last)
		}
		var pe *agent.ProviderError
		if errors.As(last, &pe) {
			t.Errorf("err is a ProviderError (%v), want the cause alone", pe)
		}
		wiretest.WaitGone(t, gone)
	})
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
	gone := make(chan struct{})
	srv := newFakeServer(t, reply{Status: 200, Gone: gone, Events: []string{
		sseStart(10, 0, 0), sseBlockStart(0, textStart), sseText(0, `{"city":"Pa`), sseText(0, `ris","te`),
	}})
	before := runtime.NumGoroutine()
	s := agent.RunTypedStream[Weather](context.Background(), agent.New(New(srv.client(), "claude-sonnet-4-5")), "Weather in Paris?")
	for p := range s.Partials() {
		if p.Value.City != "" {
			break
		}
	}
	if _, _, err := s.Result(); !errors.Is(err, agent.ErrStoppedReading) {
		t.Errorf("err = %v, want ErrStoppedReading", err)
	}
	wiretest.WaitGone(t, gone)
	wiretest.WaitGoroutines(t, before)
}
