// repair: the model answers right, but in a markdown fence, as models
// often do. Without repairs that costs a corrective turn and a second
// model call; with agent.WithRepairs the fence is removed locally, the
// answer passes on the first call, and its row says what was mended.
// The conversation keeps what the model wrote.
//
//	go run ./examples/repair
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// Weather is the output contract.
type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// fenced is the model's reply: right, but fenced, and a number quoted.
const fenced = "```json\n{\"city\": \"Paris\", \"tempC\": \"21\"}\n```"

func run(ctx context.Context, out io.Writer) error {
	for _, repairs := range []enforce.Repairs{0, enforce.RepairFence | enforce.RepairCoerce} {
		calls := 0
		model := agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
			calls++
			return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: fenced},
				Usage: agent.Usage{InputTokens: 120, OutputTokens: 20}}, nil
		})
		a := agent.New(model, agent.WithOutputRetries(1), agent.WithRepairs(repairs))
		w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
		name := repairs.String()
		if name == "" {
			name = "none"
		}
		fmt.Fprintf(out, "repairs: %s\n", name)
		fmt.Fprintf(out, "  model calls: %d\n", calls)
		if err != nil {
			fmt.Fprintf(out, "  error: %v\n", err)
		} else {
			fmt.Fprintf(out, "  answer: %+v\n", w)
		}
		for _, r := range res.Attempts {
			row, err := json.Marshal(r)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "  row: %s\n", row)
		}
	}
	return nil
}
