package agent_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

const (
	judgeFails  = `{"pass": false, "reason": "the forecast is for Lyon, not Paris"}`
	judgePasses = `{"pass": true, "reason": "it is about Paris"}`
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// ruled is row's rulings, nil when it has none.
func ruled(row enforce.Attempt) []enforce.Ruling {
	if row.Rules == nil {
		return nil
	}
	return *row.Rules
}

func TestJudge(t *testing.T) {
	m := named(t, "acme", "writer", agenttest.Reply(lyon).WithUsage(100, 10), agenttest.Reply(valid).WithUsage(120, 10))
	jm := named(t, "acme", "judge",
		agenttest.Reply(judgeFails).WithUsage(50, 5),
		agenttest.Reply("yes").WithUsage(40, 1), // malformed: the judge's own contract corrects it
		agenttest.Reply(judgePasses).WithUsage(60, 5))
	paris := agent.Judge("about-paris", jm, "Is the forecast about Paris?").At("/city")
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithValidators(paris),
		agent.WithPrices(map[string]agent.Price{"writer": {Input: 1, Output: 1}, "judge": {Input: 10, Output: 10}}))

	res, err := a.Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("its reason is the corrective turn's issue at the member", func(t *testing.T) {
		sent := m.Requests()[1].Messages
		if got := sent[len(sent)-1].Content; !strings.HasSuffix(got, `- at "/city": "the forecast is for Lyon, not Paris"`) {
			t.Errorf("corrective message does not end with the judge's reason:\n%s", got)
		}
		if got, want := res.Attempts[0].Path, "/city"; got != want {
			t.Errorf("row path = %q, want %q", got, want)
		}
	})
	t.Run("the judge sees the member as data and the rubric", func(t *testing.T) {
		req := jm.Requests()[0]
		got := req.Messages[len(req.Messages)-1].Content
		if !strings.Contains(got, "Is the forecast about Paris?") || !strings.Contains(got, `"Lyon"`) || strings.Contains(got, "tempC") {
			t.Errorf("judge's question = %q, want the rubric and the member only", got)
		}
	})
	t.Run("each row has the judge's verdict and what it cost", func(t *testing.T) {
		want := [][]enforce.Ruling{
			{{Rule: "about-paris", Verdict: enforce.RuleFailed, Path: "/city", Reason: "the forecast is for Lyon, not Paris",
				Provider: "acme", Model: "judge", Cost: enforce.Cost{InputTokens: 50, OutputTokens: 5, Money: 55e-5}}},
			{{Rule: "about-paris", Verdict: enforce.RulePassed,
				Provider: "acme", Model: "judge", Cost: enforce.Cost{InputTokens: 100, OutputTokens: 6, Money: 106e-5}}},
		}
		for i, row := range res.Attempts {
			got := ruled(row)
			if len(got) == 1 && !near(got[0].Money, want[i][0].Money) {
				t.Errorf("row %d ruling money = %v, want %v", i+1, got[0].Money, want[i][0].Money)
			}
			if len(got) == 1 {
				got[0].Money = want[i][0].Money
			}
			if !reflect.DeepEqual(got, want[i]) {
				t.Errorf("row %d rules = %+v, want %+v", i+1, got, want[i])
			}
		}
	})
	t.Run("its calls count in Usage, Models and Money, apart from the agent's", func(t *testing.T) {
		if got, want := res.Usage, (agent.Usage{InputTokens: 370, OutputTokens: 31}); got != want {
			t.Errorf("Usage = %+v, want %+v (the agent's and the judge's)", got, want)
		}
		want := []agent.ModelSpend{
			{Provider: "acme", Model: "writer", Requests: 2, Usage: agent.Usage{InputTokens: 220, OutputTokens: 20}, Money: 240e-6},
			{Provider: "acme", Model: "judge", Requests: 3, Usage: agent.Usage{InputTokens: 150, OutputTokens: 11}, Money: 1610e-6, Judge: true},
		}
		if len(res.Models) != 2 || !near(res.Models[0].Money, want[0].Money) || !near(res.Models[1].Money, want[1].Money) || !near(res.Money, 1850e-6) {
			t.Fatalf("Models = %+v, Money %v; want %+v", res.Models, res.Money, want)
		}
		got := slicesCloneMoney(res.Models, want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Models = %+v, want %+v", got, want)
		}
	})
}

