package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// steppingClock advances by 100ms more on each reading than on the one
// before (100, 300, 600, 1000, …), so consecutive model calls, each read
// twice, take 200ms, 400ms, 600ms, ….
func steppingClock() func() time.Time {
	t, step := time.Unix(1754590940, 0), time.Duration(0)
	return func() time.Time {
		step += 100 * time.Millisecond
		t = t.Add(step)
		return t
	}
}

func TestEachRowCarriesWhatItsModelCallCost(t *testing.T) {
	t.Run("a run that passes on its third answer sums what the two failing ones spent", func(t *testing.T) {
		m := agenttest.NewModel(t,
			agenttest.Reply(prose).WithUsage(100, 10),
			agenttest.Reply(missing).WithUsage(120, 12),
			agenttest.Reply(valid).WithUsage(130, 13),
		)
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithClock(steppingClock()))
		res, err := a.Run(t.Context(), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		want := []enforce.Cost{
			{InputTokens: 100, OutputTokens: 10, LatencyMs: 200},
			{InputTokens: 120, OutputTokens: 12, LatencyMs: 400},
			{InputTokens: 130, OutputTokens: 13, LatencyMs: 600},
		}
		if len(res.Attempts) != len(want) {
			t.Fatalf("rows = %+v, want %d", res.Attempts, len(want))
		}
		for i, r := range res.Attempts {
			if got := r.Cost; got != want[i] {
				t.Errorf("row %d cost = %+v, want %+v", i+1, got, want[i])
			}
		}
		if got, want := res.FailedCost, (enforce.Cost{InputTokens: 220, OutputTokens: 22, LatencyMs: 600}); got != want {
			t.Errorf("FailedCost = %+v, want %+v (the retried rows only)", got, want)
		}
		if got, want := res.Usage, (agent.Usage{InputTokens: 350, OutputTokens: 35}); got != want {
			t.Errorf("Usage = %+v, want %+v (every call)", got, want)
		}
	})

	t.Run("an exhausted run's OutputError sums every row, tool calls before the answer not counted", func(t *testing.T) {
		m := agenttest.NewModel(t,
			agenttest.CallTools(agenttest.Call("c1", "clock", `{}`)).WithUsage(50, 5),
			agenttest.Reply(prose).WithUsage(100, 10),
			agenttest.Reply(missing).WithUsage(120, 12),
		)
		clock := agent.NewTool("clock", "the time", func(context.Context, struct{}) (string, error) { return "noon", nil })
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
			agent.WithTools(clock), agent.WithClock(steppingClock()))
		res, err := a.Run(t.Context(), "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) {
			t.Fatalf("err = %v, want *enforce.OutputError", err)
		}
		// Calls take 200ms (the tool call), 400ms and 600ms.
		want := enforce.Cost{InputTokens: 220, OutputTokens: 22, LatencyMs: 1000}
		if got := oe.FailedCost; got != want {
			t.Errorf("OutputError.FailedCost = %+v, want %+v", got, want)
		}
		if got := res.FailedCost; got != want {
			t.Errorf("Result.FailedCost = %+v, want %+v", got, want)
		}
	})

	t.Run("a model that reports no usage leaves the row's tokens out of its JSON", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(valid))
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
			agent.WithClock(func() time.Time { return time.Unix(0, 0) }))
		res, err := a.Run(t.Context(), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Attempts[0])
		if got, want := string(b), `{"attempt":1,"iteration":1,"outcome":"passed"}`; got != want {
			t.Errorf("row = %s, want %s", got, want)
		}
	})
}

func TestTheSchemaRetryEventCarriesTheAttemptsUsage(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t,
		agenttest.Reply(prose).WithDetailedUsage(100, 10, 60, 4),
		agenttest.Reply(valid).WithDetailedUsage(130, 13, 90, 0),
	)
	// A clock that stands still: the tokens are under test, not the latency.
	a := agent.New(m, agent.WithEvents(s), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithClock(func() time.Time { return time.Unix(0, 0) }))
	res, err := a.Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Attempts[0].Cost, (enforce.Cost{InputTokens: 100, OutputTokens: 10, CachedTokens: 60, ReasoningTokens: 4}); got != want {
		t.Errorf("row 1 cost = %+v, want %+v", got, want)
	}
	if got, want := res.FailedCost, (enforce.Cost{InputTokens: 100, OutputTokens: 10, CachedTokens: 60, ReasoningTokens: 4}); got != want {
		t.Errorf("FailedCost = %+v, want %+v", got, want)
	}
	_, ns := methods(t, s)
	found := false
	for _, n := range ns {
		if n.Method != "output/schemaRetry" {
			continue
		}
		found = true
		var p struct{ InputTokens, OutputTokens, CachedTokens, ReasoningTokens int }
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.InputTokens != 100 || p.OutputTokens != 10 || p.CachedTokens != 60 || p.ReasoningTokens != 4 {
			t.Errorf("output/schemaRetry = %s, want inputTokens 100, outputTokens 10, cachedTokens 60 and reasoningTokens 4", n.Params)
		}
	}
	if !found {
		t.Error("no output/schemaRetry recorded")
	}
}

func TestWithClockNilIsAnInvalidOption(t *testing.T) {
	m := agenttest.NewModel(t)
	_, err := agent.New(m, agent.WithClock(nil)).Run(t.Context(), "hi")
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("err = %v, want ErrInvalidOption", err)
	}
}
