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

// textObjects answers fantasy's object calls in its text mode over the
// scripted replies, as a provider without a JSON mode would.
type textObjects struct{ *scripted }

func (m textObjects) GenerateObject(ctx context.Context, call charm.ObjectCall) (*charm.ObjectResponse, error) {
	return object.GenerateWithText(ctx, m.scripted, call)
}

func ExampleNewObjectModel() {
	// The first object breaks the contract (a string temperature); fantasy
	// refuses it too, and enforcer judges and corrects its raw text.
	lm := textObjects{&scripted{replies: []string{`{"city": "Paris", "tempC": "21"}`, `{"city": "Paris", "tempC": 21}`}}}
	s, _ := enforce.SchemaFor[Weather]()
	a := agent.New(fantasy.NewObjectModel(lm, charm.ObjectCall{SchemaName: "weather"}), agent.WithOutputSchema(s), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", w)
	for _, r := range res.Attempts {
		fmt.Println(r.Attempt, r.Outcome, r.Path)
	}
	// Output:
	// {City:Paris TempC:21}
	// 1 retried /tempC
	// 2 passed
}

func ExampleJudgeTools() {
	lookup := charm.NewAgentTool("lookup", "Current weather of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}, _ charm.ToolCall) (charm.ToolResponse, error) {
		return charm.NewTextResponse("21C in " + in.City), nil
	})
	calls, _ := fantasy.NewToolCalls(0, 0, 0)
	tools, err := fantasy.JudgeTools(calls, lookup)
	if err != nil {
		fmt.Println(err)
		return
	}
	// A fantasy agent runs the judged tools (charm.WithTools(tools...));
	// here two of its calls are made by hand: the first never reaches the
	// tool, its output is the correction the model is given.
	for _, in := range []string{`{"city": 5}`, `{"city": "Paris"}`} {
		out, _ := tools[0].Run(context.Background(), charm.ToolCall{ID: "c1", Name: "lookup", Input: in})
		if out.IsError {
			fmt.Println("refused, the correction names /city:", strings.Contains(out.Content, "/city"))
		} else {
			fmt.Println("ran:", out.Content)
		}
	}
	for _, r := range calls.Rows() {
		fmt.Println(r.Tool, r.Outcome, r.Path)
	}
	// Output:
	// refused, the correction names /city: true
	// ran: 21C in Paris
	// lookup retried /city
	// lookup passed
}
