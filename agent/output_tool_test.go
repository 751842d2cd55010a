package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
)

const answerTool = "final_result"

func TestOutputToolSendsTheSchemaAsTheToolsParameters(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", answerTool, valid)))
	a := agent.New(m, agent.WithOutputTool(answerTool), agent.WithOutputRetries(1))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w, (Weather{City: "Paris", TempC: 21}); got != want {
		t.Errorf("answer = %+v, want %+v (the call's arguments, decoded)", got, want)
	}
	if got, want := res.Output, valid; got != want {
		t.Errorf("Output = %q, want the call's arguments %q", got, want)
	}
	if got, want := rows(res.Attempts), []row{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomePassed}}; !equalRows(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}

	req := m.Requests()[0]
	if len(req.Tools) != 1 || req.Tools[0].Name != answerTool {
		t.Fatalf("tools = %+v, want the output tool alone", req.Tools)
	}
	var params, schema any
	json.Unmarshal(req.Tools[0].Parameters, &params)
	s, _ := enforce.SchemaFor[Weather]()
	json.Unmarshal(s.JSON(), &schema)
	if p, ok := params.(map[string]any); !ok || p["$defs"] == nil || p["$ref"] != schema.(map[string]any)["$ref"] {
		t.Errorf("tool parameters = %s, want the output schema %s", req.Tools[0].Parameters, s.JSON())
	}
	if !req.RequireToolCall {
		t.Error("RequireToolCall = false, want true: the answer must be a tool call")
	}
	if req.OutputSchema != nil {
		t.Errorf("OutputSchema = %s, want nil: the schema travels as the tool's parameters", req.OutputSchema)
	}
	if sys := req.Messages[0]; sys.Role != agent.RoleSystem || !strings.Contains(sys.Content, `calling the tool "final_result"`) {
		t.Errorf("system message = %+v, want one telling the model to call the tool", sys)
	}
}

func TestOutputToolCorrectsThroughTheCallsResult(t *testing.T) {
	lookup := agent.NewTool("lookup", "looks up a city", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "sunny", nil
	})
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c0", "lookup", `{"city":"Paris"}`)),
		agenttest.CallTools(agenttest.Call("c1", answerTool, missing), agenttest.Call("c2", "lookup", `{"city":"Lyon"}`)),
		agenttest.CallTools(agenttest.Call("c3", answerTool, valid)),
	)
	a := agent.New(m, agent.WithTools(lookup), agent.WithOutputSchema(weatherSchema(t)),
		agent.WithOutputTool(answerTool), agent.WithOutputRetries(2))
	res, err := a.Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	want := []row{
		{Attempt: 1, Iteration: 2, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/tempC", Hashed: true},
		{Attempt: 2, Iteration: 3, Outcome: enforce.OutcomePassed},
	}
	if got := rows(res.Attempts); !equalRows(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}
	// The third request ends: the failed reply, then one tool message per
	// call of it, in order — the correction for the answer, "not run" for
	// the other.
	msgs := m.Requests()[2].Messages
	tail := msgs[len(msgs)-3:]
	if tail[0].Role != agent.RoleAssistant || len(tail[0].ToolCalls) != 2 {
		t.Fatalf("messages end %+v, want the failed reply and its two tool results", tail)
	}
	corr, other := tail[1], tail[2]
	if corr.Role != agent.RoleTool || corr.ToolCallID != "c1" {
		t.Errorf("correction = %+v, want a tool message answering c1", corr)
	}
	if got, want := fnv.Hex32a(corr.Content), res.Attempts[0].CorrectiveMessageHash; got != want {
		t.Errorf("correction hash = %s, want the row's %s", got, want)
	}
	if !strings.Contains(corr.Content, `Call the tool "final_result" with the corrected JSON value`) || strings.Contains(corr.Content, "Reply with only") {
		t.Errorf("correction = %q, want it to ask for the tool call, not a reply of only JSON", corr.Content)
	}
	if other.Role != agent.RoleTool || other.ToolCallID != "c2" || !strings.HasPrefix(other.Content, "not run") {
		t.Errorf("other call's result = %+v, want a tool message saying c2 was not run", other)
	}
	// The lookup of the first reply ran; the one beside the answer did not.
	if got := msgs[3]; got.Role != agent.RoleTool || got.ToolCallID != "c0" || got.Content != "sunny" {
		t.Errorf("first tool result = %+v, want lookup's", got)
	}
}

