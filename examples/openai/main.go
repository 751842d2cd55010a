// openai: the quickstart's contract against a real OpenAI-compatible
// endpoint — OpenAI, Ollama, vLLM, llama.cpp's server — through the
// providers/openai adapter. It is a module of its own because it links the
// OpenAI SDK; the quickstart needs nothing but the core module.
//
//	OPENAI_BASE_URL=http://localhost:11434/v1/ ENFORCER_MODEL=llama3.2 go run ./examples/openai
//
// OPENAI_API_KEY is sent when set; ENFORCER_MODEL defaults to gpt-4o-mini.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"text/tabwriter"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/enforcer-go/enforcer/agent"
	enforceropenai "github.com/enforcer-go/enforcer/providers/openai"
)

// Weather is the output contract: the answer must decode into it.
type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
	Sky   string  `json:"sky" jsonschema:"enum=clear,enum=cloudy,enum=rain"`
}

func main() {
	err := run(context.Background(), os.Stdout, os.Getenv, agent.RetryPolicy{})
	if errors.Is(err, errNoEndpoint) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "run failed:", err)
		os.Exit(1)
	}
}

var errNoEndpoint = errors.New("set OPENAI_BASE_URL to an OpenAI-compatible endpoint, e.g. http://localhost:11434/v1/ for Ollama (go run ./examples/quickstart needs none)")

// run asks the endpoint named by getenv for the weather under the
// contract; retry paces the model-call retries (WithModelRetry).
func run(ctx context.Context, out io.Writer, getenv func(string) string, retry agent.RetryPolicy) error {
	base := getenv("OPENAI_BASE_URL")
	if base == "" {
		return errNoEndpoint
	}
	key, name := getenv("OPENAI_API_KEY"), getenv("ENFORCER_MODEL")
	if key == "" {
		key = "unused" // local servers such as Ollama ignore it, but the client needs one
	}
	if name == "" {
		name = "gpt-4o-mini"
	}
	fmt.Fprintf(out, "model: %s at %s\n", name, base)
	client := openai.NewClient(option.WithBaseURL(base), option.WithAPIKey(key))
	model := enforceropenai.New(client, name)

	// Count the requests sent: Result.Iterations counts model replies, and
	// a request retried under WithModelRetry is one iteration but two
	// requests. (The adapter switches the SDK's own retries off, so each
	// Generate is one request.)
	var requests atomic.Int64
	counted := agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		requests.Add(1)
		return model.Generate(ctx, req)
	})

	a := agent.New(counted, agent.WithOutputRetries(2), agent.WithModelRetry(retry))
	w, res, err := agent.RunTyped[Weather](ctx, a, "What's the weather in Paris? Answer as JSON.")
	if res == nil {
		return err // the model was never called
	}

	fmt.Fprintln(out, "attempt ledger:")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  attempt\titeration\toutcome\tstage\tpath\terror")
	for _, r := range res.Attempts {
		fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%s\n", r.Attempt, r.Iteration, r.Outcome,
			dash(string(r.Stage)), dash(r.Path), dash(r.Error))
	}
	tw.Flush()
	fmt.Fprintf(out, "iterations (model replies): %d\n", res.Iterations)
	fmt.Fprintf(out, "requests sent (counted at the model): %d\n", requests.Load())
	fmt.Fprintf(out, "tokens in/out: %d/%d\n", res.Usage.InputTokens, res.Usage.OutputTokens)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "accepted on attempt %d: %+v\n", len(res.Attempts), w)
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
