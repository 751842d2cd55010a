// langchaingo: a langchaingo agent executor, kept as it is, run under the
// output contract. The executor's agent looks the weather up with its own
// tool, then answers in a markdown fence; the corrective turn becomes the
// executor's next input, with the failed answer before it, and the
// executor answers again in JSON. No network: the executor's model is
// langchaingo's own fake — put openai.New, anthropic.New, ollama.New, …
// in its place.
//
//	go run ./examples/langchaingo
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/tools"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/langchaingo"
)

// Weather is the output contract.
type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

// lookup is a langchaingo tool.
type lookup struct{ calls int }

func (l *lookup) Name() string        { return "lookup" }
func (l *lookup) Description() string { return "Current weather of a city." }
func (l *lookup) Call(_ context.Context, city string) (string, error) {
	l.calls++
	return city + ": 21C, clear", nil
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	// The langchaingo side: a one-shot (ReAct) agent with one tool, in
	// an executor.
	llm := fake.NewFakeLLM([]string{
		"I should look it up.\nAction: lookup\nAction Input: Paris",
		"Final Answer: ```json\n{\"city\": \"Paris\", \"tempC\": 21}\n```",
		`Final Answer: {"city": "Paris", "tempC": 21}`,
	})
	tool := &lookup{}
	exec := agents.NewExecutor(agents.NewOneShotAgent(llm, []tools.Tool{tool}))

	// The enforcer side: the contract around the executor.
	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		return err
	}
	a := agent.New(langchaingo.Chain(exec), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "accepted: %+v\n", w)
	for _, r := range res.Attempts {
		r.LatencyMs = 0 // the clock's, not the script's
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "row: %s\n", b)
	}
	fmt.Fprintf(out, "executor runs: %d, tool calls: %d\n", res.Iterations, tool.calls)
	return nil
}
