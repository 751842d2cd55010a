package langchaingo_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/langchaingo"
)

// FuzzReply feeds the adapter a langchaingo response as JSON: whatever it
// says, Generate never panics, every tool call it gives has an ID and
// arguments that are JSON, and GenerateStream gives the same reply.
func FuzzReply(f *testing.F) {
	for _, cr := range []llms.ContentResponse{
		{Choices: []*llms.ContentChoice{{Content: valid, StopReason: "stop", GenerationInfo: map[string]any{"PromptTokens": 3}}}},
		{Choices: []*llms.ContentChoice{{Content: "Looking."}, {StopReason: "tool_use", ToolCalls: []llms.ToolCall{{ID: "t1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "f", Arguments: `{"a":`}}}}}},
	} {
		b, _ := json.Marshal(cr)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var cr llms.ContentResponse
		if json.Unmarshal(data, &cr) != nil {
			return
		}
		m := langchaingo.NewModel(&fixed{resp: &cr})
		whole, err := m.Generate(t.Context(), agent.Request{})
		if err != nil {
			return
		}
		for i, c := range whole.Message.ToolCalls {
			if c.ID == "" || !json.Valid(c.Arguments) {
				t.Errorf("call %d: id %q, arguments %q", i, c.ID, c.Arguments)
			}
		}
		streamed, err := collect(t, m, agent.Request{})
		if err != nil {
			t.Fatalf("the stream failed where Generate did not: %v", err)
		}
		if !reflect.DeepEqual(streamed.Message, whole.Message) {
			t.Errorf("streamed %+v, generated %+v", streamed.Message, whole.Message)
		}
		if streamed.Usage != whole.Usage || streamed.Stop != whole.Stop {
			t.Errorf("streamed (usage, stop) = (%+v, %q), generated (%+v, %q)", streamed.Usage, streamed.Stop, whole.Usage, whole.Stop)
		}
	})
}
