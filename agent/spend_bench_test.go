package agent_test

import (
	"context"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// BenchmarkSpend is BenchmarkRun1KiB's run with a run's budget, prices,
// escalation and the degenerate-stream stop configured but not reached,
// beside the same run with none of them: what they cost a run that
// never needs them.
func BenchmarkSpend(b *testing.B) {
	answer := report1KiB(b)
	s, err := enforce.SchemaFor[Report]()
	if err != nil {
		b.Fatal(err)
	}
	model := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: answer}, Usage: agent.Usage{InputTokens: 900, OutputTokens: 300}}, nil
	})
	for _, bc := range []struct {
		name string
		opts []agent.Option
	}{
		{"none", nil},
		{"budget+escalation", []agent.Option{
			agent.WithBudget(agent.Budget{TotalTokens: 1 << 20, Requests: 10, Money: 5}),
			agent.WithPrices(map[string]agent.Price{"": {Input: 1, Output: 4}}),
			agent.WithEscalation(agent.Escalation{Models: []agent.Model{model}, AfterFailures: 1, OnRefusal: true}),
			agent.WithDegenerateStop(agent.Degenerate{Whitespace: 256, Window: 512, Repeats: 8}),
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a := agent.New(model, append([]agent.Option{agent.WithOutputSchema(s), agent.WithOutputRetries(2)}, bc.opts...)...)
			ctx := context.Background()
			b.SetBytes(int64(len(answer)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Run(ctx, "Count the stock."); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
