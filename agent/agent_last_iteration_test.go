package agent_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

func TestAFailingAnswerOnTheLastIterationIsExhaustedNotRetried(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("prose"), agenttest.Reply("more prose"))
	a := agent.New(m, agent.WithOutputRetries(5), agent.WithMaxIterations(2))
	_, res, err := agent.RunTyped[Weather](context.Background(), a, "weather?")
	if !errors.Is(err, enforce.ErrExhausted) {
		t.Fatalf("err = %v, want ErrExhausted (no iteration left for a correction)", err)
	}
	if errors.Is(err, agent.ErrMaxIterations) {
		t.Errorf("err also matches ErrMaxIterations; the answer was judged, not cut off")
	}
	got := rows(res.Attempts)
	want := []row{
		{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Hashed: true},
		{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageJSONParse},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}
	// No corrective message was appended for the last answer.
	last := res.Messages[len(res.Messages)-1]
	if last.Role != agent.RoleAssistant {
		t.Errorf("last message role = %s, want the final assistant answer", last.Role)
	}
}

func TestBrokenByIsReportedWithoutRetriesToo(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(valid))
	breaker := output("wrap-in-prose", func(ctx context.Context, s string) (string, error) {
		return "Result: " + s, nil
	})
	a := agent.New(m, agent.WithMiddleware(breaker))
	_, res, err := agent.RunTyped[Weather](context.Background(), a, "weather?")
	var oe *enforce.OutputError
	if !errors.As(err, &oe) {
		t.Fatalf("err = %v, want *enforce.OutputError", err)
	}
	if oe.BrokenBy != "wrap-in-prose" || oe.Attempts != nil || res.Attempts != nil {
		t.Errorf("BrokenBy = %q, Attempts = %v / %v; want the middleware and no rows", oe.BrokenBy, oe.Attempts, res.Attempts)
	}
	if !errors.Is(err, enforce.ErrBrokenBy) || errors.Is(err, enforce.ErrExhausted) {
		t.Errorf("err matches ErrBrokenBy=%v ErrExhausted=%v, want true/false", errors.Is(err, enforce.ErrBrokenBy), errors.Is(err, enforce.ErrExhausted))
	}
	if !strings.HasPrefix(oe.Output, "Result: ") {
		t.Errorf("Output = %q, want the answer as it stood", oe.Output)
	}
}
