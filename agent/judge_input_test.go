package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

const onTopic = `{"pass": true, "reason": "it asks about the weather"}`

// judgePrices prices the writer at 1 and each judge at 10 per million.
var judgePrices = map[string]agent.Price{
	"writer": {Input: 1, Output: 1}, "in-judge": {Input: 10, Output: 10}, "out-judge": {Input: 10, Output: 10},
	"tool-judge": {Input: 10, Output: 10},
}

// checkSpend fails t unless res spent as want says, Money compared with near.
func checkSpend(t *testing.T, res *agent.Result, usage agent.Usage, want []agent.ModelSpend, money float64) {
	t.Helper()
	if res.Usage != usage {
		t.Errorf("Usage = %+v, want %+v", res.Usage, usage)
	}
	if !near(res.Money, money) {
		t.Errorf("Money = %v, want %v", res.Money, money)
	}
	if len(res.Models) != len(want) {
		t.Fatalf("Models = %+v, want %+v", res.Models, want)
	}
	for i := range want {
		if !near(res.Models[i].Money, want[i].Money) {
			t.Errorf("Models[%d].Money = %v, want %v", i, res.Models[i].Money, want[i].Money)
		}
	}
	if got := slicesCloneMoney(res.Models, want); !equalSpend(got, want) {
		t.Errorf("Models = %+v, want %+v", got, want)
	}
}

