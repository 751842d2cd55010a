package otel_test

import (
	"context"
	"fmt"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A run whose first answer breaks the contract: one invoke_agent span,
// a chat span per model call beneath it, and the ledger's rows as events.
func ExampleObserver() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())

	schema, _ := enforce.SchemaFor[Weather]()
	replies := []agent.Response{
		{Message: agent.Message{Content: "It is hot in Zanzibar."}, Usage: agent.Usage{InputTokens: 120, OutputTokens: 9}},
		{Message: agent.Message{Content: `{"city":"Zanzibar","tempC":31}`}, Usage: agent.Usage{InputTokens: 160, OutputTokens: 12}},
	}
	model := agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
		return replies[len(req.Messages)/2-1], nil // 2 messages, then 4
	})
	a := agent.New(model, agent.WithOutputSchema(schema), agent.WithOutputRetries(2),
		agent.WithClock(func() time.Time { return time.Time{} }), // so that no latency shows
		agent.WithObserver(otel.Observer(otel.WithTracerProvider(tp), otel.WithModel("openai", "gpt-4o-mini"))))

	if _, err := a.Run(context.Background(), "Weather in Zanzibar?"); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range exp.GetSpans() { // in the order they ended
		fmt.Println(s.Name)
		for _, e := range s.Events {
			fmt.Print("  ", e.Name, ":")
			for _, kv := range e.Attributes {
				fmt.Print(" ", kv.Key, "=", kv.Value.Emit())
			}
			fmt.Println()
		}
	}
	// Output:
	// chat gpt-4o-mini
	// chat gpt-4o-mini
	// invoke_agent
	//   enforcer.attempt: enforcer.attempt.number=1 enforcer.attempt.iteration=1 enforcer.attempt.outcome=retried enforcer.attempt.stage=json-parse enforcer.attempt.corrective_message_hash=1503b98b enforcer.attempt.error.length=60 enforcer.attempt.error.hash=143811fa gen_ai.usage.input_tokens=120 gen_ai.usage.output_tokens=9
	//   enforcer.attempt: enforcer.attempt.number=2 enforcer.attempt.iteration=2 enforcer.attempt.outcome=passed gen_ai.usage.input_tokens=160 gen_ai.usage.output_tokens=12
}

// The adapters tell their provider and model (openai.Model,
// anthropic.Model and gemini.Model have ProviderName and ModelName
// methods), so the spans
// name them as the GenAI conventions ask.
func ExampleWithModelOf() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())

	// namedModel tells "anthropic" and "claude-test", as
	// anthropic.New(client, "claude-test") would.
	model := namedModel{agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Content: "Hot."}}, nil
	})}
	a := agent.New(model, agent.WithObserver(otel.Observer(otel.WithTracerProvider(tp), otel.WithModelOf(model))))

	if _, err := a.Run(context.Background(), "Weather in Zanzibar?"); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range exp.GetSpans() {
		for _, kv := range s.Attributes {
			if kv.Key == "gen_ai.provider.name" {
				fmt.Println(s.Name, kv.Key, kv.Value.Emit())
			}
		}
	}
	// Output:
	// chat claude-test gen_ai.provider.name anthropic
	// invoke_agent gen_ai.provider.name anthropic
}
