package fantasy_test

import (
	"context"
	"fmt"
	"strings"

	charm "charm.land/fantasy"
	"charm.land/fantasy/object"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/fantasy"
)

func ExampleNewModel() {
	// lm is any fantasy.LanguageModel (its OpenAI, Anthropic, Google,
	// OpenRouter providers, …); this one answers from a script.
	lm := &scripted{replies: []string{"It is 21C in Paris.", `{"city": "Paris", "tempC": 21}`}}
	s, _ := enforce.SchemaFor[Weather]()
	a := agent.New(fantasy.NewModel(lm, charm.Call{}), agent.WithOutputSchema(s), agent.WithOutputRetries(2))
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

func ExampleAgent() {
	lm := &scripted{replies: []string{"Sunny, 21C.", `{"city": "Paris", "tempC": 21}`}}
	// The fantasy agent a program already has, with its tools and system
	// prompt; each of its runs is one answer of the enforcer agent.
	fa := charm.NewAgent(lm, charm.WithSystemPrompt("You report the weather."))
	s, _ := enforce.SchemaFor[Weather]()
	a := agent.New(fantasy.Agent(fa, charm.AgentCall{}), agent.WithOutputSchema(s), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.City, len(res.Attempts), "rows")
	// Output:
	// Paris 2 rows
}

func ExampleRepairText() {
	// fantasy mends broken JSON itself; a number written as a string it
	// refuses, and hands to the hook.
	lm := &scripted{replies: []string{`{"city": "Paris", "tempC": "21"}`}}
	s, _ := enforce.SchemaFor[Weather]()
	var mended []enforce.Repairs
	res, err := object.GenerateWithText(context.Background(), lm, charm.ObjectCall{
		Prompt: charm.Prompt{charm.NewUserMessage("Weather in Paris?")},
		Schema: charm.Schema{Type: "object", Properties: map[string]*charm.Schema{"city": {Type: "string"}, "tempC": {Type: "number"}}},
		// fantasy calls the hook with the text its check refused.
		RepairText: fantasy.RepairText(s.WithRepairs(enforce.RepairCoerce), func(r enforce.Repairs) { mended = append(mended, r) }),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Object, mended)
	// Output:
	// map[city:Paris tempC:21] [coerce]
}
