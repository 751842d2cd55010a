package agent_test

import (
	"context"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

func ExampleWithToolResultRules() {
	crm := agent.NewTool("crm", "Looks a customer up.", func(context.Context, struct{ ID string }) (string, error) {
		return "Jane Roe, jane.roe@example.org", nil
	})
	turn := 0
	model := agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
		if turn++; turn == 1 {
			return agent.Response{Message: agent.Message{Role: agent.RoleAssistant,
				ToolCalls: []agent.ToolCall{{ID: "c1", Name: "crm", Arguments: []byte(`{"ID": "7"}`)}}}}, nil
		}
		last := req.Messages[len(req.Messages)-1]
		fmt.Println("the model sees:", last.Content)
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "Customer 7 is on file."}}, nil
	})
	a := agent.New(model, agent.WithTools(crm), agent.WithToolResultRules(
		enforce.PII("no-emails", enforce.PIIEmail).Fix(func(_ context.Context, v any, _ []enforce.Issue) (any, error) {
			return "Jane Roe, [email withheld]", nil
		}),
	))
	res, err := a.Run(context.Background(), "Who is customer 7?")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := (*res.Calls[0].Rules)[0]
	fmt.Println(r.Rule, r.Verdict)
	// Output:
	// the model sees: Jane Roe, [email withheld]
	// no-emails fixed
}
