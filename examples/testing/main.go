// testing: how a team asserts on what enforcer records. The agent here is
// the code under test; main_test.go drives it with agenttest's scripted
// model and asserts on Result.Attempts — rows, not log lines.
//
//	go test ./examples/testing
//	go run ./examples/testing
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/enforcer-go/enforcer/agent"
)

// Triage is the output contract of the support agent.
type Triage struct {
	Priority string `json:"priority" jsonschema:"enum=low,enum=normal,enum=urgent"`
	Team     string `json:"team"`
}

// NewTriageAgent is the production constructor under test.
func NewTriageAgent(m agent.Model) *agent.Agent {
	return agent.New(m,
		agent.WithSystemPrompt("You triage support tickets."),
		agent.WithOutputRetries(2),
		// Its model runs at temperature 0: an answer that fails as the one
		// before it did will fail so again, so stop rather than pay for it.
		agent.WithRepeatLimit(2),
	)
}

// Triage a ticket.
func TriageTicket(ctx context.Context, a *agent.Agent, ticket string) (Triage, *agent.Result, error) {
	return agent.RunTyped[Triage](ctx, a, ticket)
}

func main() {
	m := agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant,
			Content: `{"priority": "urgent", "team": "billing"}`}}, nil
	})
	t, res, err := TriageTicket(context.Background(), NewTriageAgent(m), "I was charged twice!")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%+v after %d attempt(s); see main_test.go for the assertions\n", t, len(res.Attempts))
}
