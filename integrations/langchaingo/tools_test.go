package langchaingo_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/tools"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
	"github.com/enforcer-go/enforcer/integrations/langchaingo"
)

// cityParams are the lookup tool's parameters as JSON arguments.
const cityParams = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`

func outcomes(rows []enforce.Attempt) []enforce.Outcome {
	var out []enforce.Outcome
	for _, r := range rows {
		out = append(out, r.Outcome)
	}
	return out
}

func TestAJudgedLangchaingoToolsBadCallNeverRunsAndIsOnTheRecord(t *testing.T) {
	llm := &recorded{Model: fake.NewFakeLLM([]string{
		"I should look it up.\nAction: lookup\nAction Input: {\"city\": 7}",
		"Wrong arguments; again.\nAction: lookup\nAction Input: {\"city\": \"Paris\"}",
		"Final Answer: " + valid,
	})}
	raw := &lookup{}
	calls, err := langchaingo.NewToolCalls(0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	judged, err := langchaingo.JudgeTool(calls, raw, []byte(cityParams))
	if err != nil {
		t.Fatal(err)
	}
	exec := agents.NewExecutor(agents.NewOneShotAgent(llm, []tools.Tool{judged}))
	if _, _, err := agent.RunTyped[Weather](t.Context(), agent.New(langchaingo.Chain(exec), agent.WithOutputSchema(weatherSchema(t))), "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	if want := []string{`{"city": "Paris"}`}; !reflect.DeepEqual(raw.asked, want) {
		t.Errorf("the executor ran the tool with %q, want only the good call's %q", raw.asked, want)
	}
	rows := calls.Rows()
	if got, want := outcomes(rows), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !reflect.DeepEqual(got, want) {
		t.Fatalf("rows' outcomes = %v, want %v (%+v)", got, want, rows)
	}
	if r := rows[0]; r.Kind != enforce.KindToolCall || r.Tool != "lookup" || r.Stage != enforce.StageSchemaValidate || r.Path != "/city" {
		t.Errorf("first row = %+v, want lookup's call failing at schema-validate at /city", r)
	}
	// The agent's next prompt carries the corrective message as the
	// observation, the one the row hashes.
	msg := observation(t, prompt(t, llm, 1))
	if fnv.Hex32a(msg) != rows[0].CorrectiveMessageHash {
		t.Errorf("observation %q: its hash is not the row's %s", msg, rows[0].CorrectiveMessageHash)
	}
}

// observation is the last observation a one-shot agent's prompt shows.
func observation(t *testing.T, p string) string {
	t.Helper()
	i := strings.LastIndex(p, "Observation: ")
	if i < 0 {
		t.Fatalf("no observation in the prompt:\n%s", p)
	}
	rest := p[i+len("Observation: "):]
	if j := strings.Index(rest, "\nThought:"); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSuffix(rest, "\n") // the prompt's line break after it
}

func TestAJudgedLangchaingoToolsRunEndsAtTheLimit(t *testing.T) {
	llm := &recorded{Model: fake.NewFakeLLM([]string{
		"Action: lookup\nAction Input: Paris",
		"Action: lookup\nAction Input: Paris",
	})}
	raw := &lookup{}
	calls, err := langchaingo.NewToolCalls(0, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	judged, err := langchaingo.JudgeTool(calls, raw, []byte(cityParams))
	if err != nil {
		t.Fatal(err)
	}
	exec := agents.NewExecutor(agents.NewOneShotAgent(llm, []tools.Tool{judged}))
	_, _, err = agent.RunTyped[Weather](t.Context(), agent.New(langchaingo.Chain(exec), agent.WithOutputSchema(weatherSchema(t))), "Weather in Paris?")
	var tce *agent.ToolCallError
	if !errors.As(err, &tce) || tce.Tool != "lookup" || tce.Stage != enforce.StageJSONParse || !errors.Is(err, enforce.ErrRepeated) {
		t.Fatalf("err = %v, want an *agent.ToolCallError for lookup, repeated at json-parse", err)
	}
	if len(raw.asked) != 0 {
		t.Errorf("the tool ran with %q, want never", raw.asked)
	}
}

func TestJudgeToolRefusesParametersEnforceRefuses(t *testing.T) {
	calls, err := langchaingo.NewToolCalls(0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = langchaingo.JudgeTool(calls, &lookup{}, []byte(`{"type":"object","properties":{"city":{"$ref":"#/definitions/city"}}}`))
	var se *enforce.SchemaError
	if !errors.Is(err, agent.ErrInvalidOption) || !errors.As(err, &se) || se.Keyword != "$ref" || se.Location != "/properties/city" {
		t.Fatalf("JudgeTool = %v, want ErrInvalidOption with the *enforce.SchemaError naming $ref at /properties/city", err)
	}
	if !strings.Contains(err.Error(), `"lookup"`) {
		t.Errorf("JudgeTool = %v, want it to name the tool", err)
	}
}

func TestTheAgentsOwnToolCallsAreJudgedThroughALangchaingoModel(t *testing.T) {
	call := func(id, args string) scriptedReply {
		return scriptedReply{choice: llms.ContentChoice{StopReason: "tool_calls", ToolCalls: []llms.ToolCall{{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: args}}}}}
	}
	llm := &scriptedLLM{replies: []scriptedReply{call("c1", `{"city":7}`), call("c2", `{"city":"Paris"}`),
		{chunks: []string{valid}, choice: llms.ContentChoice{StopReason: "stop"}}}}
	var asked []string
	tool := agent.NewTool("lookup", "Current weather of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		asked = append(asked, in.City)
		return "21C", nil
	})
	_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(langchaingo.NewModel(llm), agent.WithTools(tool), agent.WithOutputSchema(weatherSchema(t))), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Paris"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("the tool ran for %q, want %q", asked, want)
	}
	if got, want := outcomes(res.Calls), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !reflect.DeepEqual(got, want) {
		t.Errorf("Result.Calls outcomes = %v, want %v", got, want)
	}
}
