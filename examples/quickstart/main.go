// Quickstart: an agent whose model answers in prose, then with a wrong
// type, then correctly. enforcer judges each final answer against the
// contract reflected from Weather, sends a corrective turn after each
// failure, and keeps one ledger row per answer. The session stream shows
// each step live, as a streaming client would see it.
//
// The model is scripted: no network, no keys, and nothing but the core
// module to build. examples/openai runs the same contract against a real
// OpenAI-compatible endpoint.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
)

// Weather is the output contract: the answer must decode into it.
type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
	Sky   string  `json:"sky" jsonschema:"enum=clear,enum=cloudy,enum=rain"`
}

// scripted stands in for a real model. It counts the requests it receives:
// the agent's Iterations counts model replies, and a request retried under
// WithModelRetry is one iteration but two requests.
func scripted(requests *int) agent.Model {
	replies := []string{
		"It's a lovely 21 degrees and sunny in Paris today!",
		`{"city": "Paris", "tempC": "21", "sky": "clear"}`,
		`{"city": "Paris", "tempC": 21, "sky": "clear"}`,
	}
	return agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		r := replies[min(*requests, len(replies)-1)]
		*requests++
		return agent.Response{
			Message: agent.Message{Role: agent.RoleAssistant, Content: r},
			Usage:   agent.Usage{InputTokens: 120, OutputTokens: 20},
		}, nil
	})
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "run failed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	// The session stream: what a UI would watch while the turn runs.
	stream, err := events.NewStream("quickstart", events.NewMemoryLog())
	if err != nil {
		return err
	}
	defer stream.Close()
	watched := make(chan error, 1)
	go func() { watched <- watch(ctx, out, stream) }()

	fmt.Fprintln(out, "model: scripted (no network, no keys; examples/openai runs a real endpoint)")
	requests := 0
	a := agent.New(scripted(&requests), agent.WithOutputRetries(2), agent.WithEvents(stream),
		agent.WithModelRetry(agent.RetryPolicy{}))
	fmt.Fprintln(out, "live:")
	w, res, err := agent.RunTyped[Weather](ctx, a, "What's the weather in Paris? Answer as JSON.")
	if werr := <-watched; werr != nil {
		return werr
	}

	fmt.Fprintln(out, "\nattempt ledger:")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  attempt\titeration\toutcome\tstage\tpath\tcorrective\terror")
	for _, r := range res.Attempts {
		fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Attempt, r.Iteration, r.Outcome,
			dash(string(r.Stage)), dash(r.Path), dash(r.CorrectiveMessageHash), dash(r.Error))
	}
	tw.Flush()
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "\naccepted on attempt %d: %+v\n", len(res.Attempts), w)
	fmt.Fprintf(out, "iterations (model replies): %d\n", res.Iterations)
	fmt.Fprintf(out, "requests sent (counted at the model): %d\n", requests)
	fmt.Fprintf(out, "tokens in/out: %d/%d\n", res.Usage.InputTokens, res.Usage.OutputTokens)
	return nil
}

// watch prints each turn notification as it happens, as a UI would show
// it. (The stream also carries output/schemaRetry, the ledger's event.)
func watch(ctx context.Context, out io.Writer, s *events.Stream) error {
	for n, err := range s.Subscribe(ctx, "") {
		if err != nil {
			return err
		}
		if strings.HasPrefix(string(n.Method), "turn/") {
			fmt.Fprintf(out, "  %s\n", n.Describe(0))
		}
		if n.Method == "turn/completed" {
			return nil
		}
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
