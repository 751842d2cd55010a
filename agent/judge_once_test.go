package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/middleware"
)

// TestAJudgeIsAskedOncePerAnswerJudged: act-output rewrites make one
// answer several texts to judge (the answer as it stands, the model's
// own, each rewrite), and a judge is asked of each value it judges once.
func TestAJudgeIsAskedOncePerAnswerJudged(t *testing.T) {
	replace := func(old, new string) middleware.Middleware {
		return middleware.Middleware{Name: "rewrite", Output: func(_ context.Context, text string) (string, error) {
			return strings.Replace(text, old, new, 1), nil
		}}
	}
	t.Run("a rewrite beside the judged member", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(lyon), agenttest.Reply(valid))
		jm := agenttest.NewModel(t, agenttest.Reply(judgeFails).WithUsage(50, 5), agenttest.Reply(judgePasses).WithUsage(60, 6))
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
			agent.WithMiddleware(replace(`"tempC":21`, `"tempC":22`)),
			agent.WithValidators(agent.Judge("about-paris", jm, "Is it about Paris?").At("/city")))
		res, err := a.Run(t.Context(), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got := len(jm.Requests()); got != 2 {
			t.Errorf("judge asked %d times, want 2: once per answer", got)
		}
		if got, want := res.Usage, (agent.Usage{InputTokens: 110, OutputTokens: 11}); got != want {
			t.Errorf("Usage = %+v, want %+v: the judge's two calls", got, want)
		}
		if r := ruled(res.Attempts[0]); len(r) != 1 || r[0].Verdict != enforce.RuleFailed || r[0].InputTokens != 50 {
			t.Errorf("row 1 rules = %+v, want the one call's failure", r)
		}
	})
	t.Run("a rewrite that breaks a passing answer", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(valid))
		jm := agenttest.NewModel(t, agenttest.Reply(judgeFails).WithUsage(50, 5), agenttest.Reply(judgePasses).WithUsage(60, 6))
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
			agent.WithMiddleware(replace("Paris", "Lyon")),
			agent.WithValidators(agent.Judge("about-paris", jm, "Is it about Paris?").At("/city")))
		res, _ := a.Run(t.Context(), "Weather in Paris?")
		if row := lastRow(t, res); row.BrokenBy != "rewrite" {
			t.Fatalf("row = %+v, want broken by the rewrite", row)
		}
		if got := len(jm.Requests()); got != 2 {
			t.Errorf("judge asked %d times, want 2: Lyon once, Paris once", got)
		}
		if got, want := res.Usage, (agent.Usage{InputTokens: 110, OutputTokens: 11}); got != want {
			t.Errorf("Usage = %+v, want %+v", got, want)
		}
	})
}
