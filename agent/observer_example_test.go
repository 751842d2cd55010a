package agent_test

import (
	"context"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// An observer sees each run, model call and attempt row as it happens; a
// tracer would start a span in each Start func and end it in the End one
// (module github.com/enforcer-go/enforcer/otel does).
func ExampleWithObserver() {
	model := cannedModel(
		answer("It is 21 degrees in Paris."),
		answer(`{"city":"Paris","tempC":21}`),
	)
	obs := agent.Observer{
		RunStart: func(ctx context.Context, turn, input string) context.Context {
			fmt.Printf("run: %q\n", input)
			return ctx
		},
		ModelEnd: func(_ context.Context, c agent.ModelCall) {
			fmt.Printf("  model call: %d messages in, %d tokens out\n", len(c.Request.Messages), c.Response.Usage.OutputTokens)
		},
		Attempt: func(_ context.Context, row enforce.Attempt) {
			fmt.Printf("  attempt %d %s", row.Attempt, row.Outcome)
			if row.Stage != "" {
				fmt.Print(" at ", row.Stage)
			}
			fmt.Println()
		},
		RunEnd: func(_ context.Context, res *agent.Result, err error) {
			fmt.Printf("done after %d iterations, err %v\n", res.Iterations, err)
		},
	}
	a := agent.New(model, agent.WithOutputRetries(2), agent.WithObserver(obs))

	if _, _, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// run: "Weather in Paris?"
	//   model call: 2 messages in, 10 tokens out
	//   attempt 1 retried at json-parse
	//   model call: 4 messages in, 10 tokens out
	//   attempt 2 passed
	// done after 2 iterations, err <nil>
}
