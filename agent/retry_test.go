package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
)

func zeroDelay(int, error) time.Duration { return 0 }

var rateLimited = &agent.ProviderError{System: "openai", Kind: events.KindRateLimit, HTTPStatus: 429, RetryAfter: 4 * time.Second, Message: "slow down"}

func TestModelRetryRecordsEachScheduledRetryBeforeTheCallSucceeds(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t,
		agenttest.Fail(rateLimited).WithUsage(5, 0),
		agenttest.Fail(&agent.ProviderError{System: "openai", Kind: events.KindServerError, HTTPStatus: 500}),
		agenttest.Reply("done").WithUsage(10, 2),
	)
	var delays []time.Duration
	a := agent.New(m, agent.WithEvents(s), agent.WithModelRetry(agent.RetryPolicy{
		MaxAttempts: 3,
		Backoff: func(attempt int, err error) time.Duration {
			d := agent.DefaultBackoff(attempt, err)
			delays = append(delays, d)
			return 0 // the test does not wait; the recorded delay is checked below
		},
	}))
	res, err := a.Run(agent.ContextWithTurnID(context.Background(), "turn-1"), "hi")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := res.Output, "done"; got != want {
		t.Errorf("Output = %q, want %q", got, want)
	}
	if got, want := res.Usage, (agent.Usage{InputTokens: 15, OutputTokens: 2}); got != want {
		t.Errorf("Usage = %+v, want %+v (failed calls count too)", got, want)
	}
	got, ns := methods(t, s)
	want := []string{"turn/started", "turn/modelRetryScheduled", "turn/modelRetryScheduled", "turn/completed"}
	if len(got) != len(want) {
		t.Fatalf("methods = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("methods = %v, want %v", got, want)
		}
	}
	if delays[0] != 4*time.Second {
		t.Errorf("first delay = %v, want the provider's Retry-After of 4s", delays[0])
	}
	if got, want := ns[1].Describe(0), "attempt 1/3 · retrying now · rate limited"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

func TestModelRetryNeverRetriesABadRequest(t *testing.T) {
	bad := &agent.ProviderError{System: "openai", Kind: events.KindBadRequest, HTTPStatus: 400}
	m := agenttest.NewModel(t, agenttest.Fail(bad))
	a := agent.New(m, agent.WithModelRetry(agent.RetryPolicy{Backoff: zeroDelay}))
	res, err := a.Run(context.Background(), "hi")
	var pe *agent.ProviderError
	if !errors.As(err, &pe) || pe.HTTPStatus != 400 {
		t.Fatalf("err = %v, want the 400 ProviderError", err)
	}
	if !errors.Is(err, agent.ErrModel) {
		t.Errorf("err does not match ErrModel")
	}
	if res == nil || m.Calls() != 1 {
		t.Errorf("calls = %d, want 1", m.Calls())
	}
}

func TestModelRetryStopsAtMaxAttempts(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Fail(rateLimited), agenttest.Fail(rateLimited))
	a := agent.New(m, agent.WithModelRetry(agent.RetryPolicy{MaxAttempts: 2, Backoff: zeroDelay}))
	_, err := a.Run(context.Background(), "hi")
	if !errors.Is(err, rateLimited) {
		t.Fatalf("err = %v, want the last provider error", err)
	}
}

func TestCancellingDuringBackoffReturnsTheCauseAtOnce(t *testing.T) {
	s := newStream(t)
	cause := errors.New("user closed the tab")
	ctx, cancel := context.WithCancelCause(context.Background())
	m := agenttest.NewModel(t, agenttest.Fail(rateLimited))
	a := agent.New(m, agent.WithEvents(s), agent.WithModelRetry(agent.RetryPolicy{
		Backoff: func(int, error) time.Duration {
			cancel(cause) // cancelled while the retry is being scheduled
			return time.Hour
		},
	}))
	res, err := a.Run(ctx, "hi")
	if !errors.Is(err, cause) {
		t.Fatalf("err = %v, want the cause", err)
	}
	if res == nil {
		t.Fatal("nil Result")
	}
	got, ns := methods(t, s)
	if len(got) != 3 || got[1] != "turn/modelRetryScheduled" {
		t.Fatalf("methods = %v", got)
	}
	if !containsJSON(ns[2].Params, `"terminal":"cancelled"`) {
		t.Errorf("turn/completed = %s, want terminal cancelled", ns[2].Params)
	}
}

