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
