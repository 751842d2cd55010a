package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
)

// BenchmarkToolCallAsWritten is a run of two iterations: a call whose
// arguments keep the tool's parameters as written, then a final answer
// in text. What a judged call adds to a run shows against the same run
// before calls were judged and recorded.
func BenchmarkToolCallAsWritten(b *testing.B) {
	type args struct {
		City string `json:"city"`
		Days int    `json:"days"`
	}
	lookup := agent.NewTool("lookup", "Forecast of a city.", func(_ context.Context, in args) (string, error) {
		return "sunny", nil
	})
	call := agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{"city":"Paris","days":3}`)}}}
	answer := agent.Message{Role: agent.RoleAssistant, Content: "Sunny in Paris."}
	model := agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
		if req.Messages[len(req.Messages)-1].Role == agent.RoleTool {
			return agent.Response{Message: answer}, nil
		}
		return agent.Response{Message: call}, nil
	})
	a := agent.New(model, agent.WithTools(lookup))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Run(ctx, "Weather in Paris?"); err != nil {
			b.Fatal(err)
		}
	}
}
