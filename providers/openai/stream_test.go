package openai

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// The chat completions stream: one data line per chunk, each chunk a
// chat.completion.chunk whose choices carry a delta; the chunk that ends
// the choice has its finish_reason; with stream_options.include_usage a
// last chunk with no choices carries the usage; then "data: [DONE]".

// event is one server-sent event of the stream.
func event(data string) string { return "data: " + data + "\n\n" }

const done = "data: [DONE]\n\n"

// delta is a chunk of choice 0 carrying delta (its JSON), finished with
// finish when that is not empty.
func delta(d, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return event(`{"id":"chatcmpl-s1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini",` +
		`"system_fingerprint":"fp_1","choices":[{"index":0,"delta":` + d + `,"logprobs":null,"finish_reason":` + f + `}],"usage":null}`)
}

// content is a delta chunk whose content is s.
func content(s string) string {
	b, _ := json.Marshal(s)
	return delta(`{"content":`+string(b)+`}`, "")
}

// usage is the last chunk of a stream with include_usage.
func usage(prompt, completion int) string {
	b, _ := json.Marshal(map[string]int{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion})
	return event(`{"id":"chatcmpl-s1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","choices":[],"usage":` + string(b) + `}`)
}

// textStream streams s in pieces, then finish, usage and [DONE].
func textStream(finish string, prompt, completion int, pieces ...string) []string {
	evs := []string{delta(`{"role":"assistant","content":"","refusal":null}`, "")}
	for _, p := range pieces {
		evs = append(evs, content(p))
	}
	return append(evs, delta(`{}`, finish), usage(prompt, completion), done)
}

// toolCallStream streams the calls of toolCallCompletion as OpenAI does:
// the call's id, type and name first, its arguments in fragments.
var toolCallStream = []string{
	delta(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"weather","arguments":""}}],"refusal":null}`, ""),
	delta(`{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]}`, ""),
	delta(`{"tool_calls":[{"index":0,"function":{"arguments":"city\":\"Par"}}]}`, ""),
	delta(`{"tool_calls":[{"index":0,"function":{"arguments":"is\"}"}}]}`, ""),
	delta(`{}`, "tool_calls"),
	usage(40, 12),
	done,
}

var userTurn = agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Weather in Paris?"}}}

func TestGenerateStreamAddsUpToWhatGenerateReturns(t *testing.T) {
	tests := []struct {
		name     string
		complete string   // the reply as one body, for Generate
		stream   []string // the same reply streamed
	}{
		{"a text answer", plainCompletion, textStream("stop", 21, 3, "Par", "is", ".")},
		{"a tool call", toolCallCompletion, toolCallStream},
		{
			"two calls, one without id or arguments",
			`{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
"tool_calls":[{"type":"function","function":{"name":"a","arguments":""}},
              {"id":"x1","type":"function","function":{"name":"b","arguments":"{\"n\":1}"}}]}}],
