package langchaingo_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/tools"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/langchaingo"
)

func ExampleNewModel() {
	// llm is any langchaingo llms.Model (openai.New, anthropic.New,
	// ollama.New, …); langchaingo's fake answers from a script.
	llm := fake.NewFakeLLM([]string{"It is 21C in Paris.", `{"city": "Paris", "tempC": 21}`})
	s, _ := enforce.SchemaFor[Weather]()
	a := agent.New(langchaingo.NewModel(llm), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", w)
	for _, r := range res.Attempts {
		fmt.Println(strings.TrimSpace(fmt.Sprintln(r.Attempt, r.Outcome, r.Stage)))
	}
	// Output:
	// {City:Paris TempC:21}
	// 1 retried json-parse
	// 2 passed
}

func ExampleChain() {
	// The agent executor a program already has: its model looks the
	// weather up, answers in a fence, and once corrected, in JSON.
	llm := fake.NewFakeLLM([]string{
		"I should look it up.\nAction: lookup\nAction Input: Paris",
		"Final Answer: ```json\n{\"city\": \"Paris\", \"tempC\": 21}\n```",
		`Final Answer: {"city": "Paris", "tempC": 21}`,
	})
	exec := agents.NewExecutor(agents.NewOneShotAgent(llm, []tools.Tool{&lookup{}}))

	s, _ := enforce.SchemaFor[Weather]()
	a := agent.New(langchaingo.Chain(exec), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", w)
	for _, r := range res.Attempts {
		fmt.Println(strings.TrimSpace(fmt.Sprintln(r.Attempt, r.Outcome, r.Stage, r.CorrectiveMessageHash)))
	}
	// Output:
	// {City:Paris TempC:21}
	// 1 retried json-parse fd65d1c0
	// 2 passed
}

func ExampleJudgeTool() {
	// A one-shot agent's model gives the tool arguments that break its
	// parameters, then, told so, arguments that keep them.
	llm := fake.NewFakeLLM([]string{
		"Action: lookup\nAction Input: {\"town\": \"Paris\"}",
		"Action: lookup\nAction Input: {\"city\": \"Paris\"}",
		`Final Answer: {"city": "Paris", "tempC": 21}`,
	})
	calls, _ := langchaingo.NewToolCalls(0, 3, 0) // no repairs, the run ends at the 3rd failed call of one tool in a row
	lookup, err := langchaingo.JudgeTool(calls, weatherLookup{},
		[]byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	exec := agents.NewExecutor(agents.NewOneShotAgent(llm, []tools.Tool{lookup}))
	s, _ := enforce.SchemaFor[Weather]()
	if _, _, err := agent.RunTyped[Weather](context.Background(), agent.New(langchaingo.Chain(exec), agent.WithOutputSchema(s)), "Weather in Paris?"); err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range calls.Rows() {
		fmt.Println(strings.TrimSpace(fmt.Sprintln(r.Tool, r.Outcome, r.Stage, r.Path)))
	}
	// Output:
	// lookup retried schema-validate /city
	// lookup passed
}

// weatherLookup is a langchaingo tool whose input is JSON arguments.
type weatherLookup struct{}

func (weatherLookup) Name() string { return "lookup" }
func (weatherLookup) Description() string {
	return "Current weather of a city; input: {\"city\": NAME}."
}
func (weatherLookup) Call(context.Context, string) (string, error) {
	return "21C", nil
}
