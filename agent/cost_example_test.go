package agent_test

import (
	"context"
	"fmt"
	"time"

	"github.com/enforcer-go/enforcer/agent"
)

// Each row says what the model call behind its answer spent; FailedCost
// sums the rows that did not pass. A clock that moves 250ms per reading
// makes every call take 250ms, the same on every run.
func ExampleWithClock() {
	t := time.Unix(1754590940, 0)
	tick := func() time.Time { t = t.Add(250 * time.Millisecond); return t }
	model := cannedModel(
		answer("It is 21 degrees in Paris."),
		answer(`{"city":"Paris","tempC":21}`),
	)
	a := agent.New(model, agent.WithOutputRetries(2), agent.WithClock(tick))

	_, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Attempts {
		fmt.Printf("attempt %d %s: %d in, %d out, %dms\n", r.Attempt, r.Outcome, r.InputTokens, r.OutputTokens, r.LatencyMs)
	}
	fc := res.FailedCost
	fmt.Printf("spent on failed attempts: %d in, %d out, %dms\n", fc.InputTokens, fc.OutputTokens, fc.LatencyMs)
	// Output:
	// attempt 1 retried: 100 in, 10 out, 250ms
	// attempt 2 passed: 100 in, 10 out, 250ms
	// spent on failed attempts: 100 in, 10 out, 250ms
}
