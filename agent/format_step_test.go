package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

const freeAnswer = "Thinking it over: the forecast says Paris is at 21 degrees today, in the city centre."

func TestFormatStepAsksFreelyThenAnotherModelFormatsWithRowsOnTheFormatter(t *testing.T) {
	big := named(t, "openai", "big", agenttest.Reply(freeAnswer).WithUsage(100, 40))
	small := named(t, "openai", "small",
		agenttest.Reply(missing).WithUsage(60, 8),
		agenttest.Reply(valid).WithUsage(90, 10))
	a := agent.New(big, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithSystemPrompt("You are a weather desk."), agent.WithFormatStep(small))
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Weather{City: "Paris", TempC: 21}); w != want {
		t.Errorf("answer = %+v, want %+v", w, want)
	}
	// The free step: no schema, no contract in the system message.
	free := big.Requests()[0]
	if free.OutputSchema != nil || free.RequireToolCall {
		t.Errorf("free step sent OutputSchema %s, RequireToolCall %v; want neither", free.OutputSchema, free.RequireToolCall)
	}
	if got := free.Messages[0].Content; got != "You are a weather desk." {
		t.Errorf("free step's system message = %q, want the agent's own", got)
	}
	// The format step: a conversation of its own, the contract, the free
	// answer quoted; its correction goes to it alone.
	fr := small.Requests()
	if len(fr) != 2 {
		t.Fatalf("formatter asked %d times, want 2", len(fr))
	}
	if fr[0].OutputSchema == nil {
		t.Error("format step sent no OutputSchema")
	}
	if got := roles(fr[0].Messages); !slices.Equal(got, []agent.Role{agent.RoleSystem, agent.RoleUser}) {
		t.Errorf("format step's first request roles %v, want system, user", got)
	}
	if !strings.Contains(fr[0].Messages[1].Content, freeAnswer) {
		t.Errorf("format step's question %q does not quote the free answer", fr[0].Messages[1].Content)
	}
	if got := roles(fr[1].Messages); !slices.Equal(got, []agent.Role{agent.RoleSystem, agent.RoleUser, agent.RoleAssistant, agent.RoleUser}) {
		t.Errorf("format step's correction roles %v, want system, user, assistant, user", got)
	}
	if got, want := rows(res.Attempts), []row{
		{Attempt: 1, Iteration: 2, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/tempC", Hashed: true},
		{Attempt: 2, Iteration: 3, Outcome: enforce.OutcomePassed},
	}; !slices.Equal(got, want) {
		t.Errorf("rows\n got %+v\nwant %+v", got, want)
	}
	if got, want := models(res.Attempts), []string{"openai/small", "openai/small"}; !slices.Equal(got, want) {
		t.Errorf("rows written by %v, want %v", got, want)
	}
	if got, want := res.Models, []agent.ModelSpend{
		{Provider: "openai", Model: "big", Requests: 1, Usage: agent.Usage{InputTokens: 100, OutputTokens: 40}},
		{Provider: "openai", Model: "small", Requests: 2, Usage: agent.Usage{InputTokens: 150, OutputTokens: 18}, Format: true},
	}; !slices.Equal(got, want) {
		t.Errorf("Models\n got %+v\nwant %+v", got, want)
	}
	if got, want := res.Usage, (agent.Usage{InputTokens: 250, OutputTokens: 58}); got != want {
		t.Errorf("Usage = %+v, want %+v", got, want)
	}
	if res.Iterations != 3 {
		t.Errorf("Iterations = %d, want 3", res.Iterations)
	}
}

func TestFormatStepWithNoModelHasTheModelThatAnsweredFormat(t *testing.T) {
	m := named(t, "openai", "big",
		agenttest.Reply(freeAnswer).WithUsage(100, 40),
		agenttest.Reply(valid).WithUsage(70, 9))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1), agent.WithFormatStep(nil))
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != valid {
		t.Errorf("Output = %q, want %q", res.Output, valid)
	}
	if got, want := res.Models, []agent.ModelSpend{
		{Provider: "openai", Model: "big", Requests: 1, Usage: agent.Usage{InputTokens: 100, OutputTokens: 40}},
		{Provider: "openai", Model: "big", Requests: 1, Usage: agent.Usage{InputTokens: 70, OutputTokens: 9}, Format: true},
	}; !slices.Equal(got, want) {
		t.Errorf("Models\n got %+v\nwant %+v", got, want)
	}
}