// slicesCloneMoney is got with each Money set to want's, once compared
// with near.
func slicesCloneMoney(got, want []agent.ModelSpend) []agent.ModelSpend {
	out := append([]agent.ModelSpend(nil), got...)
	for i := range out {
		out[i].Money = want[i].Money
	}
	return out
}

func TestJudgePolicies(t *testing.T) {
	t.Run("a judge's tripwire ends the run naming the rule", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(lyon))
		jm := agenttest.NewModel(t, agenttest.Reply(judgeFails))
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(3),
			agent.WithValidators(agent.Judge("about-paris", jm, "Is it about Paris?").OnFail(enforce.PolicyTripwire)))
		res, err := a.Run(t.Context(), "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || !errors.Is(err, enforce.ErrTripwire) || oe.Rule != "about-paris" {
			t.Fatalf("err = %v, want a tripwire of about-paris", err)
		}
		if row := lastRow(t, res); row.Reason != enforce.ReasonTripwire || len(res.Attempts) != 1 {
			t.Errorf("rows = %+v, want one exhausted with reason tripwire", res.Attempts)
		}
	})
	t.Run("a judge's warning accepts the answer", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(lyon))
		jm := agenttest.NewModel(t, agenttest.Reply(judgeFails))
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(3),
			agent.WithValidators(agent.Judge("about-paris", jm, "Is it about Paris?").OnFail(enforce.PolicyWarn)))
		res, err := a.Run(t.Context(), "Weather in Paris?")
		if err != nil || res.Output != lyon {
			t.Fatalf("Run = %q, %v; want %s accepted", res.Output, err, lyon)
		}
		if got := ruled(lastRow(t, res)); len(got) != 1 || got[0].Verdict != enforce.RuleWarned {
			t.Errorf("rules = %+v, want one warned", got)
		}
	})
	t.Run("a fix rewrites the answer returned; the conversation keeps the model's", func(t *testing.T) {
		moveToParis := parisOnly.Fix(func(_ context.Context, v any, _ []enforce.Issue) (any, error) {
			w := v.(map[string]any)
			w["city"] = "Paris"
			return w, nil
		})
		for _, opts := range [][]agent.Option{{agent.WithOutputRetries(1)}, nil} {
			m := agenttest.NewModel(t, agenttest.Reply(lyon))
			a := agent.New(m, append(opts, agent.WithOutputSchema(weatherSchema(t)), agent.WithValidators(moveToParis))...)
			res, err := a.Run(t.Context(), "Weather in Paris?")
			if err != nil || res.Output != `{"city":"Paris","tempC":21}` {
				t.Errorf("Run (%d options) = %q, %v; want the fixed answer", len(opts), res.Output, err)
			}
			if got := res.Messages[len(res.Messages)-1].Content; got != lyon {
				t.Errorf("conversation ends with %q, want the model's own %q", got, lyon)
			}
		}
	})
}

func TestJudgeMalformedBeyondItsRetries(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(valid))
	jm := agenttest.NewModel(t, agenttest.Reply("yes"), agenttest.Reply("sure"))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithValidators(agent.Judge("about-paris", jm, "Is it about Paris?", agent.WithOutputRetries(1))))
	res, err := a.Run(t.Context(), "Weather in Paris?")
	var ve *enforce.ValidatorError
	if !errors.As(err, &ve) || ve.Name != "about-paris" {
		t.Fatalf("err = %v, want the judge's *enforce.ValidatorError", err)
	}
	if row := lastRow(t, res); row.Reason != enforce.ReasonValidatorFailed {
		t.Errorf("row = %+v, want validator-failed", row)
	}
	if got := res.Usage; got != (agent.Usage{}) && res.Models[len(res.Models)-1].Requests != 2 {
		t.Errorf("Models = %+v, want the judge's 2 calls counted", res.Models)
	}
}

