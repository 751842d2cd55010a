// thinking: a reasoning model thinks before it answers, in <think> tags
// at the start of its text, as Qwen3 or DeepSeek R1 do on a server with
// no reasoning parser. Its first reply thinks until the output limit and
// never answers: that is no malformed answer, and it is asked for the
// answer. Its second thinks, then answers: the thinking is kept beside
// the answer, never judged, and each row says how much there was.
//
//	go run ./examples/thinking
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/enforcer-go/enforcer/agent"
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

// replies are the model's: one cut at the output limit while thinking,
// then one that thinks and answers.
var replies = []agent.Response{
	{Message: agent.Message{Content: "<think>\nThe user wants the weather in Paris. In June it is mild, around"},
		Stop: agent.StopLength, Usage: agent.Usage{InputTokens: 90, OutputTokens: 256}},
	{Message: agent.Message{Content: "<think>\nParis in June: about 21 degrees.\n</think>\n\n{\"city\": \"Paris\", \"tempC\": 21}"},
		Stop: agent.StopComplete, Usage: agent.Usage{InputTokens: 180, OutputTokens: 40}},
}

func run(ctx context.Context, out io.Writer) error {
	calls := 0
	model := agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		calls++
		return replies[calls-1], nil
	})
	a := agent.New(model, agent.WithOutputRetries(2))
	w, res, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "answer: %+v\n", w)
	for _, r := range res.Attempts {
		row, err := json.Marshal(r)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "row: %s\n", row)
	}
	corrective := res.Messages[3] // system, user, the reply cut short, then the correction
	fmt.Fprintf(out, "corrective turn:\n%s\n", corrective.Content)
	last := res.Messages[len(res.Messages)-1]
	fmt.Fprintf(out, "reasoning kept beside the answer: %q\n", last.Reasoning)
	return nil
}
