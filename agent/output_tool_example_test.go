package agent_test

import (
	"context"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
)

// With an output tool the model gives its final answer as a tool call: the
// call's arguments are the answer judged. A reply in text is corrected
// like any failing answer.
func ExampleWithOutputTool() {
	model := cannedModel(
		answer("It is 21 degrees in Paris."), // text, not a call of the tool
		agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{
			{ID: "call_1", Name: "final_result", Arguments: []byte(`{"city":"Paris","tempC":21}`)},
		}},
	)
	a := agent.New(model, agent.WithOutputTool("final_result"), agent.WithOutputRetries(1))

	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", w)
	for _, r := range res.Attempts {
		fmt.Println(r.Attempt, r.Outcome, r.Stage, r.Error)
	}
	// Output:
	// {City:Paris TempC:21}
	// 1 retried json-parse the reply is text, not a call to the tool "final_result"
	// 2 passed
}
