package agent_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// A right answer in a markdown fence, its number written as a string:
// with the fence and coerce repairs it passes with no second model call,
// and its row says what was mended.
func ExampleWithRepairs() {
	model := cannedModel(answer("```json\n{\"city\": \"Paris\", \"tempC\": \"21\"}\n```"))
	a := agent.New(model, agent.WithOutputRetries(2), agent.WithRepairs(enforce.RepairFence|enforce.RepairCoerce))
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	fmt.Println(w, err)
	fmt.Println(res.Attempts[0].Outcome, res.Attempts[0].Repaired)
	// Output:
	// {Paris 21} <nil>
	// passed fence,coerce
}

// A run whose failed answers have cost more than 150 input tokens stops,
// its retries unspent.
func ExampleWithFailedCostBudget() {
	calls := 0
	model := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		calls++
		return agent.Response{Message: answer("It is warm in Paris."), Usage: agent.Usage{InputTokens: 100, OutputTokens: 8}}, nil
	})
	a := agent.New(model, agent.WithOutputRetries(5), agent.WithFailedCostBudget(enforce.Cost{InputTokens: 150}))
	_, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	fmt.Println(calls, errors.Is(err, enforce.ErrBudget), res.Attempts[1].Reason, res.FailedCost.InputTokens)
	// Output:
	// 2 true budget 200
}
