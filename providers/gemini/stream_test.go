package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// The Gemini stream (streamGenerateContent?alt=sse): one data line per
// chunk, each chunk a whole GenerateContentResponse holding the parts
// that arrived since the last; the chunk that ends the candidate has its
// finishReason, and the usage so far travels with the chunks.

// textChunk is a chunk of candidate 0 holding the text s.
func textChunk(s string) string {
	b, _ := json.Marshal(s)
	return event(`{"candidates":[{"content":{"role":"model","parts":[{"text":` + string(b) + `}]},"index":0}],"modelVersion":"gemini-test"}`)
}

// finish is the chunk that ends the reply, with its usage.
func finish(reason string, prompt, candidates int) string {
	b, _ := json.Marshal(map[string]int{"promptTokenCount": prompt, "candidatesTokenCount": candidates, "totalTokenCount": prompt + candidates})
	return event(`{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"` + reason + `","index":0}],"usageMetadata":` + string(b) + `}`)
}

func TestGenerateStreamAddsUpToWhatGenerateReturns(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"a text answer with cached and thought tokens", response("STOP",
			`{"promptTokenCount":52,"candidatesTokenCount":9,"cachedContentTokenCount":40,"thoughtsTokenCount":30,"totalTokenCount":91}`,
			`{"text":"let me think","thought":true}`, text(`{"city":"Paris","tempC":18}`))},
		{"unicode split across pieces", answer(`{"city":"Zürich — 東京 🌦","tempC":-3.5}`)},
		{"function calls, one with a thought signature", response("STOP", `{"promptTokenCount":20,"candidatesTokenCount":12,"totalTokenCount":32}`,
			text("Looking up."),
			`{"functionCall":{"id":"fc-1","name":"lookup","args":{"city":"Paris"}},"thoughtSignature":"c2ln"}`,
			funcCall("", "clock", `{}`))},
		{"cut off at the output limit", response("MAX_TOKENS", `{"promptTokenCount":10,"candidatesTokenCount":64,"totalTokenCount":74}`, text(`{"city":"Par`))},
		{"stopped by the safety filter", response("SAFETY", "", text(`{"ci`))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, okReply(tt.body), okReply(tt.body))
			m := New(srv.client(t), "gemini-test")
			want, err := m.Generate(t.Context(), plain())
			if err != nil {
				t.Fatal(err)
			}
			got, err := wiretest.Collect(m.GenerateStream(t.Context(), plain()))
			if err != nil {
				t.Fatal(err)
			}
			if !equalResponse(got, want) {
				t.Errorf("streamed = %+v\nwant       %+v", got, want)
			}
		})
	}
}

func TestGenerateStreamSendsAStreamedRequest(t *testing.T) {
	srv := newFakeServer(t, okReply(answer("ok")))
	if _, err := wiretest.Collect(New(srv.client(t), "gemini-2.5-flash").GenerateStream(t.Context(), plain())); err != nil {
		t.Fatal(err)
	}
	if got, want := srv.Paths(), []string{"POST /v1beta/models/gemini-2.5-flash:streamGenerateContent"}; !slices.Equal(got, want) {
		t.Errorf("paths = %v, want %v", got, want)
	}
}

func TestGenerateStreamYieldsEachPieceAsItArrives(t *testing.T) {
	srv := newFakeServer(t, wiretest.Stream(textChunk(`{"city":`), textChunk(`"Paris"}`), finish("STOP", 10, 5)))
	var got []string
	for c, err := range New(srv.client(t), "gemini-test").GenerateStream(t.Context(), plain()) {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.Text != "":
			got = append(got, "text "+c.Text)
		case c.Stop != "":
			got = append(got, "stop "+string(c.Stop))
		case c.Usage != (agent.Usage{}):
			got = append(got, "usage")
		}
	}
	want := []string{`text {"city":`, `text "Paris"}`, "usage", "stop complete"}
	if !slices.Equal(got, want) {
		t.Errorf("chunks = %q, want %q", got, want)
	}
}

// streamErr reads a stream to its end and returns the text it yielded and
// its error as a ProviderError.
func streamErr(t *testing.T, m *Model, ctx context.Context) (string, *agent.ProviderError, error) {
	t.Helper()
	var text strings.Builder
	var last error
	for c, err := range m.GenerateStream(ctx, plain()) {
		if err != nil {
			last = err
			break
		}
		text.WriteString(c.Text)
	}
	var pe *agent.ProviderError
	errors.As(last, &pe)
	return text.String(), pe, last
}

