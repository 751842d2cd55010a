package agent_test

import (
	"errors"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

func TestFailedCallsCountTowardTheFailedCostBudget(t *testing.T) {
	var got []string
	bad := agenttest.Call("c1", "lookup", `{"city":3}`)
	m := agenttest.NewModel(t,
		agenttest.CallTools(bad, agenttest.Call("c2", "lookup", `{}`)).WithUsage(100, 10),
		agenttest.CallTools(agenttest.Call("c3", "lookup", `{"city":4}`)).WithUsage(100, 10))
	res, err := agent.New(m, agent.WithTools(plainLookup(&got)), agent.WithFailedCostBudget(enforce.Cost{OutputTokens: 15})).Run(t.Context(), "Weather in Paris?")
	var tce *agent.ToolCallError
	if !errors.Is(err, agent.ErrBudget) || !errors.As(err, &tce) || tce.Tool != "lookup" || tce.Reason != enforce.ReasonBudget {
		t.Fatalf("err = %v, want a *ToolCallError of lookup matching ErrBudget", err)
	}
	// The reply's cost is on its first failed call's row, once.
	if len(res.Calls) != 3 || res.Calls[0].OutputTokens != 10 || res.Calls[1].OutputTokens != 0 || res.Calls[2].OutputTokens != 10 {
		t.Fatalf("Calls = %+v, want the two replies' 10 output tokens each on their first failed call", res.Calls)
	}
	if r := res.Calls[2]; r.Outcome != enforce.OutcomeExhausted || r.Reason != enforce.ReasonBudget {
		t.Errorf("last row = %+v, want exhausted with reason budget", r)
	}
	if res.FailedCost.OutputTokens != 20 || len(got) != 0 {
		t.Errorf("FailedCost = %+v, tool given %q; want 20 output tokens, the tool never run", res.FailedCost, got)
	}
}

func TestFailedCallsAndFailedAnswersShareTheFailedCostBudget(t *testing.T) {
	var got []string
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{"city":3}`)).WithUsage(100, 10),
		agenttest.Reply(`{"city":"Paris"}`).WithUsage(100, 10))
	a := agent.New(m, agent.WithTools(plainLookup(&got)), agent.WithOutputRetries(3), agent.WithFailedCostBudget(enforce.Cost{OutputTokens: 15}))
	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if !errors.Is(err, agent.ErrBudget) || len(res.Attempts) != 1 || res.Attempts[0].Reason != enforce.ReasonBudget {
		t.Fatalf("err = %v, rows %+v; want the failing answer exhausted with reason budget, the failed call's cost counted", err, res.Attempts)
	}
	if res.FailedCost.OutputTokens != 20 {
		t.Errorf("FailedCost = %+v, want the call's and the answer's 20 output tokens", res.FailedCost)
	}
}

func TestAFailedCallMovesTheRunOnAsAFailedAnswerDoes(t *testing.T) {
	var got []string
	first := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "lookup", `{"city":3}`)))
	next := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c2", "lookup", `{"city":"Paris"}`)), agenttest.Reply("sunny"))
	var shown []enforce.Attempt
	a := agent.New(first, agent.WithTools(plainLookup(&got)), agent.WithEscalation(agent.Escalation{
		Models: []agent.Model{next}, AfterFailures: 1, OnRow: func(r enforce.Attempt) bool { shown = append(shown, r); return false }}))
	res, err := a.Run(t.Context(), "Weather in Paris?")
	if err != nil || res.Output != "sunny" || len(got) != 1 {
		t.Fatalf("Run = %q, %v (tool given %q); want the next model's call run and its answer", res.Output, err, got)
	}
	if first.Calls() != 1 || next.Calls() != 2 {
		t.Errorf("calls: first %d, next %d; want 1 and 2 (moved on after the failed call)", first.Calls(), next.Calls())
	}
	// OnRow is asked of a retried call's row as of an answer's, when
	// AfterFailures did not already move on.
	a = agent.New(agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "lookup", `{"city":3}`)), agenttest.Reply("sunny")),
		agent.WithTools(plainLookup(&got)), agent.WithEscalation(agent.Escalation{
			Models: []agent.Model{agenttest.NewModel(t)}, OnRow: func(r enforce.Attempt) bool { shown = append(shown, r); return false }}))
	if _, err := a.Run(t.Context(), "Weather in Paris?"); err != nil || len(shown) != 1 || shown[0].Tool != "lookup" || shown[0].Outcome != enforce.OutcomeRetried {
		t.Errorf("err %v, OnRow shown %+v; want the retried call's row", err, shown)
	}
}
