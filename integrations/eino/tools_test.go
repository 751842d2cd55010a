package eino_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
	"github.com/enforcer-go/enforcer/integrations/eino"
)

func callLookupWith(id, args string) []*schema.Message {
	return []*schema.Message{schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function", Function: schema.FunctionCall{Name: "lookup", Arguments: args}}})}
}

// outcomes are the rows' outcomes, in order.
func outcomes(rows []enforce.Attempt) []enforce.Outcome {
	var out []enforce.Outcome
	for _, r := range rows {
		out = append(out, r.Outcome)
	}
	return out
}

func TestAJudgedEinoToolsBadCallNeverRunsAndIsOnTheRecord(t *testing.T) {
	ctx := t.Context()
	// Inside one eino run: a call giving city a number, then a good one,
	// then the answer.
	cm := newScripted(callLookupWith("c1", `{"city":7}`), callLookupWith("c2", `{"city":"Paris"}`), text(valid))
	var asked []string
	calls, err := eino.NewToolCalls(0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := eino.JudgeTools(ctx, calls, lookupTool(t, &asked))
	if err != nil {
		t.Fatal(err)
	}
	ra, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm, ToolsConfig: compose.ToolsNodeConfig{Tools: tools}})
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(eino.Agent(ra.Generate), agent.WithOutputSchema(weatherSchema(t)))
	if _, _, err := agent.RunTyped[Weather](ctx, a, "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Paris"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("eino ran the tool for %q, want only the good call's %q", asked, want)
	}
	rows := calls.Rows()
	if got, want := outcomes(rows), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !reflect.DeepEqual(got, want) {
		t.Fatalf("rows' outcomes = %v, want %v (%+v)", got, want, rows)
	}
	if r := rows[0]; r.Kind != enforce.KindToolCall || r.Tool != "lookup" || r.CallID != "c1" || r.Stage != enforce.StageSchemaValidate || r.Path != "/city" {
		t.Errorf("first row = %+v, want lookup's c1 failing at schema-validate at /city", r)
	}
	// The model saw the corrective message the row hashes as the tool's output.
	in := cm.inputs[1]
	if last := in[len(in)-1]; last.Role != schema.Tool || last.ToolCallID != "c1" || fnv.Hex32a(last.Content) != rows[0].CorrectiveMessageHash {
		t.Errorf("tool message = %+v, want c1's corrective message, hash %s", last, rows[0].CorrectiveMessageHash)
	}
}

func TestAJudgedEinoToolsRunEndsAtTheLimit(t *testing.T) {
	ctx := t.Context()
	cm := newScripted(callLookupWith("c1", `{"city":7}`), callLookupWith("c2", `{"town":"Paris"}`))
	var asked []string
	calls, err := eino.NewToolCalls(0, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := eino.JudgeTools(ctx, calls, lookupTool(t, &asked))
	if err != nil {
		t.Fatal(err)
	}
	ra, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm, ToolsConfig: compose.ToolsNodeConfig{Tools: tools}})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = agent.RunTyped[Weather](ctx, agent.New(eino.Agent(ra.Generate), agent.WithOutputSchema(weatherSchema(t))), "Weather in Paris?")
	var tce *agent.ToolCallError
	if !errors.As(err, &tce) || tce.Tool != "lookup" || tce.CallID != "c2" {
		t.Fatalf("err = %v, want an *agent.ToolCallError for lookup's c2", err)
	}
	if len(asked) != 0 {
		t.Errorf("eino ran the tool for %q, want never", asked)
	}
	if got, want := outcomes(calls.Rows()), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeExhausted}; !reflect.DeepEqual(got, want) {
		t.Errorf("rows' outcomes = %v, want %v", got, want)
	}
}

func TestJudgeToolsMendsWithRepairs(t *testing.T) {
	ctx := t.Context()
	calls, err := eino.NewToolCalls(enforce.AllRepairs, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	tools, err := eino.JudgeTools(ctx, calls, lookupTool(t, &asked))
	if err != nil {
		t.Fatal(err)
	}
	out, err := tools[0].(tool.InvokableTool).InvokableRun(ctx, `{'city': 'Paris',}`)
	if err != nil || out != "21C" {
		t.Fatalf("InvokableRun = %q, %v; want the tool's output", out, err)
	}
	if want := []string{"Paris"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("the tool was given %q, want %q", asked, want)
	}
	if r := calls.Rows(); len(r) != 1 || r[0].Outcome != enforce.OutcomePassed || r[0].Repaired == 0 {
		t.Errorf("rows = %+v, want one passed row naming its repairs", r)
	}
}

// refusedParams is a tool whose parameters enforce refuses: a $ref to
// no definition.
type refusedParams struct{ t *testing.T }

func (r refusedParams) Info(context.Context) (*schema.ToolInfo, error) {
	var js jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"city":{"$ref":"#/definitions/city"}}}`), &js); err != nil {
		r.t.Fatal(err)
	}
	return &schema.ToolInfo{Name: "pair", ParamsOneOf: schema.NewParamsOneOfByJSONSchema(&js)}, nil
}

func (refusedParams) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return "", nil
}

func TestJudgeToolsRefusesAToolWhoseParametersEnforceRefuses(t *testing.T) {
	calls, err := eino.NewToolCalls(0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = eino.JudgeTools(t.Context(), calls, refusedParams{t})
	var se *enforce.SchemaError
	if !errors.Is(err, agent.ErrInvalidOption) || !errors.As(err, &se) || se.Keyword != "$ref" || se.Location != "/properties/city" {
		t.Fatalf("JudgeTools = %v, want ErrInvalidOption with the *enforce.SchemaError naming $ref at /properties/city", err)
	}
	if !strings.Contains(err.Error(), `"pair"`) {
		t.Errorf("JudgeTools = %v, want it to name the tool", err)
	}
	if _, err := eino.NewToolCalls(0, -1, 0); !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("a negative limit: err = %v, want agent.ErrInvalidOption", err)
	}
}

func TestTheAgentsOwnToolCallsAreJudgedThroughAnEinoModel(t *testing.T) {
	m := newScripted(callLookupWith("c1", `{"city":7}`), callLookupWith("c2", `{"city":"Paris"}`), text(valid))
	var asked []string
	lookup := agent.NewTool("lookup", "Current weather of a city.", func(_ context.Context, in lookupIn) (string, error) {
		asked = append(asked, in.City)
		return "21C", nil
	})
	_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(eino.NewModel(m), agent.WithTools(lookup), agent.WithOutputSchema(weatherSchema(t))), "Weather in Paris?")
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
