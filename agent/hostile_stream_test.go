package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
)

// whitespaceFirst is a reply that streams n one-byte chunks of whitespace
// before its answer.
func whitespaceFirst(n int) agenttest.Step {
	sizes := make([]int, n+1)
	for i := range n {
		sizes[i] = 1
	}
	sizes[n] = len(trip)
	return agenttest.Reply(strings.Repeat(" ", n) + trip).InChunks(sizes...)
}

// watchTrip runs a watched run over a reply of n whitespace chunks and
// an answer, with tools offered or not, and returns how long it took.
func watchTrip(t *testing.T, n int, tools bool) time.Duration {
	t.Helper()
	m := agenttest.NewStreamingModel(t, whitespaceFirst(n))
	opts := []agent.Option{}
	if tools {
		opts = append(opts, agent.WithTools(agent.NewTool("lookup", "", func(context.Context, struct{}) (string, error) { return "", nil })))
	}
	start := time.Now()
	s := agent.RunTypedStream[Trip](t.Context(), agent.New(m, opts...), "Plan a trip")
	for range s.Partials() {
	}
	if _, _, err := s.Result(); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// With tools offered, the text is not shown to a watcher until it begins
// a JSON object or array; waiting for that costs time linear in the
// whitespace before it, as reading the same reply without tools does.
// (Trimming the whole text at every chunk took 5.5 s for 128 Ki chunks.)
func TestWhitespaceBeforeAWatchedAnswerCostsLinearTime(t *testing.T) {
	const n = 32 << 10
	best := func(tools bool) time.Duration {
		d := watchTrip(t, n, tools)
		for range 1 {
			d = min(d, watchTrip(t, n, tools))
		}
		return d
	}
	plain, gated := best(false), best(true)
	// Quadratic work makes gated tens of times plain at this n; the
	// margin is for a loaded machine, not for the work.
	if gated > 4*plain+100*time.Millisecond {
		t.Errorf("%d whitespace chunks took %v with tools offered, %v without: want about the same", n, gated, plain)
	}
}
