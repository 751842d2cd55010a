package enforce_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

func TestFailedCost(t *testing.T) {
	row := func(o enforce.Outcome, in, out int, ms int64) enforce.Attempt {
		return enforce.Attempt{Outcome: o, Cost: enforce.Cost{InputTokens: in, OutputTokens: out, LatencyMs: ms}}
	}
	tests := []struct {
		name string
		rows []enforce.Attempt
		want enforce.Cost
	}{
		{"no rows cost nothing", nil, enforce.Cost{}},
		{"a passing row is not counted", []enforce.Attempt{row(enforce.OutcomePassed, 5, 5, 5)}, enforce.Cost{}},
		{"retried and exhausted rows are summed",
			[]enforce.Attempt{row(enforce.OutcomeRetried, 1, 2, 3), row(enforce.OutcomeExhausted, 10, 20, 30)},
			enforce.Cost{InputTokens: 11, OutputTokens: 22, LatencyMs: 33}},
		{"a negative member adds nothing",
			[]enforce.Attempt{row(enforce.OutcomeRetried, -4, 2, -1), row(enforce.OutcomeRetried, 1, 1, 1)},
			enforce.Cost{InputTokens: 1, OutputTokens: 3, LatencyMs: 1}},
		{"sums saturate instead of wrapping",
			[]enforce.Attempt{row(enforce.OutcomeRetried, math.MaxInt, 1, math.MaxInt64), row(enforce.OutcomeRetried, 1, 1, 1)},
			enforce.Cost{InputTokens: math.MaxInt, OutputTokens: 2, LatencyMs: math.MaxInt64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := enforce.FailedCost(tt.rows); got != tt.want {
				t.Errorf("FailedCost = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestTheLedgerKeepsEachAnswersCost(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(`{"type":"object","required":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := enforce.NewLedger(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	cost := enforce.Cost{InputTokens: 7, OutputTokens: 3, LatencyMs: 250}
	v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: `{}`, Cost: cost})
	if got := v.Row.Cost; got != cost {
		t.Errorf("row cost = %+v, want %+v", got, cost)
	}
	var oe *enforce.OutputError
	if !errors.As(v.Err, &oe) || oe.FailedCost != cost {
		t.Errorf("Verdict.Err = %#v, want an *OutputError whose FailedCost is %+v", v.Err, cost)
	}
}

func TestEveryMemberOfAFailedCostBudgetIsALimit(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(`{"type":"object","required":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		budget, cost enforce.Cost
	}{
		{"input tokens", enforce.Cost{InputTokens: 10}, enforce.Cost{InputTokens: 6}},
		{"output tokens", enforce.Cost{OutputTokens: 10}, enforce.Cost{OutputTokens: 6}},
		{"cached tokens", enforce.Cost{CachedTokens: 10}, enforce.Cost{InputTokens: 6, CachedTokens: 6}},
		{"reasoning tokens", enforce.Cost{ReasoningTokens: 10}, enforce.Cost{OutputTokens: 6, ReasoningTokens: 6}},
		{"latency", enforce.Cost{LatencyMs: 10}, enforce.Cost{LatencyMs: 6}},
		{"money", enforce.Cost{Money: 0.01}, enforce.Cost{Money: 0.006}},
	}
	for _, tt := range tests {
		t.Run("a limit on "+tt.name+" alone stops the run", func(t *testing.T) {
			l, err := enforce.NewLedger(s, 5, enforce.WithFailedCostBudget(tt.budget))
			if err != nil {
				t.Fatal(err)
			}
			if v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: `{}`, Cost: tt.cost}); v.Row.Outcome != enforce.OutcomeRetried {
				t.Fatalf("first row = %+v, want retried: the budget is not yet spent", v.Row)
			}
			v := l.Judge(context.Background(), enforce.Answer{Iteration: 2, Given: `{}`, Cost: tt.cost})
			if v.Row.Outcome != enforce.OutcomeExhausted || v.Row.Reason != enforce.ReasonBudget || !errors.Is(v.Err, enforce.ErrBudget) {
				t.Errorf("second row = %+v, err %v; want exhausted with reason budget", v.Row, v.Err)
			}
		})
	}
}

func TestAFailedCostBudgetWithANegativeMemberIsRefused(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []enforce.Cost{{InputTokens: -1}, {OutputTokens: -1}, {CachedTokens: -1}, {ReasoningTokens: -1}, {LatencyMs: -1}, {Money: -1}, {Money: math.NaN()}} {
		if _, err := enforce.NewLedger(s, 1, enforce.WithFailedCostBudget(b)); err == nil {
			t.Errorf("NewLedger with budget %+v: no error, want a negative limit refused", b)
		}
	}
}

func TestFailedCostMoneySaturatesAtTheLargestFloat64(t *testing.T) {
	rows := []enforce.Attempt{
		{Outcome: enforce.OutcomeRetried, Cost: enforce.Cost{Money: math.MaxFloat64}},
		{Outcome: enforce.OutcomeExhausted, Cost: enforce.Cost{Money: math.MaxFloat64}},
	}
	if got := enforce.FailedCost(rows).Money; got != math.MaxFloat64 {
		t.Errorf("FailedCost(...).Money = %v, want the largest float64", got)
	}
}