func equalSpend(a, b []agent.ModelSpend) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestAnInputJudgeSpendCountsWithoutOutputRules(t *testing.T) {
	writer := agent.ModelSpend{Provider: "acme", Model: "writer", Requests: 1, Usage: agent.Usage{InputTokens: 100, OutputTokens: 10}, Money: 110e-6}
	judge := agent.ModelSpend{Provider: "acme", Model: "in-judge", Requests: 1, Usage: agent.Usage{InputTokens: 50, OutputTokens: 5}, Money: 550e-6, Judge: true}
	for _, c := range []struct {
		name  string
		reply string
		opts  []agent.Option
	}{
		{"no contract", "It is 21 degrees.", nil},
		{"a contract without rules", valid, []agent.Option{agent.WithOutputSchema(weatherSchema(t))}},
		{"a contract without rules, with a ledger", valid, []agent.Option{agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := named(t, "acme", "writer", agenttest.Reply(c.reply).WithUsage(100, 10))
			jm := named(t, "acme", "in-judge", agenttest.Reply(onTopic).WithUsage(50, 5))
			a := agent.New(m, append(c.opts, agent.WithPrices(judgePrices),
				agent.WithInputRules(agent.Judge("on-topic", jm, "Is it about the weather?")))...)
			res, err := a.Run(t.Context(), "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			checkSpend(t, res, agent.Usage{InputTokens: 150, OutputTokens: 15}, []agent.ModelSpend{writer, judge}, 660e-6)
			if got := res.InputRules; len(got) != 1 || got[0].Verdict != enforce.RulePassed || got[0].InputTokens != 50 || !near(got[0].Money, 550e-6) {
				t.Errorf("InputRules = %+v, want the judge's pass, its tokens and its money", got)
			}
		})
	}
}

func TestAnInputJudgeThatTripsIsCounted(t *testing.T) {
	m := named(t, "acme", "writer", agenttest.Reply("It is 21 degrees.").WithUsage(100, 10))
	jm := named(t, "acme", "in-judge", agenttest.Reply(`{"pass": false, "reason": "it is not about the weather"}`).WithUsage(50, 5))
	a := agent.New(m, agent.WithPrices(judgePrices),
		agent.WithInputRules(agent.Judge("on-topic", jm, "Is it about the weather?")))
	res, err := a.Run(t.Context(), "Tell me a joke.")
	var ie *agent.InputRuleError
	if !errors.As(err, &ie) || ie.Rule != "on-topic" {
		t.Fatalf("err = %v, want the judge's *agent.InputRuleError", err)
	}
	checkSpend(t, res, agent.Usage{InputTokens: 150, OutputTokens: 15}, []agent.ModelSpend{
		{Provider: "acme", Model: "writer", Requests: 1, Usage: agent.Usage{InputTokens: 100, OutputTokens: 10}, Money: 110e-6},
		{Provider: "acme", Model: "in-judge", Requests: 1, Usage: agent.Usage{InputTokens: 50, OutputTokens: 5}, Money: 550e-6, Judge: true},
	}, 660e-6)
}

func TestInputAndOutputJudgesEachCountOnce(t *testing.T) {
	for _, opts := range [][]agent.Option{nil, {agent.WithOutputRetries(1)}} {
		m := named(t, "acme", "writer", agenttest.Reply(valid).WithUsage(100, 10))
		in := named(t, "acme", "in-judge", agenttest.Reply(onTopic).WithUsage(50, 5))
		out := named(t, "acme", "out-judge", agenttest.Reply(judgePasses).WithUsage(60, 6))
		a := agent.New(m, append(opts, agent.WithOutputSchema(weatherSchema(t)), agent.WithPrices(judgePrices),
			agent.WithInputRules(agent.Judge("on-topic", in, "Is it about the weather?")),
			agent.WithValidators(agent.Judge("about-paris", out, "Is it about Paris?")))...)
		res, err := a.Run(t.Context(), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		checkSpend(t, res, agent.Usage{InputTokens: 210, OutputTokens: 21}, []agent.ModelSpend{
			{Provider: "acme", Model: "writer", Requests: 1, Usage: agent.Usage{InputTokens: 100, OutputTokens: 10}, Money: 110e-6},
			{Provider: "acme", Model: "in-judge", Requests: 1, Usage: agent.Usage{InputTokens: 50, OutputTokens: 5}, Money: 550e-6, Judge: true},
			{Provider: "acme", Model: "out-judge", Requests: 1, Usage: agent.Usage{InputTokens: 60, OutputTokens: 6}, Money: 660e-6, Judge: true},
		}, 1320e-6)
	}
}

func TestAnInputJudgeReachingABudgetCapIsTheBudgetsStop(t *testing.T) {
	t.Run("a failing answer is exhausted with the cap's reason", func(t *testing.T) {
		m := named(t, "acme", "writer", agenttest.Reply(missing).WithUsage(100, 10))
		jm := named(t, "acme", "in-judge", agenttest.Reply(onTopic).WithUsage(50, 5))
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
			agent.WithBudget(agent.Budget{Requests: 2}),
			agent.WithInputRules(agent.Judge("on-topic", jm, "Is it about the weather?")))
		res, err := a.Run(t.Context(), "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || !errors.Is(err, agent.ErrBudget) || len(m.Requests()) != 1 {
			t.Fatalf("Run = %v after %d agent calls, want the answer's *enforce.OutputError, the request cap reached by the input judge", err, len(m.Requests()))
		}
		if row := lastRow(t, res); row.Outcome != enforce.OutcomeExhausted || row.Reason != enforce.ReasonRequestBudget {
			t.Errorf("row = %+v, want exhausted with request-budget", row)
		}
	})
	t.Run("a request after tool calls is refused", func(t *testing.T) {
		m := named(t, "acme", "writer", agenttest.CallTools(agenttest.Call("1", "lookup", `{}`)).WithUsage(100, 10))
		jm := named(t, "acme", "in-judge", agenttest.Reply(onTopic).WithUsage(50, 5))
		a := agent.New(m, agent.WithTools(lookupTool),
			agent.WithBudget(agent.Budget{Requests: 2}),
			agent.WithInputRules(agent.Judge("on-topic", jm, "Is it about the weather?")))
		_, err := a.Run(t.Context(), "Weather in Paris?")
		var be *agent.BudgetError
		if !errors.As(err, &be) || be.Cap != "Requests" || be.Spent != 3 || len(m.Requests()) != 1 {
			t.Fatalf("Run = %v after %d agent calls, want a *agent.BudgetError: the writer's and the judge's requests are the cap's two", err, len(m.Requests()))
		}
	})
}

// lookupTool is a tool whose result is "21".
var lookupTool = agent.Tool{Name: "lookup", Run: func(context.Context, json.RawMessage) (string, error) { return "21", nil }}

func TestAToolResultJudgeSpendCountsWithoutOutputRules(t *testing.T) {
	for _, c := range []struct {
		name  string
		reply string
		opts  []agent.Option
	}{
		{"no contract", "It is 21 degrees.", nil},
		{"a contract without rules", valid, []agent.Option{agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := named(t, "acme", "writer",
				agenttest.CallTools(agenttest.Call("1", "lookup", `{}`)).WithUsage(100, 10),
				agenttest.Reply(c.reply).WithUsage(120, 12))
			jm := named(t, "acme", "tool-judge", agenttest.Reply(onTopic).WithUsage(50, 5))
			a := agent.New(m, append(c.opts, agent.WithTools(lookupTool), agent.WithPrices(judgePrices),
				agent.WithToolResultRules(agent.Judge("plausible", jm, "Is it a temperature?")))...)
			res, err := a.Run(t.Context(), "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			checkSpend(t, res, agent.Usage{InputTokens: 270, OutputTokens: 27}, []agent.ModelSpend{
				{Provider: "acme", Model: "writer", Requests: 2, Usage: agent.Usage{InputTokens: 220, OutputTokens: 22}, Money: 242e-6},
				{Provider: "acme", Model: "tool-judge", Requests: 1, Usage: agent.Usage{InputTokens: 50, OutputTokens: 5}, Money: 550e-6, Judge: true},
			}, 792e-6)
			if len(res.Calls) != 1 || res.Calls[0].Rules == nil || len(*res.Calls[0].Rules) != 1 || !near((*res.Calls[0].Rules)[0].Money, 550e-6) {
				t.Errorf("Calls = %+v, want the judge's ruling with its money on the call's row", res.Calls)
			}
		})
	}
}

