package anthropic

import (
	"context"
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
	tests := []struct {
		name           string
		content, usage string
		want           agent.Usage
		streamed       bool // streamOf always reports cache reads: only a body that does streams the same
	}{
		{"cache reads reported, no thinking: Detailed, reasoning a measured zero", text,
			`{"input_tokens":30,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000,"output_tokens":9}`,
			agent.Usage{InputTokens: 2130, OutputTokens: 9, CachedTokens: 2000, Detailed: true}, true},
		{"thinking among the output tokens, uncounted: not Detailed", thinking,
			`{"input_tokens":30,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":90}`,
			agent.Usage{InputTokens: 30, OutputTokens: 90}, true},
		{"cache reads not reported: not Detailed", text,
			`{"input_tokens":30,"output_tokens":9}`,
			agent.Usage{InputTokens: 30, OutputTokens: 9}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := body(tt.content, tt.usage)
			srv := newFakeServer(t, okReply(b))
			m := New(srv.client(), "claude-sonnet-4-5")
			resp, err := m.Generate(context.Background(), userTurn)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Usage; got != tt.want {
				t.Errorf("Generate usage = %+v, want %+v", got, tt.want)
			}
			if !tt.streamed {
				return
			}
			srv = newFakeServer(t, wiretest.Stream(streamOf(b)...))
			streamed, err := wiretest.Collect(New(srv.client(), "claude-sonnet-4-5").GenerateStream(context.Background(), userTurn))
			if err != nil {
				t.Fatal(err)
			}
			if got := streamed.Usage; got != tt.want {
				t.Errorf("GenerateStream usage = %+v, want %+v", got, tt.want)
			}
		})
	}
}
