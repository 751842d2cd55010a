package agent_test

import (
	"context"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// replies is a model that answers with each reply in turn.
func replies(rs ...string) agent.Model {
	return agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
		r := rs[0]
		rs = rs[1:]
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: r}}, nil
	})
}

func ExampleRunChoice() {
	type Sentiment string
	labels, _ := enforce.Choice(
		enforce.Label{Name: "positive", Description: "the reviewer liked it"},
		enforce.Label{Name: "negative", Description: "the reviewer did not"},
	)
	a := agent.New(replies("Positive sentiment", "positive"), agent.WithOutputSchema(labels), agent.WithOutputRetries(1))
	s, res, err := agent.RunChoice[Sentiment](context.Background(), a, "Review: lovely.")
	fmt.Println(s, err)
	for _, r := range res.Attempts {
		fmt.Println(r.Attempt, r.Outcome, r.Kind, r.Error)
	}
	// Output:
	// positive <nil>
	// 1 retried choice (root) must be one of the following: "positive", "negative"
	// 2 passed choice
}

func ExampleRunText() {
	rules, _ := enforce.Text(enforce.MaxLength(30), enforce.MustContain("Paris"))
	a := agent.New(replies("It is sunny.", "Sunny in Paris."), agent.WithOutputSchema(rules), agent.WithOutputRetries(1))
	text, res, err := agent.RunText(context.Background(), a, "Weather in Paris?")
	fmt.Printf("%q %v\n", text, err)
	for _, r := range res.Attempts {
		fmt.Println(r.Attempt, r.Outcome, r.Kind, r.Stage, r.Error)
	}
	// Output:
	// "Sunny in Paris." <nil>
	// 1 retried text schema-validate the text does not contain "Paris", which it must
	// 2 passed text
}
