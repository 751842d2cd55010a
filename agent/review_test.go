package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/middleware"
)

func TestToolCallIDsAreAssignedOnACopyOfTheModelsReply(t *testing.T) {
	shared := agent.Response{Message: agent.Message{Role: agent.RoleAssistant,
		ToolCalls: []agent.ToolCall{{Name: "echo", Arguments: []byte(`{}`)}}}}
	echo := agent.Tool{Name: "echo", Run: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}
	m := agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
		if len(req.Messages) < 5 {
			return shared, nil // the same reply value, twice per run
		}
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "done"}}, nil
	})
	a := agent.New(m, agent.WithTools(echo))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := a.Run(context.Background(), "hi")
			if err != nil {
				t.Error(err)
				return
			}
			seen := map[string]bool{}
			for _, msg := range res.Messages {
				for _, c := range msg.ToolCalls {
					if seen[c.ID] {
						t.Errorf("tool call ID %q used twice in one conversation", c.ID)
					}
					seen[c.ID] = true
				}
			}
		}()
	}
	wg.Wait()
	if id := shared.Message.ToolCalls[0].ID; id != "" {
		t.Errorf("the model's own reply was changed: ID = %q", id)
	}
}

func TestTurnRetryKeepsEveryRowAndOneNumbering(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t,
		agenttest.Reply(prose), agenttest.Fail(rateLimited),
		agenttest.Reply(prose), agenttest.Reply(valid))
	a := agent.New(m, agent.WithEvents(s), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(3),
		agent.WithTurnRetry(agent.RetryPolicy{MaxAttempts: 3, Backoff: zeroDelay}))
	res, err := a.Run(agent.ContextWithTurnID(context.Background(), "t1"), "hi")
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []string
	for _, r := range res.Attempts {
		outcomes = append(outcomes, string(r.Outcome))
	}
	if got, want := strings.Join(outcomes, " "), "retried retried passed"; got != want {
		t.Errorf("rows = %s, want %s (rows from the first turn attempt kept)", got, want)
	}
	got, _ := methods(t, s)
	if n := strings.Count(strings.Join(got, " "), "turn/retryScheduled"); n != 1 {
		t.Errorf("turn/retryScheduled recorded %d times, want once (the turn retry): %v", n, got)
	}
}

func TestCancellingWhileACallFailsReturnsTheCause(t *testing.T) {
	cause := errors.New("user hit stop")
	ctx, cancel := context.WithCancelCause(context.Background())
	m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		cancel(cause)
		return agent.Response{}, rateLimited
	})
	_, err := agent.New(m).Run(ctx, "hi")
	if !errors.Is(err, cause) {
		t.Errorf("err = %v, want the cause", err)
	}
}

func TestANegativeBackoffIsRecordedAsNoDelay(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t, agenttest.Fail(rateLimited), agenttest.Reply("ok"))
	a := agent.New(m, agent.WithEvents(s), agent.WithModelRetry(agent.RetryPolicy{
		Backoff: func(int, error) time.Duration { return -time.Second }}))
	if _, err := a.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	got, ns := methods(t, s)
	if len(got) != 3 || got[1] != "turn/modelRetryScheduled" || !containsJSON(ns[1].Params, `"retryDelayMs":0`) {
		t.Errorf("methods = %v, want the retry recorded with retryDelayMs 0", got)
	}
}

func TestADeniedAnswerLeavesNoOutput(t *testing.T) {
	calls := 0
	deny := middleware.Middleware{Name: "d", Output: func(_ context.Context, s string) (string, error) {
		calls++
		if calls == 2 {
			return "", middleware.Deny("nope")
		}
		return s, nil
	}}
	m := agenttest.NewModel(t, agenttest.Reply(prose), agenttest.Reply(valid))
	res, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithMiddleware(deny)).Run(context.Background(), "hi")
	if !errors.Is(err, middleware.ErrDenied) {
		t.Fatalf("err = %v, want a denial", err)
	}
	if res.Output != "" {
		t.Errorf("Output = %q, want empty after a denial", res.Output)
	}
}

func TestTheProvidersMessageStaysOffTheStream(t *testing.T) {
	s := newStream(t)
	secret := "internal: key sk-123 for org-xyz"
	m := agenttest.NewModel(t, agenttest.Fail(&agent.ProviderError{System: "openai",
		Kind: events.KindBadRequest, HTTPStatus: 400, Message: secret}))
	if _, err := agent.New(m, agent.WithEvents(s)).Run(context.Background(), "hi"); err == nil {
		t.Fatal("err = nil")
	}
	_, ns := methods(t, s)
	last := ns[len(ns)-1]
	if containsJSON(last.Params, "sk-123") || !containsJSON(last.Params, `"kind":"modelError"`) {
		t.Errorf("turn/completed = %s, want a modelError without the provider's message", last.Params)
	}
}

func TestAPanickingRetryPolicyStopsRetryingWithoutCrashing(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t, agenttest.Fail(rateLimited))
	a := agent.New(m, agent.WithEvents(s), agent.WithModelRetry(agent.RetryPolicy{
		Retryable: func(error) bool { panic("boom") }}))
	_, err := a.Run(context.Background(), "hi")
	if !errors.Is(err, rateLimited) {
		t.Errorf("err = %v, want the provider error", err)
	}
	got, _ := methods(t, s) // turn/completed is recorded, so a turn-wait resolves
	if got[len(got)-1] != "turn/completed" {
		t.Errorf("methods = %v", got)
	}
}

type panickyRecorder struct{}

func (panickyRecorder) Append(events.Event) (events.Notification, error) { panic("disk on fire") }

func TestAPanickingRecorderDoesNotCrashTheRun(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("ok"))
	res, err := agent.New(m, agent.WithEvents(panickyRecorder{})).Run(context.Background(), "hi")
	if err != nil || res.Output != "ok" {
		t.Errorf("Run = %q, %v; want ok", res.Output, err)
	}
}

func TestAnAnswerThatDoesNotFitTheGoTypeIsCorrected(t *testing.T) {
	m := agenttest.NewModel(t,
		agenttest.Reply(`{"city":"Paris","tempC":21.0}`), // an integer to JSON Schema, not to an int field
		agenttest.Reply(valid))
	w, res, err := agent.RunTyped[Weather](context.Background(), agent.New(m, agent.WithOutputRetries(1)), "hi")
	if err != nil {
		t.Fatal(err)
	}
	if w.TempC != 21 || len(res.Attempts) != 2 || res.Attempts[0].Path != "/tempC" {
		t.Errorf("w = %+v, rows = %+v; want a retried row at /tempC, then a pass", w, res.Attempts)
	}
}

func TestRunTypedWithAnotherSchemaReportsADecodeFailureAsAnOutputError(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(`{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	m := agenttest.NewModel(t, agenttest.Reply(`{"city":"Paris","tempC":"warm"}`))
	_, _, err = agent.RunTyped[Weather](context.Background(), agent.New(m, agent.WithOutputSchema(s)), "hi")
	var oe *enforce.OutputError
	if !errors.As(err, &oe) || oe.Stage != enforce.StageSchemaValidate {
		t.Errorf("err = %v, want an *enforce.OutputError at schema-validate", err)
	}
}