func TestJudgeBudget(t *testing.T) {
	// The agent's call is the budget's one request: the judge is not asked.
	m := agenttest.NewModel(t, agenttest.Reply(valid))
	jm := agenttest.NewModel(t)
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithBudget(agent.Budget{Requests: 1}),
		agent.WithValidators(agent.Judge("about-paris", jm, "Is it about Paris?")))
	_, err := a.Run(t.Context(), "Weather in Paris?")
	var ve *enforce.ValidatorError
	if !errors.As(err, &ve) || !errors.Is(err, agent.ErrBudget) {
		t.Fatalf("err = %v, want the judge refused by the budget", err)
	}

	// The judge's call reaches the cap: no correction is sent, and the
	// row says so instead of claiming one.
	m = agenttest.NewModel(t, agenttest.Reply(lyon))
	jm = agenttest.NewModel(t, agenttest.Reply(judgeFails))
	a = agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithBudget(agent.Budget{Requests: 2}),
		agent.WithValidators(agent.Judge("about-paris", jm, "Is it about Paris?")))
	res, err := a.Run(t.Context(), "Weather in Paris?")
	var oe *enforce.OutputError
	if !errors.As(err, &oe) || !errors.Is(err, agent.ErrBudget) || len(m.Requests()) != 1 {
		t.Fatalf("Run = %v after %d agent calls, want the answer's *enforce.OutputError, the request cap reached by the judge's call", err, len(m.Requests()))
	}
	if got, want := rows(res.Attempts), []row{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageSchemaValidate, Path: ""}}; !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}
	if row := lastRow(t, res); row.Reason != enforce.ReasonRequestBudget || row.CorrectiveMessageHash != "" {
		t.Errorf("row = %+v, want exhausted with request-budget and no corrective message", row)
	}
	if got := res.Models[1]; !got.Judge || got.Requests != 1 {
		t.Errorf("Models = %+v, want the judge's one request", res.Models)
	}
}

// blockingModel answers only when ctx ends, with its cause.
type blockingModel struct{ asked chan struct{} }

func (m blockingModel) Generate(ctx context.Context, _ agent.Request) (agent.Response, error) {
	close(m.asked)
	<-ctx.Done()
	return agent.Response{}, context.Cause(ctx)
}

func TestJudgeStopsWithTheRun(t *testing.T) {
	stop := errors.New("the caller gave up")
	ctx, cancel := context.WithCancelCause(t.Context())
	jm := blockingModel{asked: make(chan struct{})}
	go func() { <-jm.asked; cancel(stop) }()
	m := agenttest.NewModel(t, agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithValidators(agent.Judge("about-paris", jm, "Is it about Paris?")))
	res, err := a.Run(ctx, "Weather in Paris?")
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the run's cause", err)
	}
	if len(res.Attempts) != 0 {
		t.Errorf("rows = %+v, want none: nothing was concluded", res.Attempts)
	}
}

// A judge asked outside an agent's run (an eval's check, a ledger of
// your own) prices its calls by the prices among its own options: its
// ruling says what it cost.
func TestAJudgeOutsideARunPricesItsCallsByItsOwnOptions(t *testing.T) {
	jm := named(t, "acme", "judge", agenttest.Reply(judgeFails).WithUsage(50, 5))
	rule := agent.Judge("about-paris", jm, "Is the forecast about Paris?",
		agent.WithPrices(map[string]agent.Price{"judge": {Input: 10, Output: 10}})).At("/city")
	s, err := weatherSchema(t).WithValidators(rule)
	if err != nil {
		t.Fatal(err)
	}
	l, err := enforce.NewLedger(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	row := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: lyon}).Row
	got := ruled(row)
	if len(got) != 1 || got[0].Verdict != enforce.RuleFailed || got[0].InputTokens != 50 || !near(got[0].Money, 550e-6) {
		t.Errorf("rulings = %+v, want the judge's failing verdict costing 55 tokens at 10 a million, 550e-6", got)
	}
}
