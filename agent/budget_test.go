package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

func TestBudgetStopsAFailingAnswerWhoseCorrectionTheLastCallProvesTooBig(t *testing.T) {
	// 200 input tokens were sent; the correction re-sends them, so with
	// 250 spent it would pass 400 total tokens: refused before it is made.
	m := agenttest.NewModel(t, agenttest.Reply(missing).WithUsage(200, 50))
	ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithBudget(agent.Budget{TotalTokens: 400}))
	res, err := ag.Run(context.Background(), "Weather?")
	if !errors.Is(err, agent.ErrBudget) {
		t.Fatalf("err = %v, want agent.ErrBudget", err)
	}
	var oe *enforce.OutputError
	if !errors.As(err, &oe) || oe.Reason != enforce.ReasonTokenBudget {
		t.Errorf("err = %#v, want an *enforce.OutputError with reason token-budget", err)
	}
	if got := res.Attempts[0]; got.Outcome != enforce.OutcomeExhausted || got.Reason != enforce.ReasonTokenBudget {
		t.Errorf("row %+v, want exhausted with reason token-budget", got)
	}
}

func TestBudgetAllowsACorrectionNothingProvesTooBig(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(missing).WithUsage(100, 50), agenttest.Reply(valid).WithUsage(180, 20))
	ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithBudget(agent.Budget{TotalTokens: 400}))
	if _, err := ag.Run(context.Background(), "Weather?"); err != nil {
		t.Fatalf("err = %v: 150 spent and 100 proved is under 400", err)
	}
}

func TestBudgetEachCapHasItsOwnReason(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget agent.Budget
		want   enforce.Reason
	}{
		{"input tokens", agent.Budget{InputTokens: 100}, enforce.ReasonTokenBudget},
		{"output tokens", agent.Budget{OutputTokens: 50}, enforce.ReasonTokenBudget},
		{"total tokens", agent.Budget{TotalTokens: 150}, enforce.ReasonTokenBudget},
		{"requests", agent.Budget{Requests: 1}, enforce.ReasonRequestBudget},
		{"money", agent.Budget{Money: 0.001}, enforce.ReasonMoneyBudget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One call spends 100 in, 50 out, and at 10 per million
			// tokens 0.0015: each cap is reached by it.
			m := agenttest.NewModel(t, agenttest.Reply(missing).WithUsage(100, 50))
			ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
				agent.WithPrices(map[string]agent.Price{"": {Input: 10, Output: 10}}), agent.WithBudget(tc.budget))
			res, err := ag.Run(context.Background(), "Weather?")
			if !errors.Is(err, agent.ErrBudget) {
				t.Fatalf("err = %v, want agent.ErrBudget", err)
			}
			if got := res.Attempts[0].Reason; got != tc.want {
				t.Errorf("row's reason %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBudgetRefusesARequestAfterToolCallsWithABudgetError(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "lookup", `{}`)).WithUsage(100, 10))
	lookup := agent.NewTool("lookup", "look it up", func(context.Context, struct{}) (string, error) { return "21", nil })
	ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1), agent.WithTools(lookup),
		agent.WithBudget(agent.Budget{Requests: 1}))
	res, err := ag.Run(context.Background(), "Weather?")
	var be *agent.BudgetError
	if !errors.As(err, &be) || !errors.Is(err, agent.ErrBudget) {
		t.Fatalf("err = %v, want an *agent.BudgetError matching ErrBudget", err)
	}
	if be.Reason != enforce.ReasonRequestBudget || be.Cap != "Requests" || be.Limit != 1 || be.Spent != 2 {
		t.Errorf("BudgetError %+v, want request-budget on Requests, 2 of 1", be)
	}
	if len(res.Attempts) != 0 {
		t.Errorf("rows %+v, want none: no answer came", res.Attempts)
	}
}

func TestBudgetTakesAPassingAnswerThatPassedACap(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(valid).WithUsage(500, 50))
	ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithBudget(agent.Budget{TotalTokens: 100}))
	res, err := ag.Run(context.Background(), "Weather?")
	if err != nil || res.Attempts[0].Outcome != enforce.OutcomePassed {
		t.Fatalf("err = %v, rows %+v: an answer that keeps the contract passes", err, res.Attempts)
	}
}

func TestBudgetWithLatestRetryOnlyProvesNothingBeforeTheReply(t *testing.T) {
	// WithLatestRetryOnly drops an earlier pair: the next request may be
	// smaller than the last, so only what was spent counts.
	m := agenttest.NewModel(t, agenttest.Reply(missing).WithUsage(200, 50), agenttest.Reply(valid).WithUsage(120, 20))
	ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithLatestRetryOnly(),
		agent.WithBudget(agent.Budget{TotalTokens: 400}))
	if _, err := ag.Run(context.Background(), "Weather?"); err != nil {
		t.Fatalf("err = %v, want the correction made", err)
	}
}

func TestBudgetCountsEveryTryOfAModelRetry(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Fail(rateLimited), agenttest.Fail(rateLimited))
	ag := agent.New(m, agent.WithModelRetry(agent.RetryPolicy{MaxAttempts: 5, Backoff: noDelay}),
		agent.WithBudget(agent.Budget{Requests: 2}))
	_, err := ag.Run(context.Background(), "Weather?")
	var be *agent.BudgetError
	if !errors.As(err, &be) || be.Cap != "Requests" {
		t.Fatalf("err = %v, want a BudgetError on Requests after two tries", err)
	}
}

