package agent_test

import (
	"context"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// The Cancellable benchmarks are BenchmarkRun1KiB and
// BenchmarkRunTypedStreamed16B under a context that can end, where the
// model call runs on a goroutine of its own so that a model that ignores
// the context does not hold the run (see the package doc's Cancellation).

func BenchmarkRun1KiBCancellable(b *testing.B) {
	answer := report1KiB(b)
	s, err := enforce.SchemaFor[Report]()
	if err != nil {
		b.Fatal(err)
	}
	model := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: answer}}, nil
	})
	a := agent.New(model, agent.WithOutputSchema(s), agent.WithOutputRetries(2))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Run(ctx, "Count the stock."); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunTypedStreamed16BCancellable(b *testing.B) {
	answer := report1KiB(b)
	a := agent.New(replay(chunked(answer)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := agent.RunTyped[Report](ctx, a, "Count the stock."); err != nil {
			b.Fatal(err)
		}
	}
}
