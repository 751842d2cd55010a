package enforce

import "math"

// Cost is what the model call behind one answer spent: its tokens and
// how long it took. A zero member is unknown (a model that reports no
// usage, a loop that does not time its calls) and is left out of the
// JSON.
type Cost struct {
	InputTokens     int   `json:"inputTokens,omitempty"`
	OutputTokens    int   `json:"outputTokens,omitempty"`
	CachedTokens    int   `json:"cachedTokens,omitempty"`    // among InputTokens: read from the provider's prompt cache
	ReasoningTokens int   `json:"reasoningTokens,omitempty"` // among OutputTokens: spent on reasoning
	LatencyMs       int64 `json:"latencyMs,omitempty"`       // whole milliseconds
	// Money is what the tokens cost by the caller's price of the model
	// (in the price's unit, such as US dollars); 0 when no price is known.
	Money float64 `json:"money,omitempty"`
}

// FailedCost sums the cost of the rows that did not pass: what the
// answers that were retried or exhausted spent. Each member saturates at
// its largest value instead of wrapping; a negative member adds nothing.
// [OutputError.FailedCost] holds it for the rows of a failed run.
func FailedCost(rows []Attempt) Cost {
	var sum Cost
	for _, r := range rows {
		if r.Outcome == OutcomePassed {
			continue
		}
		sum.InputTokens = int(addSat(int64(sum.InputTokens), int64(r.InputTokens), math.MaxInt))
		sum.OutputTokens = int(addSat(int64(sum.OutputTokens), int64(r.OutputTokens), math.MaxInt))
		sum.CachedTokens = int(addSat(int64(sum.CachedTokens), int64(r.CachedTokens), math.MaxInt))
		sum.ReasoningTokens = int(addSat(int64(sum.ReasoningTokens), int64(r.ReasoningTokens), math.MaxInt))
		sum.LatencyMs = addSat(sum.LatencyMs, r.LatencyMs, math.MaxInt64)
		if r.Money > 0 {
			sum.Money = min(sum.Money+r.Money, math.MaxFloat64) // +Inf would not marshal
		}
	}
	return sum
}

// negative reports whether some member of c is below zero: a budget
// with one is refused ([WithFailedCostBudget]).
func (c Cost) negative() bool {
	return min(int64(c.InputTokens), int64(c.OutputTokens), int64(c.CachedTokens), int64(c.ReasoningTokens), c.LatencyMs) < 0 ||
		c.Money < 0 || math.IsNaN(c.Money) || math.IsInf(c.Money, 0)
}

// addSat adds n (taken as 0 when negative) to sum, stopping at limit.
func addSat(sum, n, limit int64) int64 {
	n = max(n, 0)
	if sum > limit-n {
		return limit
	}
	return sum + n
}
