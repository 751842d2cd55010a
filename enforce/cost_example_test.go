package enforce_test

import (
	"fmt"

	"github.com/enforcer-go/enforcer/enforce"
)

// FailedCost sums what the answers that did not pass spent.
func ExampleFailedCost() {
	rows := []enforce.Attempt{
		{Attempt: 1, Outcome: enforce.OutcomeRetried, Cost: enforce.Cost{InputTokens: 800, OutputTokens: 40, CachedTokens: 600, LatencyMs: 900}},
		{Attempt: 2, Outcome: enforce.OutcomeRetried, Cost: enforce.Cost{InputTokens: 860, OutputTokens: 35, CachedTokens: 800, ReasoningTokens: 12, LatencyMs: 850}},
		{Attempt: 3, Outcome: enforce.OutcomePassed, Cost: enforce.Cost{InputTokens: 910, OutputTokens: 38, LatencyMs: 800}},
	}
	fmt.Printf("%+v\n", enforce.FailedCost(rows))
	// Output:
	// {InputTokens:1660 OutputTokens:75 CachedTokens:1400 ReasoningTokens:12 LatencyMs:1750 Money:0}
}
