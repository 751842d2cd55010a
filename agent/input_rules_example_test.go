package agent_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

func ExampleWithInputRules() {
	model := agent.ModelFunc(func(ctx context.Context, _ agent.Request) (agent.Response, error) {
		<-ctx.Done() // the rule trips while the first call is in flight
		return agent.Response{}, ctx.Err()
	})
	a := agent.New(model, agent.WithInputRules(
		enforce.ForbiddenWords("injection", "ignore previous instructions"),
		enforce.PII("no-cards", enforce.PIICard),
	))
	_, err := a.Run(context.Background(), "My card is 4111 1111 1111 1111, book it.")
	var ie *agent.InputRuleError
	if errors.As(err, &ie) && errors.Is(err, enforce.ErrTripwire) {
		fmt.Println(ie.Rule, "tripped:", ie.Issues[0].Message)
	}
	// Output:
	// no-cards tripped: holds a credit-card number at byte 11
}
