package openaiwiretest

import (
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func (h Harness) testAgentRetriesAProseAnswerThroughTheAdapter(t *testing.T) {
	wiretest.AgentRetriesProse(t, h.Adapter,
		okReply(Completion("It is sunny in Paris, about 18 degrees.")),
		okReply(Completion(`{"city":"Paris","tempC":18}`)),
		agent.Usage{InputTokens: 20, OutputTokens: 10})
}

func (h Harness) testAgentModelRetryRetriesARateLimitOnce(t *testing.T) {
	wiretest.AgentRetriesARateLimit(t, h.Adapter,
		reply{Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: ErrorBody("rate_limit_exceeded", "Rate limit reached")},
		3*time.Second, okReply(Completion(`{"city":"Paris","tempC":18}`)))
}

func (h Harness) testAgentCutsADoomedAnswerOffMidStream(t *testing.T) {
	wiretest.AgentCutsADoomedAnswer(t, h.Adapter, []string{
		Delta(`{"role":"assistant","content":"","refusal":null}`, ""),
		Content("Sure! "), Content("Here is "), Content(`{"city":"Paris",`), Content(`"tempC":18}`),
	}, okReply(Completion(`{"city":"Paris","tempC":18}`)))
}
