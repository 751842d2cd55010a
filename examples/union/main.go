// union: the model answers a refund or an escalation, its choice, and
// the caller gets the Go value of the one it chose. Its first answer
// names both, its second names neither (it gives an escalation
// unwrapped); each is corrected, the second with what each member
// lacks, and the third passes. Every row names the member chosen.
//
//	go run ./examples/union
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/enforcer-go/enforcer/agent"
)

// Refund and Escalation are the members of the union.
type (
	Refund struct {
		Order  string  `json:"order"`
		Amount float64 `json:"amount"`
	}
	Escalation struct {
		Team   string `json:"team"`
		Reason string `json:"reason"`
	}
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// replies are the scripted model's answers, in order.
var replies = []string{
	`{"refund":{"order":"A1","amount":12.5},"escalation":{"team":"billing","reason":"charged twice"}}`,
	`{"team":"billing","reason":"charged twice"}`,
	`{"escalation":{"team":"billing","reason":"charged twice"}}`,
}

func run(ctx context.Context, out io.Writer) error {
	calls := 0
	model := agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		if calls == len(replies) {
			return agent.Response{}, fmt.Errorf("the script has %d replies", len(replies))
		}
		calls++
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: replies[calls-1]}}, nil
	})
	a := agent.New(model, agent.WithOutputRetries(2))
	u, res, err := agent.RunUnion(ctx, a, "Order A1 was charged twice.",
		agent.Member[Refund]("refund", "money back for an order"),
		agent.Member[Escalation]("escalation", "a person must look at it"))
	if err != nil {
		return err
	}
	for i, r := range res.Attempts {
		member := r.Member
		if member == "" {
			member = "-"
		}
		fmt.Fprintf(out, "attempt %d  %-7s  member %s\n", r.Attempt, r.Outcome, member)
		if r.CorrectiveMessageHash == "" {
			continue
		}
		// The corrective turn follows the failed answer; show its issues.
		for _, line := range strings.Split(correction(res.Messages, i), "\n") {
			if strings.HasPrefix(line, "- ") {
				fmt.Fprintf(out, "    %s\n", line)
			}
		}
	}
	switch v := u.Value.(type) {
	case Refund:
		fmt.Fprintf(out, "refund %s: %.2f\n", v.Order, v.Amount)
	case Escalation:
		fmt.Fprintf(out, "escalated to %s: %s\n", v.Team, v.Reason)
	}
	return nil
}

// correction returns the corrective message of the i-th failed answer
// (0-based): the user messages after the first are the corrections, in
// order.
func correction(msgs []agent.Message, i int) string {
	n := -1
	for _, m := range msgs {
		if m.Role == agent.RoleUser {
			if n == i {
				return m.Content
			}
			n++
		}
	}
	return ""
}
