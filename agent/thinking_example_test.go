package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
)

// A reasoning model writes its thinking before its answer. The first reply
// thinks until the output limit and never answers: its row fails at
// no-answer, and the model is asked for the answer. The second thinks in
// tags, then answers: the thinking is kept beside the answer, never
// judged, and its row says how much there was.
func ExampleWithInlineThinking() {
	replies := []agent.Response{
		{Message: agent.Message{Content: "<think>\nParis in June. Let me consider"}, Stop: agent.StopLength},
		{Message: agent.Message{Content: "<think>Paris, June: mild.</think>\n" + `{"city":"Paris","tempC":21}`}},
	}
	calls := 0
	m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		calls++
		return replies[calls-1], nil
	})
	a := agent.New(m, agent.WithOutputRetries(1)) // inline thinking is read by default
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	fmt.Printf("%+v %v\n", w, err)
	for _, r := range res.Attempts {
		thinking, _ := json.Marshal(r.Thinking)
		fmt.Printf("attempt %d: %s %q %s\n", r.Attempt, r.Outcome, r.Stage, thinking)
	}
	last := res.Messages[len(res.Messages)-1]
	fmt.Printf("content %s, reasoning %q\n", last.Content, last.Reasoning)
	// Output:
	// {City:Paris TempC:21} <nil>
	// attempt 1: retried "no-answer" {"bytes":38,"inline":true}
	// attempt 2: passed "" {"bytes":34,"inline":true}
	// content {"city":"Paris","tempC":21}, reasoning "Paris, June: mild."
}

// DeepSeek R1's chat template ends the prompt with "<think>\n", so a
// server with no reasoning parser returns the thinking with only its
// closing tag. With WithHeadlessThinking, the text before a </think>
// alone on its line is read as thinking.
func ExampleWithHeadlessThinking() {
	m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Content: "Paris in June is mild.\n</think>\n\n" + `{"city":"Paris","tempC":21}`}}, nil
	})
	a := agent.New(m, agent.WithOutputRetries(1), agent.WithHeadlessThinking())
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	thinking, _ := json.Marshal(res.Attempts[0].Thinking)
	fmt.Printf("%+v %v %s\n", w, err, thinking)
	fmt.Printf("reasoning %q\n", res.Messages[len(res.Messages)-1].Reasoning)
	// Output:
	// {City:Paris TempC:21} <nil> {"bytes":33,"inline":true}
	// reasoning "Paris in June is mild."
}
