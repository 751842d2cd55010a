package agent_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/agent"
)

// The model answers freely, then a smaller one formats the answer. Its
// first try leaves a member out: its row fails and the formatter, not the
// model that reasoned, is asked again. Both steps are on the record.
func ExampleWithFormatStep() {
	reasoner := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{
			Message: agent.Message{Content: "Mild in Paris today: 21 degrees."},
			Usage:   agent.Usage{InputTokens: 40, OutputTokens: 300},
		}, nil
	})
	formats := []string{`{"city":"Paris"}`, `{"city":"Paris","tempC":21}`}
	formatter := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		text := formats[0]
		formats = formats[1:]
		return agent.Response{Message: agent.Message{Content: text}, Usage: agent.Usage{InputTokens: 120, OutputTokens: 12}}, nil
	})
	a := agent.New(reasoner, agent.WithOutputRetries(1), agent.WithFormatStep(formatter))
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	fmt.Printf("%+v %v\n", w, err)
	for _, r := range res.Attempts {
		fmt.Printf("attempt %d, iteration %d: %s %q\n", r.Attempt, r.Iteration, r.Outcome, r.Path)
	}
	for _, m := range res.Models {
		fmt.Printf("format %v: %d requests, %d+%d tokens\n", m.Format, m.Requests, m.Usage.InputTokens, m.Usage.OutputTokens)
	}
	asked := res.Messages[3] // after the input, the free answer and the format step's system message
	fmt.Println(asked.Role, strings.Contains(asked.Content, "21 degrees"))
	// Output:
	// {City:Paris TempC:21} <nil>
	// attempt 1, iteration 2: retried "/tempC"
	// attempt 2, iteration 3: passed ""
	// format false: 1 requests, 40+300 tokens
	// format true: 2 requests, 240+24 tokens
	// user true
}
