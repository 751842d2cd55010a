package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
)

// callRow is the part of a call's row a test states exactly; the
// validator's own message is left out, as in row.
type callRow struct {
	Attempt  int
	Tool, ID string
	Outcome  enforce.Outcome
	Stage    enforce.Stage
	Path     string
	Repaired enforce.Repairs
	Reason   enforce.Reason
	Hashed   bool
}

func callRows(as []enforce.Attempt) []callRow {
	var out []callRow
	for _, a := range as {
		out = append(out, callRow{Attempt: a.Attempt, Tool: a.Tool, ID: a.CallID, Outcome: a.Outcome, Stage: a.Stage,
			Path: a.Path, Repaired: a.Repaired, Reason: a.Reason, Hashed: a.CorrectiveMessageHash != ""})
	}
	return out
}

// cityParams is a plain tool's parameters: an object with a string city.
const cityParams = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`

// plainLookup is a plain Tool (no NewTool) that records the arguments it
// was given.
func plainLookup(got *[]string) agent.Tool {
	return agent.Tool{Name: "lookup", Parameters: json.RawMessage(cityParams),
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			*got = append(*got, string(args))
			return "sunny", nil
		}}
}

func TestAPlainToolsCallsAreJudgedAgainstItsParameters(t *testing.T) {
	var got []string
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{"city":3}`)),
		agenttest.CallTools(agenttest.Call("c2", "lookup", `{"city":"Paris"}`)),
		agenttest.Reply("sunny"))
	res, err := agent.New(m, agent.WithTools(plainLookup(&got))).Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`{"city":"Paris"}`}; !reflect.DeepEqual(got, want) {
		t.Errorf("the tool was given %q, want only the call that keeps its parameters, %q", got, want)
	}
	want := []callRow{
		{Attempt: 1, Tool: "lookup", ID: "c1", Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/city", Hashed: true},
		{Attempt: 2, Tool: "lookup", ID: "c2", Outcome: enforce.OutcomePassed},
	}
	if g := callRows(res.Calls); !reflect.DeepEqual(g, want) {
		t.Errorf("Calls = %+v, want %+v", g, want)
	}
	for _, c := range res.Calls {
		if c.Kind != enforce.KindToolCall || c.Iteration < 1 {
			t.Errorf("call row %+v: want kind tool-call and its iteration", c)
		}
	}
	// The model is answered with the corrective tool message the row hashes.
	answer := m.Requests()[1].Messages[len(m.Requests()[1].Messages)-1]
	if answer.Role != agent.RoleTool || answer.ToolCallID != "c1" || fnv.Hex32a(answer.Content) != res.Calls[0].CorrectiveMessageHash {
		t.Errorf("tool message = %+v, want the one for c1 whose hash is %s", answer, res.Calls[0].CorrectiveMessageHash)
	}
	for _, s := range []string{`"lookup"`, "schema-validate", `"/city"`} {
		if !strings.Contains(answer.Content, s) {
			t.Errorf("tool message %q does not name %s", answer.Content, s)
		}
	}
}

func TestRunsWithoutToolCallsHaveNoCallRows(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("hello"))
	res, err := agent.New(m, agent.WithTools(plainLookup(new([]string)))).Run(t.Context(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if res.Calls != nil || containsJSON(b, `"calls"`) {
		t.Errorf("Calls = %v, JSON %s: want nil and no key", res.Calls, b)
	}
}

func TestAToolWhoseParametersEnforceRefusesFailsTheAgent(t *testing.T) {
	params := `{"type":"object","properties":{"city":{"$ref":"#/definitions/city"}}}` // no such definition
	tool := agent.Tool{Name: "pair", Parameters: json.RawMessage(params), Run: func(context.Context, json.RawMessage) (string, error) { return "", nil }}
	m := agenttest.NewModel(t)
	_, err := agent.New(m, agent.WithTools(tool)).Run(t.Context(), "hi")
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Fatalf("Run = %v, want ErrInvalidOption", err)
	}
	var se *enforce.SchemaError
	if !errors.As(err, &se) || se.Keyword != "$ref" || se.Location != "/properties/city" {
		t.Errorf("Run = %v, want the *enforce.SchemaError naming $ref at /properties/city", err)
	}
	if !strings.Contains(err.Error(), `"pair"`) {
		t.Errorf("Run = %v, want it to name the tool", err)
	}
}

