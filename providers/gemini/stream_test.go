package gemini

import (
	"context"
	"encoding/json"
	"errors"
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
	wiretest.StreamAddsUp(t, adapter, []wiretest.Streamed{
		{Name: "a text answer with cached and thought tokens", Body: response("STOP",
			`{"promptTokenCount":52,"candidatesTokenCount":9,"cachedContentTokenCount":40,"thoughtsTokenCount":30,"totalTokenCount":91}`,
			`{"text":"let me think","thought":true}`, text(`{"city":"Paris","tempC":18}`))},
		{Name: "unicode split across pieces", Body: answer(`{"city":"Zürich — 東京 🌦","tempC":-3.5}`)},
		{Name: "function calls, one with a thought signature", Body: response("STOP", `{"promptTokenCount":20,"candidatesTokenCount":12,"totalTokenCount":32}`,
			text("Looking up."),
			`{"functionCall":{"id":"fc-1","name":"lookup","args":{"city":"Paris"}},"thoughtSignature":"c2ln"}`,
			funcCall("", "clock", `{}`))},
		{Name: "truncated at the output limit", Body: response("MAX_TOKENS", `{"promptTokenCount":10,"candidatesTokenCount":64,"totalTokenCount":74}`, text(`{"city":"Par`))},
		{Name: "stopped by the safety filter", Body: response("SAFETY", "", text(`{"ci`))},
	})
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
	wiretest.StreamYields(t, adapter, []string{textChunk(`{"city":`), textChunk(`"Paris"}`), finish("STOP", 10, 5)}, []agent.Chunk{
		{Text: `{"city":`},
		{Text: `"Paris"}`},
		{Usage: agent.Usage{InputTokens: 10, OutputTokens: 5, Detailed: true}},
		{Stop: agent.StopComplete, StopRaw: "STOP"},
	})
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
	wiretest.StreamFailures(t, adapter, []wiretest.StreamFailure{
		{Name: "a 429 before the stream, with its RetryInfo",
			Reply: reply{Status: 429, Body: errorBody(429, "RESOURCE_EXHAUSTED", "slow down", retryInfo("7s"))},
			Kind:  events.KindRateLimit, Status: 429, RetryAfter: 7 * time.Second},
		{Name: "an error event mid-stream, by the code it carries",
			Reply: reply{Status: 200, Events: []string{textChunk("Sure"), event(errorBody(503, "UNAVAILABLE", "The model is overloaded"))}},
			Kind:  events.KindOverloaded, Before: "Sure"},
		{Name: "an error event with RESOURCE_EXHAUSTED keeps its delay",
			Reply: reply{Status: 200, Events: []string{event(errorBody(429, "RESOURCE_EXHAUSTED", "slow down", retryInfo("2s")))}},
			Kind:  events.KindRateLimit, RetryAfter: 2 * time.Second},
		{Name: "an error event without a code, by its status",
			Reply: reply{Status: 200, Events: []string{event(`{"error":{"message":"boom","status":"INTERNAL"}}`)}},
			Kind:  events.KindServerError},
		{Name: "a connection cut mid-event",
			Reply: reply{Status: 200, Events: []string{textChunk("Sure"), `data: {"candidates":[{"content":`}, Cut: true},
			Kind:  events.KindConnection, Before: "Sure"},
		{Name: "a stream that ends before its finishReason",
			Reply: reply{Status: 200, Events: []string{textChunk("Sure")}},
			Kind:  events.KindConnection, Before: "Sure"},
		{Name: "an HTML page with a 200, as Generate says",
			Reply: reply{Status: 200, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: "<html>maintenance</html>"},
			Kind:  events.KindUnknown, Status: 200},
	})
}

func TestAnHTMLPageWithA200IsOneFailureInBothModes(t *testing.T) {
	wiretest.AWebPageIsOneFailure(t, adapter)
}

func TestGenerateStreamEndsAtTheFinishReason(t *testing.T) {
	// After the end of the reply, the server sends more text (and may
	// hold the connection open): neither reaches the reply, and the
	// adapter does not wait for the server to close.
	answer := `{"city":"Paris","tempC":18}`
	wiretest.StreamEndsAtItsEnd(t, adapter, []string{textChunk(answer), finish("STOP", 10, 5), textChunk(" trailing garbage")}, nil, agent.Response{
		Message: agent.Message{Content: answer}, Usage: agent.Usage{InputTokens: 10, OutputTokens: 5, Detailed: true}, Stop: agent.StopComplete,
	})
}

func TestGenerateStreamClosesTheConnectionWhenTheConsumerStops(t *testing.T) {
	wiretest.StreamStopsWithItsConsumer(t, adapter, []string{textChunk("Sure! "), textChunk("Here is")})
}

func TestGenerateStreamRefusesBadInputBeforeSending(t *testing.T) {
	wiretest.StreamRefusesBadInput(t, adapter, func(t *testing.T, srv *wiretest.Server) agent.StreamingModel {
		return New(newClient(t, srv.URL), "gemini-test", WithConfig(nil))
	})
}

func TestBreakingOutOfATypedStreamLeavesNothingBehind(t *testing.T) {
	wiretest.TypedStreamLeavesNothingBehind(t, adapter, []string{textChunk(`{"city":"Pa`), textChunk(`ris","te`)})
}
