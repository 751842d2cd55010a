package anthropic

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// No reply is read past a bound, from the socket up: whatever a server
// sends, streamed or not, error bodies too, the call fails with a
// ProviderError naming the bound once it is passed, and what it costs
// stays within a few times the bound.
func TestAReplyIsReadNoFurtherThanItsBounds(t *testing.T) {
	wiretest.RepliesAreBounded(t, adapter, wiretest.Heads{
		Event: "event: content_block_delta\n",
		Body:  `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"`,
		Error: `{"type":"error","error":{"type":"rate_limit_error","message":"`,
	})
}

// The reply ends at message_stop: a delta sent after it is no part of
// the reply (it would turn a valid answer into a json-parse failure), and
// the connection is closed then, even when the server holds it open.
func TestAStreamedReplyEndsAtMessageStop(t *testing.T) {
	answer := `{"city":"Paris"}`
	after := append(textStream("end_turn", 9, 4, answer), sseText(0, " and more"))
	wiretest.StreamEndsAtItsEnd(t, adapter, after, nil, agent.Response{
		Message: agent.Message{Content: answer}, Usage: agent.Usage{InputTokens: 9, OutputTokens: 4, Detailed: true}, Stop: agent.StopComplete,
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

// Through the agent, a reply read to a bound fails the run as a model
// call that failed.
func TestARunOverAReplyPastItsBoundFailsWithErrModel(t *testing.T) {
	wiretest.RunPastABoundFailsWithErrModel(t, adapter)
}
