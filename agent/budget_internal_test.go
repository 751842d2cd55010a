package agent

import (
	"context"
	"testing"
)

// BenchmarkBudgetPerCall is what a run's budget, prices and escalation
// add to each model call when none is reached: the check before the
// call and the counting after it.
func BenchmarkBudgetPerCall(b *testing.B) {
	m := ModelFunc(func(context.Context, Request) (Response, error) { return Response{}, nil })
	a := New(m, WithBudget(Budget{TotalTokens: 1 << 40, Requests: 1 << 30, Money: 1e12}),
		WithPrices(map[string]Price{"": {Input: 1, Output: 4}}),
		WithEscalation(Escalation{Models: []Model{m}, OnRefusal: true}))
	st := &runState{a: a, chain: a.newChain(), lastInputAt: -1}
	resp := Response{Usage: Usage{InputTokens: 900, OutputTokens: 300}}
	b.ReportAllocs()
	for b.Loop() {
		if e := st.overBudget(false); e != nil {
			b.Fatal(e)
		}
		st.spent(resp, nil)
	}
}
