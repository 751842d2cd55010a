package agenttest_test

import (
	"context"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

type Weather struct {
	City  string `json:"city"`
	TempC int    `json:"tempC"`
}

// A test of your own agent: script the model, run, assert on the rows.
// (Shown as a test function: a Model needs the test's testing.TB.)
func ExampleNewModel() {
	_ = func(t *testing.T) {
		m := agenttest.NewModel(t,
			agenttest.Reply("It is 21 degrees."), // prose: json-parse fails
			agenttest.Reply(`{"city":"Paris","tempC":21}`),
		)
		a := agent.New(m, agent.WithOutputRetries(1))
		_, res, err := agent.RunTyped[Weather](context.Background(), a, "weather?")
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Attempts[0].Outcome; got != enforce.OutcomeRetried {
			t.Errorf("row 1 = %s, want retried", got)
		}
		if got := len(m.Requests()); got != 2 {
			t.Errorf("model saw %d requests, want 2", got)
		}
	}
}

// A test that a doomed answer is cut off: the model streams byte by byte,
// and the loop stops reading at the first byte that dooms the answer.
func ExampleNewStreamingModel() {
	_ = func(t *testing.T) {
		m := agenttest.NewStreamingModel(t,
			agenttest.Reply(`Sure! {"city":"Paris","tempC":21}`).InChunks(1),
			agenttest.Reply(`{"city":"Paris","tempC":21}`).InChunks(8),
		)
		a := agent.New(m, agent.WithOutputRetries(1))
		if _, _, err := agent.RunTyped[Weather](context.Background(), a, "weather?"); err != nil {
			t.Fatal(err)
		}
		if got := m.Consumed()[0]; !got.Stopped || got.Bytes != 1 {
			t.Errorf("read %d of %d bytes of the first reply, want 1", got.Bytes, got.TotalBytes)
		}
	}
}