"usage":{"prompt_tokens":8,"completion_tokens":4,"total_tokens":12}}`,
			[]string{
				delta(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"type":"function","function":{"name":"a","arguments":""}}]}`, ""),
				delta(`{"tool_calls":[{"index":1,"id":"x1","type":"function","function":{"name":"b","arguments":""}}]}`, ""),
				delta(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"n\":"}}]}`, ""),
				delta(`{"tool_calls":[{"index":1,"function":{"arguments":"1}"}}]}`, ""),
				delta(`{}`, "tool_calls"),
				usage(8, 4),
				done,
			},
		},
		{
			"a refusal",
			finished("stop", refusalMsg),
			[]string{
				delta(`{"role":"assistant","content":null,"refusal":""}`, ""),
				delta(`{"refusal":"I'm sorry, "}`, ""),
				delta(`{"refusal":"I can't help with that."}`, ""),
				delta(`{}`, "stop"),
				usage(10, 5),
				done,
			},
		},
		{"an answer cut at max tokens", finished("length", text(cutAnswer)), textStream("length", 10, 5, `{"city":`, `"Paris","te`)},
		{"a finish_reason OpenAI does not document", finished("insufficient_system_resource", text("")), textStream("insufficient_system_resource", 10, 5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, okReply(tt.complete), wiretest.Stream(tt.stream...))
			m := New(srv.client(), "gpt-4o-mini")
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

func TestGenerateStreamSendsAStreamedRequestAskingForUsage(t *testing.T) {
	srv := newFakeServer(t, wiretest.Stream(textStream("stop", 21, 3, "Paris.")...))
	if _, err := wiretest.Collect(New(srv.client(), "gpt-4o-mini").GenerateStream(context.Background(), userTurn)); err != nil {
		t.Fatal(err)
	}
	_, keys := decodeRequest(t, srv.requests()[0])
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

func TestGenerateStreamYieldsEachDeltaAsItArrives(t *testing.T) {
	srv := newFakeServer(t, wiretest.Stream(toolCallStream...))
	var got []agent.Chunk
	for c, err := range New(srv.client(), "gpt-4o-mini").GenerateStream(context.Background(), userTurn) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	want := []agent.Chunk{
		{Call: &agent.CallDelta{Index: 0, ID: "call_abc", Name: "weather"}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `{"`}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `city":"Par`}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `is"}`}},
		{Stop: agent.StopToolUse, StopRaw: "tool_calls"},
		{Usage: agent.Usage{InputTokens: 40, OutputTokens: 12}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks:\n%s\nwant:\n%s", wiretest.Show(got), wiretest.Show(want))
	}
}

// streamErr reads a stream to its end and returns the error it ended with,
// and the text it yielded before.
func streamErr(t *testing.T, m *Model, ctx context.Context) (string, *agent.ProviderError) {
	t.Helper()
	got, err := wiretest.Collect(m.GenerateStream(ctx, userTurn))
	var pe *agent.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want *agent.ProviderError", err, err)
	}
	if got, want := pe.System, "openai"; got != want {
		t.Errorf("System = %q, want %q", got, want)
	}
	return got.Message.Content, pe
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
			reply: reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: errorBody("rate_limit_exceeded", "Rate limit reached")},
			kind:  events.KindRateLimit, status: 429, retryAfter: 7 * time.Second, message: "Rate limit reached",
		},
		{
			name:  "a 500 before the stream",
			reply: reply{Status: 500, Body: errorBody("server_error", "The server had an error")},
			kind:  events.KindServerError, status: 500, message: "The server had an error",
		},
		{
			name:  "a 503 before the stream",
			reply: reply{Status: 503, Body: errorBody("server_error", "overloaded")},
			kind:  events.KindOverloaded, status: 503, message: "overloaded",
		},
		{
			name: "an error event mid-stream, by its type",
			reply: wiretest.Stream(
				delta(`{"role":"assistant","content":"","refusal":null}`, ""), content(`{"city":`),
				event(`{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`)),
			kind: events.KindServerError, message: "The server had an error while processing your request.", before: `{"city":`,
		},
		{
			name: "a rate limit event mid-stream, by its code",
			reply: wiretest.Stream(content("Par"),
				event(`{"error":{"message":"Rate limit reached","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`)),
			kind: events.KindRateLimit, message: "Rate limit reached", before: "Par",
		},
		{
			name:  "an error event of a type OpenAI does not send",
			reply: wiretest.Stream(event(`{"error":{"message":"odd","type":"weird_error"}}`)),
			kind:  events.KindUnknown, message: "odd",
		},
		{
			name:  "a connection dropped mid-stream",
			reply: reply{Status: 200, Events: []string{content("Par"), content("is")}, Cut: true},
			kind:  events.KindConnection, before: "Paris",
		},
		{
			name:  "a stream that ends cleanly before any finish_reason",
			reply: wiretest.Stream(content("Par"), content("is")),
			kind:  events.KindConnection, message: "stream ended before the reply did", before: "Paris",
		},
		{
			name:  "a chunk that is not JSON",
			reply: wiretest.Stream(content("Par"), event(`{"choices": [ this is not json`)),
			kind:  events.KindUnknown, status: 200, message: "malformed response body", before: "Par",
		},
		{
			name:  "a tool call of a type never declared",
			reply: wiretest.Stream(delta(`{"tool_calls":[{"index":0,"id":"c","type":"custom","custom":{"name":"x"}}]}`, "")),
			kind:  events.KindUnknown, status: 200, message: `malformed response: tool call 0 has type "custom"; only function tools are sent`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.reply)
			// The client asks for SDK retries; the adapter must still send once.
			m := New(srv.client(option.WithMaxRetries(3)), "gpt-4o-mini")
			before, pe := streamErr(t, m, context.Background())
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
			if got, want := before, tt.before; got != want {
				t.Errorf("text before the failure = %q, want %q", got, want)
			}
			if got := len(srv.requests()); got != 1 {
				t.Errorf("server saw %d requests, want exactly 1: the SDK must not retry", got)
			}
		})
	}
}

func TestGenerateStreamClosesTheConnectionWhenTheConsumerStops(t *testing.T) {
	t.Run("a consumer that breaks out of its loop", func(t *testing.T) {
		gone := make(chan struct{})
		srv := newFakeServer(t, reply{Status: 200, Events: []string{content("Sure! "), content("Here is")}, Gone: gone})
		n := 0
		for _, err := range New(srv.client(), "gpt-4o-mini").GenerateStream(context.Background(), userTurn) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			break
		}
		if n != 1 {
			t.Fatalf("read %d chunks, want 1", n)
		}
		wiretest.WaitGone(t, gone)
	})
	t.Run("a consumer that cancels the context gets its cause", func(t *testing.T) {
		gone := make(chan struct{})
		srv := newFakeServer(t, reply{Status: 200, Events: []string{content("Sure! ")}, Gone: gone})
		stop := errors.New("doomed answer")
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		var last error
		for _, err := range New(srv.client(), "gpt-4o-mini").GenerateStream(ctx, userTurn) {
			if err != nil {
				last = err
				break
			}
			cancel(stop)
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
		return New(clientAt(srv.URL), "gpt-4o-mini", WithParams(nil))
	})
}

// A caller that stops reading a typed stream over the adapter ends the
// request: the server sees the connection close, and no goroutine of the
// run or the connection is left behind.
func TestBreakingOutOfATypedStreamLeavesNothingBehind(t *testing.T) {
	gone := make(chan struct{})
	srv := newFakeServer(t, reply{Status: 200, Gone: gone, Events: []string{
		delta(`{"role":"assistant","content":"","refusal":null}`, ""), content(`{"city":"Pa`), content(`ris","te`),
	}})
	before := runtime.NumGoroutine()
	s := agent.RunTypedStream[Weather](context.Background(), agent.New(New(srv.client(), "gpt-4o-mini")), "Weather in Paris?")
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
