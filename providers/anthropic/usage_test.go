package anthropic

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestUsageCountsCachedTokensAndKnowsWhenReasoningIsUnknown(t *testing.T) {
	body := func(content, usage string) string {
		return `{"id":"msg_u","type":"message","role":"assistant","model":"claude-sonnet-4-5",
"content":` + content + `,"stop_reason":"end_turn","stop_sequence":null,"usage":` + usage + `}`
	}
	text := `[{"type":"text","text":"Paris."}]`
	thinking := `[{"type":"thinking","thinking":"Paris it is.","signature":"sig"},{"type":"text","text":"Paris."}]`
	// streamOf always reports cache reads: only a body that does streams
	// the same.
	wiretest.UsageCounts(t, adapter, []wiretest.Counted{
		{Name: "cache reads reported, no thinking: Detailed, reasoning a measured zero",
			Body:     body(text, `{"input_tokens":30,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000,"output_tokens":9}`),
			Usage:    agent.Usage{InputTokens: 2130, OutputTokens: 9, CachedTokens: 2000, Detailed: true},
			Streamed: true},
		{Name: "thinking among the output tokens, uncounted: not Detailed",
			Body:     body(thinking, `{"input_tokens":30,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":90}`),
			Usage:    agent.Usage{InputTokens: 30, OutputTokens: 90},
			Streamed: true},
		{Name: "cache reads not reported: not Detailed",
			Body:  body(text, `{"input_tokens":30,"output_tokens":9}`),
			Usage: agent.Usage{InputTokens: 30, OutputTokens: 9}},
	})
}
