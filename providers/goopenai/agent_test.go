package goopenai

import (
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestAgentRetriesAProseAnswerThroughTheAdapter(t *testing.T) {
	wiretest.AgentRetriesProse(t, adapter,
		okReply(completion("It is sunny in Paris, about 18 degrees.")),
		okReply(completion(`{"city":"Paris","tempC":18}`)),
		agent.Usage{InputTokens: 20, OutputTokens: 10})
}

func TestAgentModelRetryRetriesARateLimitOnce(t *testing.T) {
	wiretest.AgentRetriesARateLimit(t, adapter,
		reply{Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: errorBody("rate_limit_exceeded", "Rate limit reached")},
		3*time.Second, okReply(completion(`{"city":"Paris","tempC":18}`)))
}

func TestAgentCutsADoomedAnswerOffMidStream(t *testing.T) {
	wiretest.AgentCutsADoomedAnswer(t, adapter, []string{
		delta(`{"role":"assistant","content":"","refusal":null}`, ""),
		content("Sure! "), content("Here is "), content(`{"city":"Paris",`), content(`"tempC":18}`),
	}, okReply(completion(`{"city":"Paris","tempC":18}`)))
}