func TestOutputToolAnswerInTextGetsACorrectiveTurn(t *testing.T) {
	m := agenttest.NewModel(t,
		agenttest.Reply(valid), // JSON, but as text: not a call of the tool
		agenttest.CallTools(agenttest.Call("c1", answerTool, valid)),
	)
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputTool(answerTool), agent.WithOutputRetries(1))
	res, err := a.Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	first := res.Attempts[0]
	if first.Outcome != enforce.OutcomeRetried || first.Stage != enforce.StageJSONParse || first.Path != "" {
		t.Errorf("row 1 = %+v, want retried at json-parse, at the root", first)
	}
	if !strings.Contains(first.Error, `not a call to the tool "final_result"`) {
		t.Errorf("row 1 error = %q, want it to say the reply is not a call of the tool", first.Error)
	}
	corr := m.Requests()[1].Messages[len(m.Requests()[1].Messages)-1]
	if corr.Role != agent.RoleUser || fnv.Hex32a(corr.Content) != first.CorrectiveMessageHash {
		t.Errorf("correction = %+v, want a user message hashed as row 1 says", corr)
	}

	t.Run("without retries the run fails with an OutputError at json-parse", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(valid))
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputTool(answerTool))
		_, err := a.Run(t.Context(), "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || oe.Stage != enforce.StageJSONParse || oe.Attempts != nil {
			t.Errorf("err = %v, want an *enforce.OutputError at json-parse with no rows", err)
		}
	})
}

func TestOutputToolAnswerGoesThroughMiddleware(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", answerTool, valid)))
	sign := output("signature", func(_ context.Context, s string) (string, error) { return s + " -- bot", nil })
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputTool(answerTool),
		agent.WithOutputRetries(2), agent.WithMiddleware(sign))
	res, err := a.Run(t.Context(), "Weather in Paris?")
	if !errors.Is(err, enforce.ErrBrokenBy) {
		t.Fatalf("err = %v, want ErrBrokenBy", err)
	}
	want := []row{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageJSONParse, BrokenBy: "signature"}}
	if got := rows(res.Attempts); !equalRows(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}
}

func TestOutputToolOptionIsChecked(t *testing.T) {
	clash := agent.NewTool(answerTool, "", func(context.Context, struct{}) (string, error) { return "", nil })
	tests := []struct {
		name string
		opts []agent.Option
	}{
		{"an empty name", []agent.Option{agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputTool("")}},
		{"a name with a space", []agent.Option{agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputTool("final result")}},
		{"a name over 64 bytes", []agent.Option{agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputTool(strings.Repeat("x", 65))}},
		{"the name of a tool", []agent.Option{agent.WithOutputSchema(weatherSchema(t)), agent.WithTools(clash), agent.WithOutputTool(answerTool)}},
		{"no schema", []agent.Option{agent.WithOutputTool(answerTool)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agenttest.NewModel(t)
			if _, err := agent.New(m, tt.opts...).Run(t.Context(), "hi"); !errors.Is(err, agent.ErrInvalidOption) {
				t.Errorf("err = %v, want ErrInvalidOption", err)
			}
		})
	}
}

func equalRows(a, b []row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestOutputToolWithLatestRetryOnlySendsEveryCallItsResult(t *testing.T) {
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", answerTool, prose), agenttest.Call("c2", "lookup", `{}`)),
		agenttest.CallTools(agenttest.Call("c3", answerTool, missing)),
		agenttest.CallTools(agenttest.Call("c4", answerTool, valid)),
	)
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputTool(answerTool),
		agent.WithOutputRetries(2), agent.WithLatestRetryOnly())
	if _, err := a.Run(t.Context(), "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	// The third request re-sends only the latest failed call and its
	// result; the first reply goes with both of its results.
	var got []string
	for _, msg := range m.Requests()[2].Messages {
		s := string(msg.Role)
		for _, c := range msg.ToolCalls {
			s += " " + c.ID
		}
		if msg.ToolCallID != "" {
			s += " ->" + msg.ToolCallID
		}
		got = append(got, s)
	}
	if want := "system|user|assistant c3|tool ->c3"; strings.Join(got, "|") != want {
		t.Errorf("third request = %s, want %s", strings.Join(got, "|"), want)
	}
}
