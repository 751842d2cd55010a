package anthropic

import (
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestAgentRetriesAProseAnswerThroughTheAdapter(t *testing.T) {
	wiretest.AgentRetriesProse(t, adapter,
		okReply(message("It is sunny in Paris, about 18 degrees.")),
		okReply(message(`{"city":"Paris","tempC":18}`)),
		agent.Usage{InputTokens: 20, OutputTokens: 10, Detailed: true})
}

func TestAgentModelRetryRetriesARateLimitOnce(t *testing.T) {
	wiretest.AgentRetriesARateLimit(t, adapter,
		reply{Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: errorBody("rate_limit_error", "Rate limit reached")},
		3*time.Second, okReply(message(`{"city":"Paris","tempC":18}`)))
}

func TestAgentCutsADoomedAnswerOffMidStream(t *testing.T) {
	res := wiretest.AgentCutsADoomedAnswer(t, adapter, []string{
		sseStart(10, 0, 0), sseBlockStart(0, textStart),
		sseText(0, "Sure! "), sseText(0, "Here is "), sseText(0, `{"city":"Paris",`), sseText(0, `"tempC":18}`),
	}, okReply(message(`{"city":"Paris","tempC":18}`)))
	if got, want := res.Attempts[0].Cut.OutputTokens, 1; got != want {
		t.Errorf("cut's output tokens = %d, want %d, as message_start reported", got, want)
	}
}