func TestTurnRetryRerunsTheTurnAndRecordsANormalizedReason(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t,
		agenttest.Fail(rateLimited).WithUsage(3, 0),
		agenttest.Reply("ok").WithUsage(7, 1),
	)
	a := agent.New(m, agent.WithEvents(s), agent.WithTurnRetry(agent.RetryPolicy{MaxAttempts: 3, Backoff: zeroDelay}))
	res, err := a.Run(context.Background(), "hi")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.TurnAttempts != 2 {
		t.Errorf("TurnAttempts = %d, want 2", res.TurnAttempts)
	}
	if got, want := res.Usage, (agent.Usage{InputTokens: 10, OutputTokens: 1}); got != want {
		t.Errorf("Usage = %+v, want %+v", got, want)
	}
	got, ns := methods(t, s)
	if len(got) != 3 || got[1] != "turn/retryScheduled" {
		t.Fatalf("methods = %v", got)
	}
	if !containsJSON(ns[1].Params, `"reason":"model call failed: rate_limit (HTTP 429)"`) || !containsJSON(ns[1].Params, `"nextAttempt":2`) ||
		!containsJSON(ns[1].Params, `"retryKind":"turn"`) {
		t.Errorf("turn/retryScheduled params = %s", ns[1].Params)
	}
	// The provider's own message is not user text.
	if containsJSON(ns[1].Params, "slow down") {
		t.Errorf("the provider message leaked into the reason: %s", ns[1].Params)
	}
}

