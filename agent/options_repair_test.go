package agent_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

func TestAFencedAnswerPassesWithNoSecondModelCall(t *testing.T) {
	fenced := "```json\n" + valid + "\n```"
	m := agenttest.NewModel(t, agenttest.Reply(fenced))
	a := agent.New(m, agent.WithOutputRetries(2), agent.WithRepairs(enforce.RepairFence))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatalf("err = %v, want the mended answer to pass", err)
	}
	if m.Calls() != 1 {
		t.Errorf("the model was called %d times, want once", m.Calls())
	}
	if w != (Weather{City: "Paris", TempC: 21}) {
		t.Errorf("RunTyped decoded %+v", w)
	}
	if len(res.Attempts) != 1 || res.Attempts[0].Outcome != enforce.OutcomePassed || res.Attempts[0].Repaired != enforce.RepairFence {
		t.Errorf("rows = %+v, want one passed row repaired by the fence repair", res.Attempts)
	}
	if res.Output != valid+"\n" {
		t.Errorf("Output = %q, want the mended answer", res.Output)
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Role != agent.RoleAssistant || last.Content != fenced {
		t.Errorf("last message = %+v, want the model's own text", last)
	}
}

func TestWithoutRepairsAFencedAnswerCostsACorrection(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("```json\n"+valid+"\n```"), agenttest.Reply(valid))
	_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(2)), "Weather in Paris?")
	if err != nil || m.Calls() != 2 || res.Attempts[0].Outcome != enforce.OutcomeRetried || res.Attempts[0].Repaired != 0 {
		t.Errorf("err = %v after %d calls, rows %+v; want a retried row and a second call", err, m.Calls(), res.Attempts)
	}
}

func TestAMendedAnswerThatStillFailsIsCorrectedAsMended(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("Here you go:\n"+missing), agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputRetries(2), agent.WithRepairs(enforce.AllRepairs))
	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	r := res.Attempts[0]
	if r.Outcome != enforce.OutcomeRetried || r.Stage != enforce.StageSchemaValidate || r.Path != "/tempC" || r.Repaired != enforce.RepairProse {
		t.Fatalf("first row = %+v, want retried at /tempC, repaired by prose", r)
	}
	corrective := m.Requests()[1].Messages[len(m.Requests()[1].Messages)-1].Content
	if !strings.Contains(corrective, "took the JSON value out of the text around it") {
		t.Errorf("the corrective turn does not say what was mended:\n%s", corrective)
	}
}

func TestRepairsApplyWithoutRetriesToo(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(`{city: 'Paris', tempC: "21",}`))
	a := agent.New(m, agent.WithRepairs(enforce.RepairSyntax|enforce.RepairCoerce))
	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil || w.TempC != 21 || res.Attempts != nil || res.Output != `{"city": "Paris", "tempC": 21}` {
		t.Errorf("RunTyped = %+v, %v; Output %q, rows %v", w, err, res.Output, res.Attempts)
	}
}

func TestAStreamedFencedAnswerIsNotCutAndPasses(t *testing.T) {
	m := agenttest.NewStreamingModel(t, agenttest.Reply("```json\n"+valid+"\n```").InChunks(1))
	a := agent.New(m, agent.WithOutputRetries(2), agent.WithRepairs(enforce.RepairFence))
	if _, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?"); err != nil || res.Attempts[0].Repaired != enforce.RepairFence {
		t.Fatalf("err = %v, rows %+v; want a pass repaired by the fence repair", err, res.Attempts)
	}
}

func TestAStreamedFencedAnswerWhoseContentIsDoomedIsCut(t *testing.T) {
	doomed := "```json\n{\"city\": \"Paris\", \"wind\": 3, \"tempC\": 21}\n```"
	m := agenttest.NewStreamingModel(t, agenttest.Reply(doomed).InChunks(4), agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputRetries(2), agent.WithRepairs(enforce.RepairFence))
	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	r := res.Attempts[0]
	if r.Cut == nil || r.Path != "/wind" {
		t.Fatalf("first row = %+v, want it cut at /wind", r)
	}
	if got := m.Consumed()[0].Bytes; got >= len(doomed) {
		t.Errorf("read %d of %d bytes, want the answer cut before its end", got, len(doomed))
	}
}

