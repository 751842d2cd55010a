package openaiwiretest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// The chat completions stream: one data line per chunk, each chunk a
// chat.completion.chunk whose choices carry a delta; the chunk that ends
// the choice has its finish_reason; with stream_options.include_usage a
// last chunk with no choices carries the usage; then "data: [DONE]".

// Event is one server-sent event of the stream.
func Event(data string) string { return "data: " + data + "\n\n" }

const Done = "data: [DONE]\n\n"

// Delta is a chunk of choice 0 carrying delta (its JSON), finished with
// finish when that is not empty.
func Delta(d, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return Event(`{"id":"chatcmpl-s1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini",` +
		`"system_fingerprint":"fp_1","choices":[{"index":0,"delta":` + d + `,"logprobs":null,"finish_reason":` + f + `}],"usage":null}`)
}

// Content is a delta chunk whose content is s.
func Content(s string) string {
	b, _ := json.Marshal(s)
	return Delta(`{"content":`+string(b)+`}`, "")
}

// Usage is the last chunk of a stream with include_usage.
func Usage(prompt, completion int) string {
	b, _ := json.Marshal(map[string]int{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion})
	return Event(`{"id":"chatcmpl-s1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","choices":[],"usage":` + string(b) + `}`)
}

// TextStream streams s in pieces, then finish, usage and [DONE].
func TextStream(finish string, prompt, completion int, pieces ...string) []string {
	evs := []string{Delta(`{"role":"assistant","content":"","refusal":null}`, "")}
	for _, p := range pieces {
		evs = append(evs, Content(p))
	}
	return append(evs, Delta(`{}`, finish), Usage(prompt, completion), Done)
}

// ToolCallStream streams the calls of toolCallCompletion as OpenAI does:
// the call's id, type and name first, its arguments in fragments.
var ToolCallStream = []string{
	Delta(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"weather","arguments":""}}],"refusal":null}`, ""),
	Delta(`{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]}`, ""),
	Delta(`{"tool_calls":[{"index":0,"function":{"arguments":"city\":\"Par"}}]}`, ""),
	Delta(`{"tool_calls":[{"index":0,"function":{"arguments":"is\"}"}}]}`, ""),
	Delta(`{}`, "tool_calls"),
	Usage(40, 12),
	Done,
}

// UserTurn is a request of one user message.
var UserTurn = agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Weather in Paris?"}}}

func (h Harness) testGenerateStreamAddsUpToWhatGenerateReturns(t *testing.T) {
	wiretest.StreamAddsUp(t, h.Adapter, []wiretest.Streamed{
		{Name: "a text answer", Body: PlainCompletion, Events: TextStream("stop", 21, 3, "Par", "is", ".")},
		{Name: "a tool call", Body: ToolCallCompletion, Events: ToolCallStream},
		{
			Name: "two calls, one without id or arguments",
			Body: `{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
"tool_calls":[{"type":"function","function":{"name":"a","arguments":""}},
              {"id":"x1","type":"function","function":{"name":"b","arguments":"{\"n\":1}"}}]}}],
"usage":{"prompt_tokens":8,"completion_tokens":4,"total_tokens":12}}`,
			Events: []string{
				Delta(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"type":"function","function":{"name":"a","arguments":""}}]}`, ""),
				Delta(`{"tool_calls":[{"index":1,"id":"x1","type":"function","function":{"name":"b","arguments":""}}]}`, ""),
				Delta(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"n\":"}}]}`, ""),
				Delta(`{"tool_calls":[{"index":1,"function":{"arguments":"1}"}}]}`, ""),
				Delta(`{}`, "tool_calls"),
				Usage(8, 4),
				Done,
			},
		},
		{
			Name: "a refusal",
			Body: finished("stop", refusalMsg),
			Events: []string{
				Delta(`{"role":"assistant","content":null,"refusal":""}`, ""),
				Delta(`{"refusal":"I'm sorry, "}`, ""),
				Delta(`{"refusal":"I can't help with that."}`, ""),
				Delta(`{}`, "stop"),
				Usage(10, 5),
				Done,
			},
		},
		{Name: "an answer cut at max tokens", Body: finished("length", text(cutAnswer)), Events: TextStream("length", 10, 5, `{"city":`, `"Paris","te`)},
		{Name: "a finish_reason OpenAI does not document", Body: finished("insufficient_system_resource", text("")), Events: TextStream("insufficient_system_resource", 10, 5)},
	})
}