func TestToolCallArgumentsAreMendedOnTheRecord(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		want    string // what the tool is given
		repairs enforce.Repairs
	}{
		{"a fence around the arguments", "```json\n{\"city\":\"Paris\"}\n```", `{"city":"Paris"}`, enforce.RepairFence},
		{"single quotes and a trailing comma", `{'city': 'Paris',}`, `{"city":"Paris"}`, enforce.RepairSyntax},
		{"prose around the arguments", `Sure: {"city":"Paris"} — there you go`, `{"city":"Paris"}`, enforce.RepairProse},
		{"an object double-encoded as a string", `"{\"city\":\"Paris\"}"`, `{"city":"Paris"}`, enforce.RepairCoerce},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "lookup", tt.args)), agenttest.Reply("sunny"))
			res, err := agent.New(m, agent.WithTools(plainLookup(&got)), agent.WithRepairs(enforce.AllRepairs)).Run(t.Context(), "Weather?")
			if err != nil {
				t.Fatal(err)
			}
			var gotV, wantV any
			if len(got) != 1 || json.Unmarshal([]byte(got[0]), &gotV) != nil || json.Unmarshal([]byte(tt.want), &wantV) != nil || !reflect.DeepEqual(gotV, wantV) {
				t.Errorf("the tool was given %q, want %s", got, tt.want)
			}
			want := []callRow{{Attempt: 1, Tool: "lookup", ID: "c1", Outcome: enforce.OutcomePassed, Repaired: tt.repairs}}
			if g := callRows(res.Calls); !reflect.DeepEqual(g, want) {
				t.Errorf("Calls = %+v, want %+v", g, want)
			}
			if a := string(res.Messages[1].ToolCalls[0].Arguments); a != tt.args {
				t.Errorf("the conversation holds %q, want the model's own %q", a, tt.args)
			}
		})
	}
}

func TestAToolCallThatPassesAsWrittenIsNotTouched(t *testing.T) {
	var got []string
	args := `{ "city" : "Paris" }` // not compact: a mend would have to leave it so
	m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "lookup", args)), agenttest.Reply("sunny"))
	res, err := agent.New(m, agent.WithTools(plainLookup(&got)), agent.WithRepairs(enforce.AllRepairs)).Run(t.Context(), "Weather?")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != args || res.Calls[0].Repaired != 0 {
		t.Errorf("the tool was given %q (repairs %v), want %q byte for byte", got, res.Calls[0].Repaired, args)
	}
}

func TestWithoutRepairsArgumentsAreJudgedAsWritten(t *testing.T) {
	var got []string
	m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "lookup", `"{\"city\":\"Paris\"}"`)), agenttest.Reply("sunny"))
	res, err := agent.New(m, agent.WithTools(plainLookup(&got))).Run(t.Context(), "Weather?")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 || res.Calls[0].Outcome != enforce.OutcomeRetried {
		t.Errorf("tool given %q, row %+v: want the call refused as written", got, res.Calls[0])
	}
}

