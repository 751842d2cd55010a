package openaiwiretest

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func (h Harness) testUsageCountsCachedAndReasoningTokens(t *testing.T) {
	body := func(usage string) string {
		return `{"id":"chatcmpl-u","object":"chat.completion","created":1700000000,"model":"o4-mini",
"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}],"usage":` + usage + `}`
	}
	wiretest.UsageCounts(t, h.Adapter, []wiretest.Counted{
		{Name: "both details reported: Detailed",
			Body:     body(`{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":256,"audio_tokens":0}}`),
			Usage:    agent.Usage{InputTokens: 2006, OutputTokens: 300, CachedTokens: 1920, ReasoningTokens: 256, Detailed: true},
			Streamed: true},
		{Name: "measured zeros: Detailed",
			Body:     body(`{"prompt_tokens":20,"completion_tokens":3,"total_tokens":23,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}`),
			Usage:    agent.Usage{InputTokens: 20, OutputTokens: 3, Detailed: true},
			Streamed: true},
		{Name: "no details, as many compatible servers send: not Detailed",
			Body:     body(`{"prompt_tokens":20,"completion_tokens":3,"total_tokens":23}`),
			Usage:    agent.Usage{InputTokens: 20, OutputTokens: 3},
			Streamed: true},
		{Name: "cached tokens alone: not Detailed",
			Body:     body(`{"prompt_tokens":20,"completion_tokens":3,"total_tokens":23,"prompt_tokens_details":{"cached_tokens":16}}`),
			Usage:    agent.Usage{InputTokens: 20, OutputTokens: 3, CachedTokens: 16},
			Streamed: true},
	})
}
