package agent_test

import (
	"context"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// Every tool call is judged against its tool's parameters before the
// tool runs, and each is a row of Result.Calls. Here the first call
// passes only as WithRepairs mends it; the second breaks the schema, so
// the tool does not run and the model is answered with the issues.
func ExampleResult_calls() {
	type args struct {
		City string `json:"city"`
	}
	lookup := agent.NewTool("lookup", "Current weather of a city.", func(_ context.Context, in args) (string, error) {
		return "sunny in " + in.City, nil
	})
	replies := []agent.Message{
		{ToolCalls: []agent.ToolCall{agenttest.Call("c1", "lookup", `{'city': 'Paris',}`)}},
		{ToolCalls: []agent.ToolCall{agenttest.Call("c2", "lookup", `{"town": "Lyon"}`)}},
		{Content: "Sunny in Paris."},
	}
	m := agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
		n := 0 // the replies so far
		for _, msg := range req.Messages {
			if msg.Role == agent.RoleAssistant {
				n++
			}
		}
		return agent.Response{Message: replies[n]}, nil
	})
	a := agent.New(m, agent.WithTools(lookup), agent.WithRepairs(enforce.AllRepairs), agent.WithToolCallLimit(3))
	res, err := a.Run(context.Background(), "Weather in Paris and Lyon?")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Calls {
		fmt.Println(c.Attempt, c.Tool, c.CallID, c.Outcome, c.Stage, c.Path, c.Repaired)
	}
	// Output:
	// 1 lookup c1 passed   syntax
	// 2 lookup c2 retried schema-validate /city
}