func TestToolCallLimitEndsTheRunNamingTheTool(t *testing.T) {
	var got []string
	bad := func(id string) agenttest.Step {
		return agenttest.CallTools(agenttest.Call(id, "lookup", `{"town":"Paris"}`))
	}
	m := agenttest.NewModel(t, bad("c1"), bad("c2"), bad("c3"))
	res, err := agent.New(m, agent.WithTools(plainLookup(&got)), agent.WithToolCallLimit(3)).Run(t.Context(), "Weather?")
	var te *agent.ToolCallError
	if !errors.As(err, &te) {
		t.Fatalf("Run = %v, want a *agent.ToolCallError", err)
	}
	if te.Tool != "lookup" || te.CallID != "c3" || te.Stage != enforce.StageSchemaValidate || len(te.Issues) != 2 || te.Reason != "" {
		t.Errorf("ToolCallError = %+v, want lookup's call c3 at schema-validate with its two issues", te)
	}
	if errors.Is(err, enforce.ErrRepeated) {
		t.Error("a limit reached matches enforce.ErrRepeated")
	}
	want := []callRow{
		{Attempt: 1, Tool: "lookup", ID: "c1", Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/city", Hashed: true},
		{Attempt: 2, Tool: "lookup", ID: "c2", Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/city", Hashed: true},
		{Attempt: 3, Tool: "lookup", ID: "c3", Outcome: enforce.OutcomeExhausted, Stage: enforce.StageSchemaValidate, Path: "/city"},
	}
	if g := callRows(res.Calls); !reflect.DeepEqual(g, want) {
		t.Errorf("Calls = %+v, want %+v", g, want)
	}
	if !reflect.DeepEqual(te.Calls, res.Calls) {
		t.Errorf("ToolCallError.Calls = %+v, want the run's rows", te.Calls)
	}
	if len(got) != 0 {
		t.Errorf("the tool ran with %q", got)
	}
}

func TestAPassingCallResetsItsToolsCount(t *testing.T) {
	var got []string
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{}`)),
		agenttest.CallTools(agenttest.Call("c2", "lookup", `{"city":"Paris"}`)),
		agenttest.CallTools(agenttest.Call("c3", "lookup", `{}`)),
		agenttest.Reply("sunny"))
	if _, err := agent.New(m, agent.WithTools(plainLookup(&got)), agent.WithToolCallLimit(2)).Run(t.Context(), "Weather?"); err != nil {
		t.Fatalf("Run = %v: two failed calls, not in a row, reached the limit", err)
	}
}

func TestTheSameBadArgumentsRepeatedStopTheRun(t *testing.T) {
	bad := func(id, args string) agenttest.Step { return agenttest.CallTools(agenttest.Call(id, "lookup", args)) }
	m := agenttest.NewModel(t, bad("c1", `{"city":1}`), bad("c2", `{"city":2}`))
	res, err := agent.New(m, agent.WithTools(plainLookup(new([]string))), agent.WithRepeatLimit(2)).Run(t.Context(), "Weather?")
	var te *agent.ToolCallError
	if !errors.As(err, &te) || !errors.Is(err, enforce.ErrRepeated) || te.Reason != enforce.ReasonRepeated {
		t.Fatalf("Run = %v, want a *agent.ToolCallError matching enforce.ErrRepeated", err)
	}
	if last := res.Calls[len(res.Calls)-1]; last.Outcome != enforce.OutcomeExhausted || last.Reason != enforce.ReasonRepeated {
		t.Errorf("last row = %+v, want exhausted, repeated", last)
	}
}

func TestWithToolCallLimitOutOfRangeIsAnInvalidOption(t *testing.T) {
	for _, n := range []int{-1, enforce.MaxRetries + 2} {
		_, err := agent.New(agenttest.NewModel(t), agent.WithToolCallLimit(n)).Run(t.Context(), "hi")
		if !errors.Is(err, agent.ErrInvalidOption) {
			t.Errorf("WithToolCallLimit(%d): Run = %v, want ErrInvalidOption", n, err)
		}
	}
}

func TestFailedToolCallsAreOnTheSessionStream(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{"city":3}`)),
		agenttest.Reply("sunny"))
	res, err := agent.New(m, agent.WithTools(plainLookup(new([]string))), agent.WithEvents(s)).Run(t.Context(), "Weather?")
	if err != nil {
		t.Fatal(err)
	}
	got, ns := methods(t, s)
	if want := []string{"turn/started", "tool/callRejected", "turn/completed"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("methods = %v, want %v", got, want)
	}
	p := string(ns[1].Params)
	for _, want := range []string{`"tool":"lookup"`, `"callId":"c1"`, `"outcome":"retried"`, `"path":"/city"`, `"correctiveMessageHash":"` + res.Calls[0].CorrectiveMessageHash + `"`} {
		if !strings.Contains(p, want) {
			t.Errorf("params %s lack %s", p, want)
		}
	}
}

func TestTheObserverIsToldEachCallsRowUnderItsToolSpan(t *testing.T) {
	type key struct{}
	var rows []enforce.Attempt
	o := agent.Observer{
		ToolStart: func(ctx context.Context, c agent.ToolCall) context.Context {
			return context.WithValue(ctx, key{}, c.ID)
		},
		Call: func(ctx context.Context, row enforce.Attempt) {
			if ctx.Value(key{}) != row.CallID {
				t.Errorf("row of %s told under the tool span of %v", row.CallID, ctx.Value(key{}))
			}
			rows = append(rows, row)
		},
	}
	m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "lookup", `{}`), agenttest.Call("c2", "lookup", `{"city":"Paris"}`)), agenttest.Reply("sunny"))
	res, err := agent.New(m, agent.WithTools(plainLookup(new([]string))), agent.WithObserver(o)).Run(t.Context(), "Weather?")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows, res.Calls) {
		t.Errorf("observer told %+v, want the rows %+v", rows, res.Calls)
	}
}