func TestInputToolResultAndOutputJudgesEachCountOnce(t *testing.T) {
	m := named(t, "acme", "writer",
		agenttest.CallTools(agenttest.Call("1", "lookup", `{}`)).WithUsage(100, 10),
		agenttest.Reply(valid).WithUsage(120, 12))
	in := named(t, "acme", "in-judge", agenttest.Reply(onTopic).WithUsage(50, 5))
	tool := named(t, "acme", "tool-judge", agenttest.Reply(onTopic).WithUsage(40, 4))
	out := named(t, "acme", "out-judge", agenttest.Reply(judgePasses).WithUsage(60, 6))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1), agent.WithTools(lookupTool), agent.WithPrices(judgePrices),
		agent.WithInputRules(agent.Judge("on-topic", in, "Is it about the weather?")),
		agent.WithToolResultRules(agent.Judge("plausible", tool, "Is it a temperature?")),
		agent.WithValidators(agent.Judge("about-paris", out, "Is it about Paris?")))
	res, err := a.Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	checkSpend(t, res, agent.Usage{InputTokens: 370, OutputTokens: 37}, []agent.ModelSpend{
		{Provider: "acme", Model: "writer", Requests: 2, Usage: agent.Usage{InputTokens: 220, OutputTokens: 22}, Money: 242e-6},
		{Provider: "acme", Model: "in-judge", Requests: 1, Usage: agent.Usage{InputTokens: 50, OutputTokens: 5}, Money: 550e-6, Judge: true},
		{Provider: "acme", Model: "tool-judge", Requests: 1, Usage: agent.Usage{InputTokens: 40, OutputTokens: 4}, Money: 440e-6, Judge: true},
		{Provider: "acme", Model: "out-judge", Requests: 1, Usage: agent.Usage{InputTokens: 60, OutputTokens: 6}, Money: 660e-6, Judge: true},
	}, 1892e-6)
}

func TestAToolResultJudgeReachingABudgetCapStopsTheNextRequest(t *testing.T) {
	m := named(t, "acme", "writer", agenttest.CallTools(agenttest.Call("1", "lookup", `{}`)).WithUsage(100, 10))
	jm := named(t, "acme", "tool-judge", agenttest.Reply(onTopic).WithUsage(50, 5))
	a := agent.New(m, agent.WithTools(lookupTool), agent.WithBudget(agent.Budget{Requests: 2}),
		agent.WithToolResultRules(agent.Judge("plausible", jm, "Is it a temperature?")))
	_, err := a.Run(t.Context(), "Weather in Paris?")
	var be *agent.BudgetError
	if !errors.As(err, &be) || be.Cap != "Requests" || len(m.Requests()) != 1 {
		t.Fatalf("Run = %v after %d agent calls, want a *agent.BudgetError: the writer's and the judge's requests are the cap's two", err, len(m.Requests()))
	}
}
