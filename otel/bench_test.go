package otel_test

import (
	"context"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkRun is a one-iteration run with retries on, untraced and
// traced (every span sampled, kept in memory and dropped each round), so
// what tracing adds to a run shows.
func BenchmarkRun(b *testing.B) {
	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		b.Fatal(err)
	}
	model := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Content: valid}, Usage: agent.Usage{InputTokens: 100, OutputTokens: 10}}, nil
	})
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	for _, bc := range []struct {
		name string
		opts []agent.Option
	}{
		{"untraced", nil},
		{"traced", []agent.Option{agent.WithObserver(otel.Observer(otel.WithTracerProvider(tp)))}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a := agent.New(model, append([]agent.Option{agent.WithOutputSchema(s), agent.WithOutputRetries(2)}, bc.opts...)...)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Run(ctx, prompt); err != nil {
					b.Fatal(err)
				}
				exp.Reset()
			}
		})
	}
}
