package goopenai

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/providers/internal/openaiwiretest"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// No reply is read past a bound, from the socket up: whatever a server
// sends, streamed or not, error bodies too, the call fails with a
// ProviderError naming the bound once it is passed, and what it costs
// stays within a few times the bound.
func TestAReplyIsReadNoFurtherThanItsBounds(t *testing.T) {
	wiretest.RepliesAreBounded(t, adapter, wiretest.Heads{
		Body:  `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"`,
		Error: `{"error":{"message":"`,
	})
}

// go-openai decodes each data line alone (wiretest.Adapter.LinesAlone):
// the bound on an event holds it to a line, however long it runs.
func TestAnEndlessDataLineIsReadToItsBound(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Reply{Status: 200, Header: map[string]string{"Content-Type": "text/event-stream"},
		Events: []string{}, Body: `data: {"choices":[{"index":0,"delta":{"content":"`, Repeat: strings.Repeat("x", 1<<20), Times: 192})
	var err error
	n := wiretest.Allocated(func() {
		_, err = wiretest.Collect(New(clientAt(srv.URL), "gpt-4o-mini").GenerateStream(context.Background(), openaiwiretest.UserTurn))
	})
	var pe *agent.ProviderError
	if !errors.As(err, &pe) || !errors.Is(err, wire.ErrTooLong) || pe.Kind != events.KindUnknown || pe.HTTPStatus != 200 {
		t.Fatalf("err = %.300v, want a ProviderError of kind unknown, status 200, matching wire.ErrTooLong", err)
	}
	if max := uint64(8 * wire.MaxEventBytes); n > max {
		t.Errorf("the call allocated %d MiB, want at most %d", n>>20, max>>20)
	}
}

// The reply ends at its finish_reason: content sent after it is no part
// of the reply, and once the usage that follows has come the connection
// is closed, even when the server holds it open without [DONE].
func TestAStreamedReplyEndsAtItsFinishReason(t *testing.T) {
	answer := `{"city":"Paris"}`
	after := []string{openaiwiretest.Content(answer), openaiwiretest.Delta(`{}`, "stop"), openaiwiretest.Content(" and more"), openaiwiretest.Usage(9, 4)}
	wiretest.StreamEndsAtItsEnd(t, adapter, after, []string{openaiwiretest.Done}, agent.Response{
		Message: agent.Message{Content: answer}, Usage: agent.Usage{InputTokens: 9, OutputTokens: 4}, Stop: agent.StopComplete,
	})
}

// A 200 whose body is a web page (a proxy's, a captive portal's) is one
// failure, whether the call streams or not: a malformed response, not
// retried, not a lost connection.
func TestAWebPageIsTheSameFailureStreamedOrNot(t *testing.T) {
	wiretest.AWebPageIsOneFailure(t, adapter)
}

// A Retry-After past the cap, however large, reads as the cap (24 h),
// not as absent.
func TestARetryAfterPastTheCapIsTheCap(t *testing.T) {
	wiretest.ARetryAfterPastTheCapIsTheCap(t, adapter)
}

// A server that sends usage with every delta (vLLM's continuous usage
// stats) makes no chunk that adds no bytes for it: the agent bounds
// those per reply, and a long reply must not reach that bound.
func TestUsageWithEveryDeltaRidesOnTheDeltasChunk(t *testing.T) {
	withUsage := func(d, finish string, n int) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return openaiwiretest.Event(fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}],`+
			`"usage":{"prompt_tokens":9,"completion_tokens":%d,"total_tokens":%d}}`, d, f, n, 9+n))
	}
	var evs []string
	for i := range 100 {
		evs = append(evs, withUsage(`{"content":"x"}`, "", i+1))
	}
	evs = append(evs, withUsage(`{}`, "stop", 100), openaiwiretest.Usage(9, 100), openaiwiretest.Done)
	srv := newFakeServer(t, wiretest.Stream(evs...))
	idle := 0
	for c, err := range New(srv.client(), "gpt-4o-mini").GenerateStream(context.Background(), openaiwiretest.UserTurn) {
		if err != nil {
			t.Fatal(err)
		}
		if c.Text == "" && c.Call == nil {
			idle++
		}
	}
	if idle != 2 {
		t.Errorf("%d chunks without bytes, want 2 (the finish and the last usage), however long the reply", idle)
	}
}

// Through the agent, a reply read to a bound fails the run as a model
// call that failed.
func TestARunOverAReplyPastItsBoundFailsWithErrModel(t *testing.T) {
	wiretest.RunPastABoundFailsWithErrModel(t, adapter)
}
