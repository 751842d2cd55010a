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

// An End func only ever follows its own Start: when a Start panics there
// is nothing of its to end (a tracer's End would end the span current in
// the context it is given, the caller's), so its End is not called, and
// the run goes on.
func TestAStartThatPanickedIsNotEnded(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	log := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, s)
	}
	starts := map[string]int{}
	// start panics on the first call of each Start func, and logs the
	// others.
	start := func(ctx context.Context, what string) context.Context {
		mu.Lock()
		starts[what]++
		n := starts[what]
		mu.Unlock()
		if n == 1 {
			panic(what + " on fire")
		}
		log(what)
		return ctx
	}
	obs := agent.Observer{
		RunStart:   func(ctx context.Context, _, _ string) context.Context { return start(ctx, "RunStart") },
		RunEnd:     func(context.Context, *agent.Result, error) { log("RunEnd") },
		ModelStart: func(ctx context.Context, _ agent.Request) context.Context { return start(ctx, "ModelStart") },
		ModelEnd:   func(context.Context, agent.ModelCall) { log("ModelEnd") },
		ToolStart:  func(ctx context.Context, _ agent.ToolCall) context.Context { return start(ctx, "ToolStart") },
		ToolEnd:    func(context.Context, agent.ToolCall, string, error) { log("ToolEnd") },
	}
	lookup := agent.Tool{Name: "lookup", Run: func(context.Context, json.RawMessage) (string, error) { return "21C", nil }}
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{}`)),
		agenttest.CallTools(agenttest.Call("c2", "lookup", `{}`)),
		agenttest.Reply(valid),
		agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithTools(lookup), agent.WithObserver(obs))

	for range 2 {
		if res, err := a.Run(t.Context(), "Weather in Paris?"); err != nil || res.Output != valid {
			t.Fatalf("Run = %v, %v; want the valid answer", res, err)
		}
	}
	want := []string{
		// The first run: its RunStart, first ModelStart and first
		// ToolStart panicked, and none of them is ended.
		"ModelStart", "ModelEnd", "ToolStart", "ToolEnd", // the second model call and tool call
		"ModelStart", "ModelEnd", // the third, the answer
		// The second run: every Start ran, and each is ended.
		"RunStart", "ModelStart", "ModelEnd", "RunEnd",
	}
	if !slices.Equal(calls, want) {
		t.Errorf("calls = %q, want %q", calls, want)
	}
}
