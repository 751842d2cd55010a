package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
)

// A reply may continue an earlier call after a later one began: each
// call's arguments are put together on their own.
func TestInterleavedToolCallsAreAssembled(t *testing.T) {
	var (
		mu  sync.Mutex
		got []string
	)
	echo := agent.Tool{Name: "echo", Run: func(_ context.Context, args json.RawMessage) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(args))
		return "ok", nil
	}}
	m := agenttest.NewStreamingModel(t,
		agenttest.Chunks(
			agent.Chunk{Call: &agent.CallDelta{Index: 0, ID: "c0", Name: "echo", Arguments: `{"n"`}},
			agent.Chunk{Call: &agent.CallDelta{Index: 1, ID: "c1", Name: "echo", Arguments: `{"n"`}},
			agent.Chunk{Call: &agent.CallDelta{Index: 2, ID: "c2", Name: "echo", Arguments: `{"n"`}},
			agent.Chunk{Call: &agent.CallDelta{Index: 0, Arguments: `:0}`}},
			agent.Chunk{Call: &agent.CallDelta{Index: 2, Arguments: `:2}`}},
			agent.Chunk{Call: &agent.CallDelta{Index: 1, Arguments: `:1}`}}),
		agenttest.Reply(valid))
	if _, err := agent.New(m, agent.WithTools(echo), agent.WithOutputSchema(weatherSchema(t))).Run(t.Context(), "?"); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{`{"n":0}`, `{"n":1}`, `{"n":2}`}; !slices.Equal(got, want) {
		t.Errorf("the tools ran with %q, want %q", got, want)
	}
}
