package openaiwiretest

import (
	"context"
	"fmt"
	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"testing"
)

// No reply is read past a bound, from the socket up: whatever a server
// sends, streamed or not, error bodies too, the call fails with a
// ProviderError naming the bound once it is passed, and what it costs
// stays within a few times the bound.
func (h Harness) testAReplyIsReadNoFurtherThanItsBounds(t *testing.T) {
	wiretest.RepliesAreBounded(t, h.Adapter, wiretest.Heads{
		Body:  `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"`,
		Error: `{"error":{"message":"`,
	})
}

// The reply ends at its finish_reason: content sent after it is no part
// of the reply, and once the usage that follows has come the connection
// is closed, even when the server holds it open without [DONE].
func (h Harness) testAStreamedReplyEndsAtItsFinishReason(t *testing.T) {
	answer := `{"city":"Paris"}`
	after := []string{Content(answer), Delta(`{}`, "stop"), Content(" and more"), Usage(9, 4)}
	wiretest.StreamEndsAtItsEnd(t, h.Adapter, after, []string{Done}, agent.Response{
		Message: agent.Message{Content: answer}, Usage: agent.Usage{InputTokens: 9, OutputTokens: 4}, Stop: agent.StopComplete,
	})
}

// A 200 whose body is a web page (a proxy's, a captive portal's) is one
// failure, whether the call streams or not: a malformed response, not
// retried, not a lost connection.
func (h Harness) testAWebPageIsTheSameFailureStreamedOrNot(t *testing.T) {
	wiretest.AWebPageIsOneFailure(t, h.Adapter)
}

// A Retry-After past the cap, however large, reads as the cap (24 h),
// not as absent.
func (h Harness) testARetryAfterPastTheCapIsTheCap(t *testing.T) {
	wiretest.ARetryAfterPastTheCapIsTheCap(t, h.Adapter)
}

// A server that sends usage with every delta (vLLM's continuous usage
// stats) makes no chunk that adds no bytes for it: the agent bounds
// those per reply, and a long reply must not reach that bound.
func (h Harness) testUsageWithEveryDeltaRidesOnTheDeltasChunk(t *testing.T) {
	withUsage := func(d, finish string, n int) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return Event(fmt.Sprintf(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}],`+
			`"usage":{"prompt_tokens":9,"completion_tokens":%d,"total_tokens":%d}}`, d, f, n, 9+n))
	}
	var evs []string
	for i := range 100 {
		evs = append(evs, withUsage(`{"content":"x"}`, "", i+1))
	}
	evs = append(evs, withUsage(`{}`, "stop", 100), Usage(9, 100), Done)
	srv := newFakeServer(t, wiretest.Stream(evs...))
	idle := 0
	for c, err := range h.New(srv.URL, "gpt-4o-mini").GenerateStream(context.Background(), UserTurn) {
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
func (h Harness) testARunOverAReplyPastItsBoundFailsWithErrModel(t *testing.T) {
	wiretest.RunPastABoundFailsWithErrModel(t, h.Adapter)
}
