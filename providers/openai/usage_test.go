package openai

import (
	"context"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

func TestUsageCountsCachedAndReasoningTokens(t *testing.T) {
	body := func(usage string) string {
		return `{"id":"chatcmpl-u","object":"chat.completion","created":1700000000,"model":"o4-mini",
"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}],"usage":` + usage + `}`
	}
	tests := []struct {
		name  string
		usage string
		want  agent.Usage
	}{
		{"both details reported: Detailed",
			`{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":256,"audio_tokens":0}}`,
			agent.Usage{InputTokens: 2006, OutputTokens: 300, CachedTokens: 1920, ReasoningTokens: 256, Detailed: true}},
		{"measured zeros: Detailed",
			`{"prompt_tokens":20,"completion_tokens":3,"total_tokens":23,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}`,
			agent.Usage{InputTokens: 20, OutputTokens: 3, Detailed: true}},
		{"no details, as many compatible servers send: not Detailed",
			`{"prompt_tokens":20,"completion_tokens":3,"total_tokens":23}`,
			agent.Usage{InputTokens: 20, OutputTokens: 3}},
		{"cached tokens alone: not Detailed",
			`{"prompt_tokens":20,"completion_tokens":3,"total_tokens":23,"prompt_tokens_details":{"cached_tokens":16}}`,
			agent.Usage{InputTokens: 20, OutputTokens: 3, CachedTokens: 16}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, okReply(body(tt.usage)), okReply(body(tt.usage)))
			m := New(srv.client(), "o4-mini")
			resp, err := m.Generate(context.Background(), agent.Request{})
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Usage; got != tt.want {
				t.Errorf("Generate usage = %+v, want %+v", got, tt.want)
			}
			streamed, err := wiretest.Collect(m.GenerateStream(context.Background(), agent.Request{}))
			if err != nil {
				t.Fatal(err)
			}
			if got := streamed.Usage; got != tt.want {
				t.Errorf("GenerateStream usage = %+v, want %+v", got, tt.want)
			}
		})
	}
}
