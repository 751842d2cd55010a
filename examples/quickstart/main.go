// Quickstart: an agent whose model answers in prose, then with a wrong
// type, then correctly. enforcer judges each final answer against the
// contract reflected from Weather, sends a corrective turn after each
// failure, and keeps one attempt row per answer. The session stream shows
// each step live, as a streaming client would see it.
//
// With OPENAI_BASE_URL set (and optionally OPENAI_API_KEY and
// ENFORCER_MODEL), the same program runs against that OpenAI-compatible
// endpoint instead: OpenAI, Ollama, vLLM, llama.cpp's server.
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

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	enforceropenai "github.com/enforcer-go/enforcer/providers/openai"
)

// Weather is the output contract: the answer must decode into it.
type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
	Sky   string  `json:"sky" jsonschema:"enum=clear,enum=cloudy,enum=rain"`
}

// scripted stands in for a real model: no network, no keys.
func scripted() agent.Model {
	replies := []string{
		"It's a lovely 21 degrees and sunny in Paris today!",
		`{"city": "Paris", "tempC": "21", "sky": "clear"}`,
		`{"city": "Paris", "tempC": 21, "sky": "clear"}`,
	}
	n := 0
	return agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		r := replies[min(n, len(replies)-1)]
		n++
		return agent.Response{
			Message: agent.Message{Role: agent.RoleAssistant, Content: r},
			Usage:   agent.Usage{InputTokens: 120, OutputTokens: 20},
		}, nil
	})
}

func main() {
	if err := run(context.Background(), os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "run failed:", err)
		os.Exit(1)
	}
}

// chooseModel picks the scripted model, or a real OpenAI-compatible
// endpoint when OPENAI_BASE_URL is set (OPENAI_API_KEY and ENFORCER_MODEL
// optional), and says which.
func chooseModel(out io.Writer, getenv func(string) string) agent.Model {
	base := getenv("OPENAI_BASE_URL")
	if base == "" {
		fmt.Fprintln(out, "model: scripted (no network, no keys; set OPENAI_BASE_URL to use a real endpoint)")
		return scripted()
	}
	key, name := getenv("OPENAI_API_KEY"), getenv("ENFORCER_MODEL")
	if key == "" {
		key = "unused" // local servers such as Ollama ignore it, but the client needs one
	}
	if name == "" {
		name = "gpt-4o-mini"
	}
	fmt.Fprintf(out, "model: %s at %s (from OPENAI_BASE_URL)\n", name, base)
	client := openai.NewClient(option.WithBaseURL(base), option.WithAPIKey(key))
	return enforceropenai.New(client, name)
}

func run(ctx context.Context, out io.Writer, getenv func(string) string) error {
	// The session stream: what a UI would watch while the turn runs.
	stream, err := events.NewStream("quickstart", events.NewMemoryLog())
	if err != nil {
		return err
	}
	defer stream.Close()
	watched := make(chan error, 1)
	go func() { watched <- watch(ctx, out, stream) }()

	a := agent.New(chooseModel(out, getenv), agent.WithOutputRetries(2), agent.WithEvents(stream),
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
	fmt.Fprintf(out, "model calls: %d, tokens in/out: %d/%d\n", res.Iterations, res.Usage.InputTokens, res.Usage.OutputTokens)
	return nil
}

// watch prints each turn notification as it happens, as a UI would show
// it. (The stream also carries output/schemaRetry, the ledger's event.)
func watch(ctx context.Context, out io.Writer, s *events.Stream) error {
	for n, err := range s.Subscribe(ctx, "") {
		if err != nil {
			return err
		}
		if strings.HasPrefix(n.Method, "turn/") {
			fmt.Fprintf(out, "  %s\n", events.Describe(n, 0))
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