func TestAFailedCostBudgetStopsTheRun(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(prose).WithUsage(100, 10), agenttest.Reply(missing).WithUsage(120, 10))
	a := agent.New(m, agent.WithOutputRetries(3), agent.WithFailedCostBudget(enforce.Cost{InputTokens: 150}))
	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if !errors.Is(err, enforce.ErrBudget) || errors.Is(err, enforce.ErrExhausted) {
		t.Errorf("err = %v, want ErrBudget and not ErrExhausted", err)
	}
	if m.Calls() != 2 || len(res.Attempts) != 2 {
		t.Fatalf("%d calls, rows %+v; want 2", m.Calls(), res.Attempts)
	}
	if r := res.Attempts[1]; r.Outcome != enforce.OutcomeExhausted || r.Reason != enforce.ReasonBudget {
		t.Errorf("second row = %+v, want exhausted with reason budget", r)
	}
	if got := res.FailedCost.InputTokens; got != 220 {
		t.Errorf("FailedCost.InputTokens = %d, want 220", got)
	}
	if _, _, err := agent.RunTyped[Weather](t.Context(), agent.New(agenttest.NewModel(t), agent.WithFailedCostBudget(enforce.Cost{LatencyMs: -1})), "?"); !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("a negative budget: err = %v, want ErrInvalidOption", err)
	}
}

func TestAFailedCostBudgetOnReasoningTokensAloneStopsTheRun(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(prose).WithDetailedUsage(100, 50, 0, 40), agenttest.Reply(missing).WithDetailedUsage(100, 50, 0, 40))
	a := agent.New(m, agent.WithOutputRetries(3), agent.WithFailedCostBudget(enforce.Cost{ReasoningTokens: 60}))
	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if !errors.Is(err, enforce.ErrBudget) || m.Calls() != 2 {
		t.Errorf("err = %v after %d calls, rows %+v; want ErrBudget on the second", err, m.Calls(), res.Attempts)
	}
	for _, b := range []enforce.Cost{{CachedTokens: -1}, {ReasoningTokens: -1}} {
		if _, _, err := agent.RunTyped[Weather](t.Context(), agent.New(agenttest.NewModel(t), agent.WithFailedCostBudget(b)), "?"); !errors.Is(err, agent.ErrInvalidOption) {
			t.Errorf("budget %+v: err = %v, want ErrInvalidOption", b, err)
		}
	}
}

func TestRunTypedStreamShowsAFencedValueAsItForms(t *testing.T) {
	m := agenttest.NewStreamingModel(t, agenttest.Reply("```json\n"+trip+"\n```").InChunks(4))
	s := agent.RunTypedStream[Trip](t.Context(), agent.New(m, agent.WithRepairs(enforce.RepairFence)), "Plan a trip")
	var cities []string
	for p := range s.Partials() {
		if len(cities) == 0 || cities[len(cities)-1] != p.Value.City {
			cities = append(cities, p.Value.City)
		}
	}
	v, _, err := s.Result()
	if err != nil || v.City != "Paris" || v.Days != 3 {
		t.Fatalf("Result = %+v, %v; want the mended trip", v, err)
	}
	if len(cities) < 3 || cities[len(cities)-1] != "Paris" {
		t.Errorf("cities shown = %q, want the value forming inside the fence", cities)
	}
}

func TestTheSchemaRetryEventNamesTheRepairs(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t, agenttest.Reply("```json\n"+missing+"\n```"), agenttest.Reply(valid))
	a := agent.New(m, agent.WithEvents(s), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1), agent.WithRepairs(enforce.RepairFence))
	if _, err := a.Run(t.Context(), "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	_, ns := methods(t, s)
	for _, n := range ns {
		if n.Method == "output/schemaRetry" {
			if !containsJSON(n.Params, `"repaired":["fence"]`) {
				t.Errorf("output/schemaRetry = %s, want repaired [fence]", n.Params)
			}
			return
		}
	}
	t.Error("no output/schemaRetry recorded")
}
