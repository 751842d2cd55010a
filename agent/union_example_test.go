package agent_test

import (
	"context"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
)

// The model chooses a member of the union; the caller switches on the Go
// value's type. An answer naming two members is corrected; each row
// names the member its answer chose.
func ExampleRunUnion() {
	model := cannedModel(
		answer(`{"refund":{"order":"A1","amount":12.5},"escalation":{"team":"billing","reason":"charged twice"}}`),
		answer(`{"refund":{"order":"A1","amount":12.5}}`),
	)
	a := agent.New(model, agent.WithOutputRetries(1))

	u, res, err := agent.RunUnion(context.Background(), a, "Order A1 arrived broken.",
		agent.Member[Refund]("refund", "money back for an order"),
		agent.Member[Escalation]("escalation", "a person must look at it"))
	if err != nil {
		fmt.Println(err)
		return
	}
	switch v := u.Value.(type) {
	case Refund:
		fmt.Printf("refund %s: %.2f\n", v.Order, v.Amount)
	case Escalation:
		fmt.Printf("escalated to %s\n", v.Team)
	}
	for _, r := range res.Attempts {
		fmt.Printf("%d %s member=%q %s\n", r.Attempt, r.Outcome, r.Member, r.Error)
	}
	// Output:
	// refund A1: 12.50
	// 1 retried member="" the answer names 2 members of the union: give exactly one member, named for your choice: "refund", "escalation"
	// 2 passed member="refund"
}
