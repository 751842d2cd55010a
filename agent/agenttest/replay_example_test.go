package agenttest_test

import (
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
)

// A run that failed in production, saved with json.Marshal(res) to
// testdata, becomes a test of the agent as it is now: the model replies
// as it did then, and Check holds the new ledger to the old one — the
// same rows, or a pass in no more attempts. (Shown as a test function:
// Replay needs the test's testing.TB.)
func ExampleReplay() {
	_ = func(t *testing.T) {
		rec := agenttest.Replay(t, "testdata/failed-run.json")
		a := agent.New(rec.Model, agent.WithOutputRetries(1), agent.WithMiddleware(stripFences))
		_, res, _ := agent.RunTyped[Weather](t.Context(), a, rec.Input)
		rec.Check(t, res)
	}
}