func TestGenerateStreamClassifiesFailuresAsGenerateDoes(t *testing.T) {
	tests := []struct {
		name       string
		reply      reply
		kind       events.ErrorKind
		status     int
		retryAfter time.Duration
	}{
		{"a 429 before the stream, with its RetryInfo",
			reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", "slow down", retryInfo("7s"))},
			events.KindRateLimit, 429, 7 * time.Second},
		{"an error event mid-stream, by the code it carries",
			reply{Status: 200, Events: []string{textChunk("Sure"), event(errorBody(503, "UNAVAILABLE", "The model is overloaded"))}},
			events.KindOverloaded, 0, 0},
		{"an error event with RESOURCE_EXHAUSTED keeps its delay",
			reply{Status: 200, Events: []string{event(errorBody(429, "RESOURCE_EXHAUSTED", "slow down", retryInfo("2s")))}},
			events.KindRateLimit, 0, 2 * time.Second},
		{"an error event without a code, by its status",
			reply{Status: 200, Events: []string{event(`{"error":{"message":"boom","status":"INTERNAL"}}`)}},
			events.KindServerError, 0, 0},
		{"a connection cut mid-event",
			reply{Status: 200, Events: []string{textChunk("Sure"), `data: {"candidates":[{"content":`}, Cut: true},
			events.KindConnection, 0, 0},
		{"a stream that ends before its finishReason",
			reply{Status: 200, Events: []string{textChunk("Sure")}},
			events.KindConnection, 0, 0},
		{"an HTML page with a 200, as Generate says",
			reply{Status: 200, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: "<html>maintenance</html>"},
			events.KindUnknown, 200, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.reply)
			_, pe, err := streamErr(t, New(srv.client(t), "gemini-test"), t.Context())
			if pe == nil {
				t.Fatalf("err = %v, want *agent.ProviderError", err)
			}
			if pe.System != System || pe.Kind != tt.kind || pe.HTTPStatus != tt.status || pe.RetryAfter != tt.retryAfter {
				t.Errorf("got %+v, want kind %s, status %d, retry after %v", *pe, tt.kind, tt.status, tt.retryAfter)
			}
		})
	}
}

func TestAnHTMLPageWithA200IsOneFailureInBothModes(t *testing.T) {
	html := reply{Status: 200, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html>maintenance</html>"}
	srv := newFakeServer(t, html, html)
	m := New(srv.client(t), "gemini-test")
	_, err := m.Generate(t.Context(), plain())
	var generated *agent.ProviderError
	if !errors.As(err, &generated) {
		t.Fatalf("Generate: err = %v", err)
	}
	_, streamed, err := streamErr(t, m, t.Context())
	if streamed == nil {
		t.Fatalf("GenerateStream: err = %v", err)
	}
	got := [2]string{string(streamed.Kind), itoa(streamed.HTTPStatus)}
	want := [2]string{string(generated.Kind), itoa(generated.HTTPStatus)}
	if got != want || streamed.Retryable() != generated.Retryable() {
		t.Errorf("streamed %+v, generated %+v: want one classification", *streamed, *generated)
	}
}

func TestGenerateStreamEndsAtTheFinishReason(t *testing.T) {
	gone := make(chan struct{})
	// After the end of the reply, the server sends more text and holds the
	// connection open: neither reaches the reply, and the adapter does not
	// wait for the server to close.
	srv := newFakeServer(t, reply{Status: 200, Gone: gone, Events: []string{
		textChunk(`{"city":"Paris","tempC":18}`), finish("STOP", 10, 5), textChunk(" trailing garbage"),
	}})
	// The deadline bounds a failing test; a passing one ends at once.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	got, err := wiretest.Collect(New(srv.client(t), "gemini-test").GenerateStream(ctx, plain()))
	if err != nil {
		t.Fatalf("err = %v, want the reply read to its finishReason", err)
	}
	if got.Message.Content != `{"city":"Paris","tempC":18}` || got.Stop != agent.StopComplete {
		t.Errorf("reply = %+v, want the answer up to its finishReason", got)
	}
	wiretest.WaitGone(t, gone)
}

func TestGenerateStreamClosesTheConnectionWhenTheConsumerStops(t *testing.T) {
	t.Run("a consumer that breaks out of its loop", func(t *testing.T) {
		gone := make(chan struct{})
		srv := newFakeServer(t, reply{Status: 200, Events: []string{textChunk("Sure! "), textChunk("Here is")}, Gone: gone})
		n := 0
		for _, err := range New(srv.client(t), "gemini-test").GenerateStream(t.Context(), plain()) {
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
		srv := newFakeServer(t, reply{Status: 200, Events: []string{textChunk("Sure! ")}, Gone: gone})
		stop := errors.New("doomed answer")
		ctx, cancel := context.WithCancelCause(t.Context())
		defer cancel(nil)
		var last error
		for _, err := range New(srv.client(t), "gemini-test").GenerateStream(ctx, plain()) {
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
		return New(newClient(t, srv.URL), "gemini-test", WithConfig(nil))
	})
}

func TestBreakingOutOfATypedStreamLeavesNothingBehind(t *testing.T) {
	gone := make(chan struct{})
	srv := newFakeServer(t, reply{Status: 200, Gone: gone, Events: []string{textChunk(`{"city":"Pa`), textChunk(`ris","te`)}})
	before := runtime.NumGoroutine()
	s := agent.RunTypedStream[Weather](t.Context(), agent.New(New(srv.client(t), "gemini-test")), "Weather in Paris?")
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