func TestPricesPutMoneyOnEachRowAndTheResult(t *testing.T) {
	a := named(t, "openai", "small", agenttest.Reply(missing).WithDetailedUsage(1_000_000, 100_000, 400_000, 50_000))
	b := named(t, "anthropic", "large", agenttest.Reply(valid).WithUsage(2_000_000, 10_000))
	ag := agent.New(a, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{b}, AfterFailures: 1}),
		agent.WithPrices(map[string]agent.Price{
			"small": {Input: 1, CachedInput: 0.5, Output: 4, Reasoning: 8},
			"large": {Input: 3, Output: 15},
		}))
	res, err := ag.Run(context.Background(), "Weather?")
	if err != nil {
		t.Fatal(err)
	}
	// small: 600k input at 1, 400k cached at 0.5, 50k output at 4, 50k reasoning at 8.
	small := 0.6 + 0.2 + 0.2 + 0.4
	large := 6 + 0.15
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if got := res.Attempts[0].Money; !near(got, small) {
		t.Errorf("row 1 money %v, want %v", got, small)
	}
	if got := res.Attempts[1].Money; !near(got, large) {
		t.Errorf("row 2 money %v, want %v", got, large)
	}
	if !near(res.Money, small+large) || !near(res.Models[0].Money, small) || !near(res.Models[1].Money, large) {
		t.Errorf("Result.Money %v, Models %+v, want %v in all, %v and %v", res.Money, res.Models, small+large, small, large)
	}
	if !near(res.FailedCost.Money, small) {
		t.Errorf("FailedCost.Money %v, want %v", res.FailedCost.Money, small)
	}
}

func TestPriceOf(t *testing.T) {
	for _, tc := range []struct {
		name  string
		price agent.Price
		usage agent.Usage
		want  float64
	}{
		{"input and output", agent.Price{Input: 2, Output: 10}, agent.Usage{InputTokens: 500_000, OutputTokens: 100_000}, 2},
		{"cached priced as input when not given", agent.Price{Input: 2}, agent.Usage{InputTokens: 1_000_000, CachedTokens: 500_000}, 2},
		{"reasoning priced as output when not given", agent.Price{Output: 10}, agent.Usage{OutputTokens: 100_000, ReasoningTokens: 100_000}, 1},
		{"negative counts are unknown", agent.Price{Input: 2, Output: 10}, agent.Usage{InputTokens: -5, OutputTokens: -5}, 0},
		{"more cached than input is all cached", agent.Price{Input: 2, CachedInput: 1}, agent.Usage{InputTokens: 1_000_000, CachedTokens: 2_000_000}, 1},
		{"past the largest float64 is the largest", agent.Price{Input: math.MaxFloat64, Output: math.MaxFloat64}, agent.Usage{InputTokens: 1 << 40, OutputTokens: 1 << 40}, math.MaxFloat64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.price.Of(tc.usage); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("Of = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBudgetOptionsAreChecked(t *testing.T) {
	m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		t.Error("the model was called")
		return agent.Response{}, nil
	})
	for _, tc := range []struct {
		name string
		opt  agent.Option
	}{
		{"a negative cap", agent.WithBudget(agent.Budget{Requests: -1})},
		{"a NaN money cap", agent.WithBudget(agent.Budget{Money: math.NaN()})},
		{"a money cap without prices", agent.WithBudget(agent.Budget{Money: 1})},
		{"a negative price", agent.WithPrices(map[string]agent.Price{"m": {Output: -1}})},
		{"an infinite price", agent.WithPrices(map[string]agent.Price{"m": {Input: math.Inf(1)}})},
		{"a price so large a call's tokens could cost more than a float64 holds", agent.WithPrices(map[string]agent.Price{"m": {Reasoning: 1e300}})},
		{"a negative failed money budget", agent.WithFailedCostBudget(enforce.Cost{Money: -1})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := agent.New(m, tc.opt).Run(context.Background(), "x"); !errors.Is(err, agent.ErrInvalidOption) {
				t.Errorf("err = %v, want ErrInvalidOption", err)
			}
		})
	}
}

func TestBudgetProvesNothingOfTheFirstRequestToAModelEscalatedTo(t *testing.T) {
	// A's 200 input tokens prove nothing of what B's tokenizer counts:
	// the correction goes to B, which is asked.
	a := agenttest.NewModel(t, agenttest.Reply(missing).WithUsage(200, 50))
	b := agenttest.NewModel(t, agenttest.Reply(valid).WithUsage(100, 20))
	ag := agent.New(a, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{b}, AfterFailures: 1}),
		agent.WithBudget(agent.Budget{TotalTokens: 400}))
	res, err := ag.Run(context.Background(), "Weather?")
	if err != nil {
		t.Fatalf("err = %v, want B asked and its answer passing", err)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Outcome != enforce.OutcomeRetried {
		t.Errorf("rows %+v, want A's answer retried on B", res.Attempts)
	}
}

func TestAResultWithAHugePriceMarshals(t *testing.T) {
	// 1e305 a million tokens is refused: a million tokens at it are more
	// than a float64 holds. So the run never makes money +Inf, and its
	// Result, refused or not, marshals.
	m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: valid}, Usage: agent.Usage{InputTokens: 1e6, OutputTokens: 1e6}}, nil
	})
	ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithPrices(map[string]agent.Price{"": {Input: 1e305, Output: 1e305}}))
	res, err := ag.Run(context.Background(), "Weather?")
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("err = %v, want ErrInvalidOption for the price", err)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("json.Marshal(Result) = %v", err)
	}
}