func (h Harness) testGenerateStreamSendsAStreamedRequestAskingForUsage(t *testing.T) {
	srv := newFakeServer(t, wiretest.Stream(TextStream("stop", 21, 3, "Paris.")...))
	if _, err := wiretest.Collect(h.New(srv.URL, "gpt-4o-mini").GenerateStream(context.Background(), UserTurn)); err != nil {
		t.Fatal(err)
	}
	_, keys := DecodeRequest(t, srv.requests()[0])
	if got, want := string(keys["stream"]), "true"; got != want {
		t.Errorf("stream = %s, want %s", got, want)
	}
	if got, want := string(keys["stream_options"]), `{"include_usage":true}`; got != want {
		t.Errorf("stream_options = %s, want %s", got, want)
	}
	if got, want := srv.Paths()[0], "POST /v1/chat/completions"; got != want {
		t.Errorf("request = %s, want %s", got, want)
	}
}

func (h Harness) testGenerateStreamYieldsEachDeltaAsItArrives(t *testing.T) {
	wiretest.StreamYields(t, h.Adapter, ToolCallStream, []agent.Chunk{
		{Call: &agent.CallDelta{Index: 0, ID: "call_abc", Name: "weather"}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `{"`}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `city":"Par`}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `is"}`}},
		{Stop: agent.StopToolUse, StopRaw: "tool_calls"},
		{Usage: agent.Usage{InputTokens: 40, OutputTokens: 12}},
	})
}

func (h Harness) testGenerateStreamClassifiesFailuresAsGenerateDoes(t *testing.T) {
	wiretest.StreamFailures(t, h.Adapter, []wiretest.StreamFailure{
		{
			Name:  "a 429 with Retry-After before the stream",
			Reply: reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: ErrorBody("rate_limit_exceeded", "Rate limit reached")},
			Kind:  events.KindRateLimit, Status: 429, RetryAfter: 7 * time.Second, Message: "Rate limit reached",
		},
		{
			Name:  "a 500 before the stream",
			Reply: reply{Status: 500, Body: ErrorBody("server_error", "The server had an error")},
			Kind:  events.KindServerError, Status: 500, Message: "The server had an error",
		},
		{
			Name:  "a 503 before the stream",
			Reply: reply{Status: 503, Body: ErrorBody("server_error", "overloaded")},
			Kind:  events.KindOverloaded, Status: 503, Message: "overloaded",
		},
		{
			Name: "an error event mid-stream, by its type",
			Reply: wiretest.Stream(
				Delta(`{"role":"assistant","content":"","refusal":null}`, ""), Content(`{"city":`),
				Event(`{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`)),
			Kind: events.KindServerError, Message: "The server had an error while processing your request.", Before: `{"city":`,
		},
		{
			Name: "a rate limit event mid-stream, by its code",
			Reply: wiretest.Stream(Content("Par"),
				Event(`{"error":{"message":"Rate limit reached","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`)),
			Kind: events.KindRateLimit, Message: "Rate limit reached", Before: "Par",
		},
		{
			Name:  "an error event of a type OpenAI does not send",
			Reply: wiretest.Stream(Event(`{"error":{"message":"odd","type":"weird_error"}}`)),
			Kind:  events.KindUnknown, Message: "odd",
		},
		{
			Name:  "a connection dropped mid-stream",
			Reply: reply{Status: 200, Events: []string{Content("Par"), Content("is")}, Cut: true},
			Kind:  events.KindConnection, Before: "Paris",
		},
		{
			Name:  "a stream that ends cleanly before any finish_reason",
			Reply: wiretest.Stream(Content("Par"), Content("is")),
			Kind:  events.KindConnection, Message: "stream ended before the reply did", Before: "Paris",
		},
		{
			Name:  "a chunk that is not JSON",
			Reply: wiretest.Stream(Content("Par"), Event(`{"choices": [ this is not json`)),
			Kind:  events.KindUnknown, Status: 200, Message: "malformed response body", Before: "Par",
		},
		{
			Name:  "a tool call of a type never declared",
			Reply: wiretest.Stream(Delta(`{"tool_calls":[{"index":0,"id":"c","type":"custom","custom":{"name":"x"}}]}`, "")),
			Kind:  events.KindUnknown, Status: 200, Message: `malformed response: tool call 0 has type "custom"; only function tools are sent`,
		},
	})
}

