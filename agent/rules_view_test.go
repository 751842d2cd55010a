package agent_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
)

// ruledEvents are the rules/judged events rec holds, in order, and the
// method of the event recorded after each.
func ruledEvents(rec *lastEvents) (got []events.RulesJudged, next []string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i, ev := range rec.evs {
		if r, ok := ev.(events.RulesJudged); ok {
			got = append(got, r)
			n := ""
			if i+1 < len(rec.evs) {
				n = reflect.TypeOf(rec.evs[i+1]).Name()
			}
			next = append(next, n)
		}
	}
	return got, next
}

func TestEveryRowsRulesAreOnTheStream(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(lyon), agenttest.Reply(valid))
	jm := named(t, "acme", "judge", agenttest.Reply(judgeFails).WithUsage(50, 5), agenttest.Reply(judgePasses).WithUsage(60, 6))
	rec := &lastEvents{}
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1), agent.WithEvents(rec),
		agent.WithValidators(agent.Judge("about-paris", jm, "Is it about Paris?").At("/city"),
			enforce.ForbiddenWords("no-paris", "Paris").OnFail(enforce.PolicyWarn)))
	res, err := a.Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	got, next := ruledEvents(rec)
	if len(got) != 2 {
		t.Fatalf("rules/judged events = %+v, want one per row", got)
	}
	for i, row := range res.Attempts {
		want := events.RulesJudged{TurnID: res.TurnID, Attempt: row.Attempt, Iteration: row.Iteration}
		for _, r := range ruled(row) {
			want.Rules = append(want.Rules, events.Ruling{Rule: r.Rule, Verdict: string(r.Verdict), Path: r.Path, Reason: r.Reason,
				Provider: r.Provider, Model: r.Model, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens})
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("event %d = %+v, want the row's rules %+v", i+1, got[i], want)
		}
	}
	if got[0].Rules[0].Verdict != "failed" || got[0].Rules[0].InputTokens != 50 || got[1].Rules[1].Verdict != "warned" {
		t.Errorf("events = %+v, want the judge's failure and cost, then the warning on the passed answer", got)
	}
	if next[0] != "TurnRetry" {
		t.Errorf("after the first rules/judged came %s, want the row's own events", next[0])
	}
}

func TestInputRulesVerdictsAreOnTheResult(t *testing.T) {
	reply := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Content: "ok"}, Stop: agent.StopComplete}, nil
	})
	rec := &lastEvents{}
	a := agent.New(reply, agent.WithEvents(rec), agent.WithInputRules(
		enforce.ForbiddenWords("words", "Globex").OnFail(enforce.PolicyWarn),
		enforce.PII("no-cards", enforce.PIICard)))
	res, err := a.Run(t.Context(), "Is Globex hiring?")
	if err != nil {
		t.Fatal(err)
	}
	want := []enforce.Ruling{
		{Rule: "words", Verdict: enforce.RuleWarned, Reason: `forbidden word "Globex"`},
		{Rule: "no-cards", Verdict: enforce.RulePassed},
	}
	if !reflect.DeepEqual(res.InputRules, want) {
		t.Errorf("InputRules = %+v, want %+v", res.InputRules, want)
	}
	got, _ := ruledEvents(rec)
	if len(got) != 1 || got[0].Attempt != 0 || len(got[0].Rules) != 2 || got[0].Rules[0].Verdict != "warned" {
		t.Errorf("rules/judged = %+v, want the input's two verdicts", got)
	}

	t.Run("a tripped rule is on the result beside the error", func(t *testing.T) {
		a := agent.New(reply, agent.WithInputRules(enforce.ForbiddenWords("words", "Globex")))
		res, err := a.Run(t.Context(), "Is Globex hiring?")
		var ie *agent.InputRuleError
		if !errors.As(err, &ie) {
			t.Fatalf("err = %v, want an *agent.InputRuleError", err)
		}
		if len(res.InputRules) != 1 || res.InputRules[0].Verdict != enforce.RuleFailed || res.InputRules[0].Rule != "words" {
			t.Errorf("InputRules = %+v, want the rule's failure", res.InputRules)
		}
	})
}