func TestSchemaRetryEventCarriesTheRowsHash(t *testing.T) {
	s := newStream(t)
	schema, err := enforce.CompileSchema([]byte(`{"type":"object","required":["city"]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := agenttest.NewModel(t, agenttest.Reply("Paris"), agenttest.Reply(`{}`))
	a := agent.New(m, agent.WithEvents(s), agent.WithOutputSchema(schema), agent.WithOutputRetries(1))
	res, err := a.Run(context.Background(), "where?")
	if !errors.Is(err, enforce.ErrExhausted) {
		t.Fatalf("err = %v, want ErrExhausted", err)
	}
	got, ns := methods(t, s)
	want := []string{"turn/started", "turn/retryScheduled", "output/schemaRetry", "output/schemaExhausted", "turn/completed"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("methods = %v, want %v", got, want)
	}
	if got, want := ns[1].Describe(0), "attempt 1/2 · retrying now · answer broke the output contract at json-parse"; got != want {
		t.Errorf("Describe(turn/retryScheduled) = %q, want %q", got, want)
	}
	if !containsJSON(ns[1].Params, `"retryKind":"corrective"`) {
		t.Errorf("a corrective retry does not say so: %s", ns[1].Params)
	}
	hash := res.Attempts[0].CorrectiveMessageHash
	if !containsJSON(ns[2].Params, `"correctiveMessageHash":"`+hash+`"`) {
		t.Errorf("output/schemaRetry = %s, want hash %s", ns[2].Params, hash)
	}
	if !containsJSON(ns[3].Params, `"path":"/city"`) {
		t.Errorf("output/schemaExhausted = %s, want path /city", ns[3].Params)
	}
}

func TestSchemaExhaustedEventCarriesTheRowsReasonAndTokens(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t, agenttest.Reply("Paris").WithUsage(120, 3), agenttest.Reply("Paris").WithUsage(150, 4))
	a := agent.New(m, agent.WithEvents(s), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithRepeatLimit(2))
	res, err := a.Run(context.Background(), "where?")
	if !errors.Is(err, enforce.ErrRepeated) {
		t.Fatalf("err = %v, want ErrRepeated", err)
	}
	if got := res.Attempts[1].Reason; got != enforce.ReasonRepeated {
		t.Fatalf("row 2 reason = %q, want repeated", got)
	}
	_, ns := methods(t, s)
	ex := ns[len(ns)-2]
	ev, err := ex.Event()
	if err != nil {
		t.Fatal(err)
	}
	got, ok := ev.(events.SchemaExhausted)
	if !ok {
		t.Fatalf("next to last event = %s, want output/schemaExhausted", ex.Method)
	}
	if got.Reason != events.ExhaustRepeated || got.InputTokens != 150 || got.OutputTokens != 4 {
		t.Errorf("output/schemaExhausted = %+v, want reason repeated, 150 in, 4 out", got)
	}
	if got, want := ex.Describe(0), "output rejected (json-parse) · same issues again"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

func TestEveryExhaustReasonIsRecorded(t *testing.T) {
	// The row's vocabulary and the event's must stay one: a reason the
	// stream refused would leave the row off it.
	for _, r := range []enforce.Reason{enforce.ReasonRepeated, enforce.ReasonBeyondRepair, enforce.ReasonValidatorFailed, enforce.ReasonBudget} {
		s := newStream(t)
		if _, err := s.Append(events.SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "schema-validate", Error: "e", Reason: events.ExhaustReason(r)}); err != nil {
			t.Errorf("reason %q: %v", r, err)
		}
	}
}

func TestACutAnswersRetrySaysItWasCutEarly(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewStreamingModel(t, agenttest.Reply(prose).InChunks(1), agenttest.Reply(valid))
	a := agent.New(m, agent.WithEvents(s), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2))
	if _, err := a.Run(context.Background(), "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	_, ns := methods(t, s)
	if got, want := ns[1].Describe(0), "attempt 1/3 · retrying now · answer cut early at json-parse"; got != want {
		t.Errorf("Describe(%s) = %q, want %q", ns[1].Method, got, want)
	}
}

func TestInvalidRetryPolicyIsAnInvalidOption(t *testing.T) {
	m := agenttest.NewModel(t)
	a := agent.New(m, agent.WithModelRetry(agent.RetryPolicy{MaxAttempts: -1}))
	if _, err := a.Run(context.Background(), "hi"); !errors.Is(err, agent.ErrInvalidOption) {
		t.Fatalf("err = %v, want ErrInvalidOption", err)
	}
}

func TestDefaultBackoffGrowsAndIsCapped(t *testing.T) {
	for attempt := 1; attempt <= 20; attempt++ {
		d := agent.DefaultBackoff(attempt, errors.New("x"))
		full := agent.BackoffMax
		if attempt < 16 {
			full = min(agent.BackoffBase<<(attempt-1), agent.BackoffMax)
		}
		if d < full/2 || d > full {
			t.Errorf("attempt %d: delay %v outside [%v, %v]", attempt, d, full/2, full)
		}
	}
	long := &agent.ProviderError{Kind: events.KindRateLimit, RetryAfter: time.Hour}
	if got := agent.DefaultBackoff(1, long); got != agent.BackoffMax {
		t.Errorf("Retry-After of an hour gave %v, want the cap %v", got, agent.BackoffMax)
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

func TestAStatusOutsideHTTPsRangeStillRecordsTheRetry(t *testing.T) {
	s := newStream(t)
	odd := &agent.ProviderError{System: "openai", Kind: events.KindServerError, HTTPStatus: 999}
	m := agenttest.NewModel(t, agenttest.Fail(odd), agenttest.Reply("ok"))
	a := agent.New(m, agent.WithEvents(s), agent.WithModelRetry(agent.RetryPolicy{Backoff: zeroDelay}))
	if _, err := a.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	got, ns := methods(t, s)
	if want := []string{"turn/started", "turn/modelRetryScheduled", "turn/completed"}; !slices.Equal(got, want) {
		t.Fatalf("methods = %v, want %v", got, want)
	}
	if containsJSON(ns[1].Params, "httpStatus") {
		t.Errorf("turn/modelRetryScheduled = %s, want no httpStatus for 999", ns[1].Params)
	}
}

func TestTurnRetryKeepsEveryRowAndOneNumbering(t *testing.T) {
	s := newStream(t)
	m := agenttest.NewModel(t,
		agenttest.Reply(prose), agenttest.Fail(rateLimited),
		agenttest.Reply(prose), agenttest.Reply(valid))
	a := agent.New(m, agent.WithEvents(s), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(3), agent.WithRepeatLimit(0),
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