func (h Harness) testGenerateStreamClosesTheConnectionWhenTheConsumerStops(t *testing.T) {
	wiretest.StreamStopsWithItsConsumer(t, h.Adapter, []string{Content("Sure! "), Content("Here is")})
}

func (h Harness) testGenerateStreamRefusesBadInputBeforeSending(t *testing.T) {
	wiretest.StreamRefusesBadInput(t, h.Adapter, func(t *testing.T, srv *wiretest.Server) agent.StreamingModel {
		return h.New(srv.URL, "gpt-4o-mini", withAnInvalidOption())
	})
}

// A caller that stops reading a typed stream over the adapter ends the
// request: the server sees the connection close, and no goroutine of the
// run or the connection is left behind.
func (h Harness) testBreakingOutOfATypedStreamLeavesNothingBehind(t *testing.T) {
	wiretest.TypedStreamLeavesNothingBehind(t, h.Adapter, []string{
		Delta(`{"role":"assistant","content":"","refusal":null}`, ""), Content(`{"city":"Pa`), Content(`ris","te`),
	})
}

// Many OpenAI-compatible servers do not stream: they answer a streamed
// request with the whole reply as JSON. The failure says so, with the
// Content-Type received and the option that turns streaming off; it is
// a malformed response (kind unknown, not retried), as the same server
// would answer every retry alike.
func (h Harness) testAServerThatDoesNotStreamIsToldSo(t *testing.T) {
	for _, contentType := range []string{"application/json", "application/json; charset=utf-8"} {
		t.Run(contentType, func(t *testing.T) {
			srv := wiretest.NewServer(t, reply{Status: 200, Header: map[string]string{"Content-Type": contentType}, Body: PlainCompletion})
			_, err := wiretest.Collect(h.New(srv.URL, "gpt-4o-mini").GenerateStream(context.Background(), UserTurn))
			var pe *agent.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *agent.ProviderError", err)
			}
			type class struct {
				Kind      events.ErrorKind
				Status    int
				Retryable bool
				Why       bool // the cause is wire.ErrNotEventStream
			}
			if got, want := (class{pe.Kind, pe.HTTPStatus, pe.Retryable(), errors.Is(err, wire.ErrNotEventStream)}), (class{events.KindUnknown, 200, false, true}); got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
			want := `this server does not stream: it answered a streamed request with Content-Type "` + contentType +
				`", not text/event-stream; the adapter's WithoutStreaming option sends every request unstreamed`
			if got := pe.Message; got != want {
				t.Errorf("Message = %q\nwant      %q", got, want)
			}
		})
	}
}

// With WithoutStreaming, GenerateStream asks for the whole reply, as
// Generate does, and yields what Generate returns for it.
func (h Harness) testWithoutStreamingAsksForWholeReplies(t *testing.T) {
	for _, tt := range []struct{ name, body string }{
		{"a text answer", PlainCompletion},
		{"a tool call", ToolCallCompletion},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := wiretest.NewServer(t, okReply(tt.body), okReply(tt.body))
			m := h.New(srv.URL, "gpt-4o-mini", WithoutStreaming())
			want, err := m.Generate(context.Background(), UserTurn)
			if err != nil {
				t.Fatal(err)
			}
			got, err := wiretest.Collect(m.GenerateStream(context.Background(), UserTurn))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("GenerateStream gave %+v\nwant what Generate gives, %+v", got, want)
			}
			for i, body := range srv.Requests() {
				var sent map[string]json.RawMessage
				if err := json.Unmarshal(body, &sent); err != nil {
					t.Fatal(err)
				}
				s, ok := sent["stream"]
				switch {
				case h.SendsStream && string(s) != "false":
					t.Errorf("request %d has \"stream\": %s, want false", i+1, s)
				case !h.SendsStream && ok:
					t.Errorf("request %d has \"stream\": %s, want none", i+1, s)
				}
			}
		})
	}
}

// Through the agent, a server that does not stream answers a run of a
// model made WithoutStreaming.
func (h Harness) testAnAgentRunsOverAServerThatDoesNotStream(t *testing.T) {
	srv := wiretest.NewServer(t, okReply(PlainCompletion))
	res, err := agent.New(h.New(srv.URL, "gpt-4o-mini", WithoutStreaming())).Run(context.Background(), "Capital of France?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Output, "Paris."; got != want {
		t.Errorf("Output = %q, want %q", got, want)
	}
}