func TestFormatStepRunsToolsInTheFreeStepOnly(t *testing.T) {
	big := named(t, "openai", "big",
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{"city":"Paris"}`)),
		agenttest.Reply(freeAnswer))
	small := named(t, "openai", "small", agenttest.Reply(valid))
	tool := agent.Tool{Name: "lookup", Run: func(context.Context, json.RawMessage) (string, error) { return "21C", nil }}
	a := agent.New(big, agent.WithOutputSchema(weatherSchema(t)), agent.WithTools(tool), agent.WithFormatStep(small))
	if _, err := a.Run(context.Background(), "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	if got := big.Requests()[1].Tools; len(got) != 1 {
		t.Errorf("free step offered %d tools, want 1", len(got))
	}
	if got := small.Requests()[0].Tools; len(got) != 0 {
		t.Errorf("format step offered tools %v, want none", got)
	}
}

func TestFormatStepCountsBothStepsInTheBudget(t *testing.T) {
	big := named(t, "openai", "big", agenttest.Reply(freeAnswer).WithUsage(100, 40))
	small := named(t, "openai", "small", agenttest.Reply(missing).WithUsage(60, 8))
	a := agent.New(big, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithFormatStep(small), agent.WithBudget(agent.Budget{Requests: 2}))
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if !errors.Is(err, agent.ErrBudget) {
		t.Fatalf("err = %v, want ErrBudget", err)
	}
	if n := len(res.Attempts); n != 1 || res.Attempts[0].Reason != enforce.ReasonRequestBudget {
		t.Errorf("rows %+v, want one exhausted by the request budget", res.Attempts)
	}
}

func TestFormatStepNeedsAJSONContract(t *testing.T) {
	m := agenttest.NewModel(t)
	text, err := enforce.Text(enforce.MaxLength(10))
	if err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]*agent.Agent{
		"no contract": agent.New(m, agent.WithFormatStep(nil)),
		"a text":      agent.New(m, agent.WithOutputSchema(text), agent.WithFormatStep(nil)),
	} {
		if _, err := a.Run(context.Background(), "hi"); !errors.Is(err, agent.ErrInvalidOption) {
			t.Errorf("%s: err = %v, want ErrInvalidOption", name, err)
		}
	}
}

func roles(msgs []agent.Message) []agent.Role {
	var out []agent.Role
	for _, m := range msgs {
		out = append(out, m.Role)
	}
	return out
}

func TestFormatStepOffersTheFormatterTheOutputToolAlone(t *testing.T) {
	big := agenttest.NewModel(t, agenttest.Reply(freeAnswer))
	small := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("o1", "final", valid)))
	lookup := agent.Tool{Name: "lookup", Run: func(context.Context, json.RawMessage) (string, error) { return "21C", nil }}
	a := agent.New(big, agent.WithOutputSchema(weatherSchema(t)), agent.WithTools(lookup),
		agent.WithOutputTool("final"), agent.WithFormatStep(small))
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != valid {
		t.Errorf("Output = %q, want %q", res.Output, valid)
	}
	if got := big.Requests()[0]; got.RequireToolCall || len(got.Tools) != 1 || got.Tools[0].Name != "lookup" {
		t.Errorf("free step: tools %v, RequireToolCall %v; want lookup alone, not required", got.Tools, got.RequireToolCall)
	}
	if got := small.Requests()[0]; !got.RequireToolCall || len(got.Tools) != 1 || got.Tools[0].Name != "final" {
		t.Errorf("format step: tools %v, RequireToolCall %v; want final alone, required", got.Tools, got.RequireToolCall)
	}
}

func TestFormatStepNeverCutsTheFreeAnswerAsItStreams(t *testing.T) {
	big := agenttest.NewStreamingModel(t, agenttest.Reply(freeAnswer).InChunks(5))
	small := agenttest.NewModel(t, agenttest.Reply(valid))
	a := agent.New(big, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithEarlyAbort(true), agent.WithFormatStep(small))
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got := big.Consumed(); len(got) != 1 || got[0].Stopped || got[0].Bytes != len(freeAnswer) {
		t.Errorf("free answer read %+v, want all %d bytes", got, len(freeAnswer))
	}
	if got, want := rows(res.Attempts), []row{{Attempt: 1, Iteration: 2, Outcome: enforce.OutcomePassed}}; !slices.Equal(got, want) {
		t.Errorf("rows %+v, want %+v", got, want)
	}
}

func TestFormatStepChoosesTheOutputModeForTheFormatter(t *testing.T) {
	big := &reporting{Model: agenttest.NewModel(t, agenttest.Reply(freeAnswer)), modes: agent.Modes{Native: true, Why: "exact"}}
	small := &reporting{Model: agenttest.NewModel(t,
		agenttest.Fail(&agent.ProviderError{System: "fake", HTTPStatus: 400, Message: "no tools", Unsupported: agent.ModeTool}),
		agenttest.Reply(valid)),
		modes: agent.Modes{Tools: true, Why: "no native mode"}}
	a := agent.New(big, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithAutoOutputMode("final"), agent.WithFormatStep(small))
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if len(big.seen) != 0 {
		t.Errorf("the free step's model was asked its modes %d times, want never", len(big.seen))
	}
	if got, want := res.Modes, []agent.ModeChoice{
		{Iteration: 2, Mode: agent.ModeTool, Why: "no native mode; tool output instead"},
		{Iteration: 2, Mode: agent.ModePrompted, Why: "the provider refused tool output (HTTP 400)", Unsupported: agent.ModeTool},
	}; !slices.Equal(got, want) {
		t.Errorf("Modes\n got %+v\nwant %+v", got, want)
	}
	reqs := small.Requests()
	if first, moved := reqs[0].Messages[0], reqs[1].Messages[0]; moved.Role != agent.RoleSystem || moved.Content == first.Content || !strings.Contains(moved.Content, "JSON Schema:") {
		t.Errorf("the format step's system message after the move = %q, want the prompted contract", moved.Content)
	}
	if got := big.Requests()[0].Messages; got[0].Role != agent.RoleUser {
		t.Errorf("the free step was sent a system message %q", got[0].Content)
	}
}

func TestFormatStepAfterAFreeStepWithNoAnswer(t *testing.T) {
	for _, tc := range []struct {
		name      string
		step      agenttest.Step
		truncated bool
	}{
		{"its thinking spent the limit", agenttest.Reply("").WithReasoning("Paris? Let me think").WithStop(agent.StopLength), true},
		{"it was empty", agenttest.Reply(""), false},
	} {
		step := tc.step
		t.Run(tc.name+": a no-answer row, the free step asked again", func(t *testing.T) {
			big := named(t, "openai", "big", step, agenttest.Reply(freeAnswer))
			small := agenttest.NewModel(t, agenttest.Reply(valid))
			a := agent.New(big, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1), agent.WithFormatStep(small))
			w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if w.City != "Paris" {
				t.Errorf("answer = %+v, want Paris", w)
			}
			if got, want := rows(res.Attempts), []row{
				{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageNoAnswer, Hashed: true},
				{Attempt: 2, Iteration: 3, Outcome: enforce.OutcomePassed},
			}; !slices.Equal(got, want) {
				t.Errorf("rows\n got %+v\nwant %+v", got, want)
			}
			if got := res.Attempts[0]; got.Model != "big" || got.Truncated != tc.truncated {
				t.Errorf("first row = %+v, want the free model's, truncated as its reply was", got)
			}
			// The free step is asked again for its answer, in no form.
			msgs := big.Requests()[1].Messages
			if corr := msgs[len(msgs)-1].Content; !strings.Contains(corr, "give the answer") || strings.Contains(corr, "JSON") {
				t.Errorf("corrective = %q, want one asking for the answer, in no form", corr)
			}
			if n := len(small.Requests()); n != 1 {
				t.Errorf("formatter asked %d times, want once", n)
			}
		})
	}

	t.Run("with no retry left, the run ends at no-answer, never ErrEmptyAnswer", func(t *testing.T) {
		for _, opts := range [][]agent.Option{{agent.WithOutputRetries(0)}, nil} {
			big := agenttest.NewModel(t, agenttest.Reply("").WithReasoning("Paris? Let me think").WithStop(agent.StopLength))
			small := agenttest.NewModel(t)
			a := agent.New(big, append(opts, agent.WithOutputSchema(weatherSchema(t)), agent.WithFormatStep(small))...)
			_, err := a.Run(context.Background(), "Weather in Paris?")
			var oe *enforce.OutputError
			if !errors.As(err, &oe) || oe.Stage != enforce.StageNoAnswer || !oe.Truncated || errors.Is(err, agent.ErrEmptyAnswer) {
				t.Errorf("err = %v, want an *enforce.OutputError at no-answer, truncated", err)
			}
			if n := len(small.Requests()); n != 0 {
				t.Errorf("formatter asked %d times, want never", n)
			}
		}
	})
}

func TestFormatStepEscalationMovesTheStepThatFailed(t *testing.T) {
	t.Run("a failing format step moves to the chain's next model, the free answer kept", func(t *testing.T) {
		big := named(t, "openai", "big", agenttest.Reply(freeAnswer).WithUsage(100, 40))
		bigger := named(t, "openai", "bigger", agenttest.Reply(valid).WithUsage(70, 9))
		small := named(t, "openai", "small", agenttest.Reply(missing).WithUsage(60, 8))
		a := agent.New(big, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithFormatStep(small),
			agent.WithEscalation(agent.Escalation{Models: []agent.Model{bigger}, AfterFailures: 1}))
		w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if w.City != "Paris" {
			t.Errorf("answer = %+v, want Paris", w)
		}
		if got, want := models(res.Attempts), []string{"openai/small", "openai/bigger"}; !slices.Equal(got, want) {
			t.Errorf("rows written by %v, want %v", got, want)
		}
		// bigger formats in the format step's conversation: the contract,
		// the free answer quoted, the failed format and its correction.
		req := bigger.Requests()[0]
		if got := roles(req.Messages); !slices.Equal(got, []agent.Role{agent.RoleSystem, agent.RoleUser, agent.RoleAssistant, agent.RoleUser}) {
			t.Errorf("bigger's request roles %v, want the format step's conversation", got)
		}
		if req.OutputSchema == nil || !strings.Contains(req.Messages[1].Content, freeAnswer) {
			t.Errorf("bigger's request %+v, want the contract and the free answer quoted", req)
		}
		if got, want := res.Models, []agent.ModelSpend{
			{Provider: "openai", Model: "big", Requests: 1, Usage: agent.Usage{InputTokens: 100, OutputTokens: 40}},
			{Provider: "openai", Model: "bigger", Requests: 1, Usage: agent.Usage{InputTokens: 70, OutputTokens: 9}},
			{Provider: "openai", Model: "small", Requests: 1, Usage: agent.Usage{InputTokens: 60, OutputTokens: 8}, Format: true},
		}; !slices.Equal(got, want) {
			t.Errorf("Models\n got %+v\nwant %+v", got, want)
		}
	})

	t.Run("a free step with no answer moves the free step", func(t *testing.T) {
		big := named(t, "openai", "big", agenttest.Reply("").WithReasoning("hmm").WithStop(agent.StopLength))
		bigger := named(t, "openai", "bigger", agenttest.Reply(freeAnswer))
		small := named(t, "openai", "small", agenttest.Reply(valid))
		a := agent.New(big, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithFormatStep(small),
			agent.WithEscalation(agent.Escalation{Models: []agent.Model{bigger}, AfterFailures: 1}))
		if _, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?"); err != nil {
			t.Fatal(err)
		} else if got, want := models(res.Attempts), []string{"openai/big", "openai/small"}; !slices.Equal(got, want) {
			t.Errorf("rows written by %v, want %v", got, want)
		}
	})
}
