package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
)

// benchModel answers at once and says it enforces the contract natively.
type benchModel struct{ answer string }

func (m benchModel) Generate(context.Context, agent.Request) (agent.Response, error) {
	return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: m.answer}}, nil
}

func (benchModel) OutputModes(json.RawMessage) agent.Modes {
	return agent.Modes{Native: true, Strict: true, Tools: true, Why: "exact"}
}

// BenchmarkAutoOutputMode is BenchmarkRunTyped1KiB's run with the output
// mode chosen per run (off: the same model, prompted as always), so the
// difference is what choosing costs: asking the model, the contract's
// root read for tool mode, the choice recorded.
func BenchmarkAutoOutputMode(b *testing.B) {
	answer := report1KiB(b)
	for _, bc := range []struct {
		name string
		opts []agent.Option
	}{
		{"off", nil},
		{"auto", []agent.Option{agent.WithAutoOutputMode("final_result")}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a := agent.New(benchModel{answer}, append(bc.opts, agent.WithOutputRetries(2))...)
			ctx := context.Background()
			b.SetBytes(int64(len(answer)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := agent.RunTyped[Report](ctx, a, "Count the stock."); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
