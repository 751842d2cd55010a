package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
	"github.com/enforcer-go/enforcer/middleware"
)

func TestWithoutRetriesNothingIsRecorded(t *testing.T) {
	t.Run("a failing answer returns an OutputError with no rows after one model call", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(prose))
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)))

		res, err := a.Run(t.Context(), "Weather in Paris?")

		var oe *enforce.OutputError
		if !errors.As(err, &oe) {
			t.Fatalf("err = %v, want an *enforce.OutputError", err)
		}
		if oe.Attempts != nil {
			t.Errorf("OutputError.Attempts = %+v, want nil", oe.Attempts)
		}
		if got, want := oe.Stage, enforce.StageJSONParse; got != want {
			t.Errorf("OutputError.Stage = %q, want %q", got, want)
		}
		if got, want := oe.Output, prose; got != want {
			t.Errorf("OutputError.Output = %q, want %q", got, want)
		}
		if errors.Is(err, enforce.ErrExhausted) || errors.Is(err, enforce.ErrBrokenBy) {
			t.Errorf("err = %v matches a retry sentinel without retries", err)
		}
		if res.Attempts != nil {
			t.Errorf("Result.Attempts = %+v, want nil", res.Attempts)
		}
		if got, want := m.Calls(), 1; got != want {
			t.Errorf("model calls = %d, want %d", got, want)
		}
		raw, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(raw, &keys); err != nil {
			t.Fatal(err)
		}
		if _, ok := keys["attempts"]; ok {
			t.Errorf("Result JSON has an \"attempts\" key: %s", raw)
		}
	})

	t.Run("RunTyped returns the same OutputError with no rows", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(missing))
		a := agent.New(m)

		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")

		var oe *enforce.OutputError
		if !errors.As(err, &oe) {
			t.Fatalf("err = %v, want an *enforce.OutputError", err)
		}
		if got, want := oe.Stage, enforce.StageSchemaValidate; got != want {
			t.Errorf("OutputError.Stage = %q, want %q", got, want)
		}
		if got, want := oe.Path, "/tempC"; got != want {
			t.Errorf("OutputError.Path = %q, want %q", got, want)
		}
		if oe.Attempts != nil || res.Attempts != nil {
			t.Errorf("attempts = %+v / %+v, want nil", oe.Attempts, res.Attempts)
		}
	})

	t.Run("a passing answer has no rows", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(valid))
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)))

		res, err := a.Run(t.Context(), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if res.Attempts != nil {
			t.Errorf("Result.Attempts = %+v, want nil", res.Attempts)
		}
		if got, want := res.Output, valid; got != want {
			t.Errorf("Output = %q, want %q", got, want)
		}
	})
}

func TestCorrectiveTurn(t *testing.T) {
	s := weatherSchema(t)
	m := agenttest.NewModel(t, agenttest.Reply(prose), agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputSchema(s), agent.WithOutputRetries(2))

	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("the rows are retried then passed, the second in a new iteration", func(t *testing.T) {
		got := rows(res.Attempts)
		want := []row{
			{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Hashed: true},
			{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomePassed},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rows = %+v, want %+v", got, want)
		}
		if got, want := res.Iterations, 2; got != want {
			t.Errorf("Iterations = %d, want %d", got, want)
		}
		if got, want := w, (Weather{City: "Paris", TempC: 21}); got != want {
			t.Errorf("value = %+v, want %+v", got, want)
		}
	})

	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model got %d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if len(msgs) < 2 {
		t.Fatalf("second request has %d messages, want at least 2", len(msgs))
	}
	failed, corrective := msgs[len(msgs)-2], msgs[len(msgs)-1]

	t.Run("the second request ends with the failed answer and the corrective message", func(t *testing.T) {
		if got, want := failed, (agent.Message{Role: agent.RoleAssistant, Content: prose}); !reflect.DeepEqual(got, want) {
			t.Errorf("next to last message = %+v, want %+v", got, want)
		}
		if got, want := corrective.Role, agent.RoleUser; got != want {
			t.Errorf("last message role = %q, want %q", got, want)
		}
		want := checkError(t, s, prose).Corrective(1, 3)
		if got := corrective.Content; got != want {
			t.Errorf("corrective message = %q, want %q", got, want)
		}
	})

	t.Run("the retried row hashes the corrective message that was sent", func(t *testing.T) {
		if got, want := res.Attempts[0].CorrectiveMessageHash, fnv.Hex32a(corrective.Content); got != want {
			t.Errorf("CorrectiveMessageHash = %q, want %q", got, want)
		}
	})
}

func TestExhausted(t *testing.T) {
	answers := []string{prose, missing, `{"city":"Paris","tempC":"warm"}`}
	m := agenttest.NewModel(t,
		agenttest.Reply(answers[0]), agenttest.Reply(answers[1]), agenttest.Reply(answers[2]))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2))

	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")

	if got, want := m.Calls(), 3; got != want {
		t.Errorf("model calls = %d, want %d", got, want)
	}
	got := rows(res.Attempts)
	want := []row{
		{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Hashed: true},
		{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/tempC", Hashed: true},
		{Attempt: 3, Iteration: 3, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageSchemaValidate, Path: "/tempC"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}
	var oe *enforce.OutputError
	if !errors.As(err, &oe) {
		t.Fatalf("err = %v, want an *enforce.OutputError", err)
	}
	if !reflect.DeepEqual(oe.Attempts, res.Attempts) {
		t.Errorf("OutputError.Attempts = %+v, want Result.Attempts %+v", oe.Attempts, res.Attempts)
	}
	if !errors.Is(err, enforce.ErrExhausted) {
		t.Errorf("errors.Is(%v, ErrExhausted) = false", err)
	}
	if got, want := oe.Output, answers[2]; got != want {
		t.Errorf("OutputError.Output = %q, want the last answer %q", got, want)
	}
	if got, want := res.Output, answers[2]; got != want {
		t.Errorf("Result.Output = %q, want the last answer %q", got, want)
	}
}

func TestBrokenBy(t *testing.T) {
	breaker := output("signature", func(_ context.Context, s string) (string, error) {
		return s + "\n-- sent by the weather bot", nil
	})
	lower := output("lowercase-city", func(ctx context.Context, s string) (string, error) {
		var w Weather
		if err := json.Unmarshal([]byte(s), &w); err != nil {
			return s, nil
		}
		w.City = "paris"
		middleware.Explain(ctx, "lower-cased the city")
		b, err := json.Marshal(w)
		return string(b), err
	})

	tests := []struct {
		name string
		ms   []middleware.Middleware
		want string // BrokenBy
	}{
		{"a middleware that breaks a valid answer is named", []middleware.Middleware{breaker}, "signature"},
		{"of two rewrites only the second, which breaks it, is named", []middleware.Middleware{lower, breaker}, "signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agenttest.NewModel(t, agenttest.Reply(valid))
			a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(3),
				agent.WithMiddleware(tt.ms...))

			_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")

			if got, want := m.Calls(), 1; got != want {
				t.Errorf("model calls = %d, want %d (retries must stay unspent)", got, want)
			}
			got := rows(res.Attempts)
			want := []row{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageJSONParse, BrokenBy: tt.want}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("rows = %+v, want %+v", got, want)
			}
			var oe *enforce.OutputError
			if !errors.As(err, &oe) {
				t.Fatalf("err = %v, want an *enforce.OutputError", err)
			}
			if got, want := oe.BrokenBy, tt.want; got != want {
				t.Errorf("OutputError.BrokenBy = %q, want %q", got, want)
			}
			if !errors.Is(err, enforce.ErrBrokenBy) {
				t.Errorf("errors.Is(%v, ErrBrokenBy) = false", err)
			}
			if errors.Is(err, enforce.ErrExhausted) {
				t.Errorf("errors.Is(%v, ErrExhausted) = true; retries were not spent", err)
			}
		})
	}

	t.Run("a rewrite that keeps the answer valid passes and is traced", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(valid))
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(3),
			agent.WithMiddleware(lower))

		w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := w, (Weather{City: "paris", TempC: 21}); got != want {
			t.Errorf("value = %+v, want %+v", got, want)
		}
		if got, want := rows(res.Attempts), []row{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomePassed}}; !reflect.DeepEqual(got, want) {
			t.Errorf("rows = %+v, want %+v", got, want)
		}
		wantTrace := []middleware.Step{{
			Name: "lowercase-city", Phase: middleware.PhaseOutput, Changed: true,
			Why: "lower-cased the city", Text: `{"city":"paris","tempC":21}`,
		}}
		if !reflect.DeepEqual(res.Trace, wantTrace) {
			t.Errorf("Trace = %+v, want %+v", res.Trace, wantTrace)
		}
	})
}

func TestDenial(t *testing.T) {
	deny := func(context.Context, string) (string, error) { return "", middleware.Deny("x") }
	panics := func(context.Context, string) (string, error) { panic("boom") }

	tests := []struct {
		name      string
		mw        middleware.Middleware
		steps     []agenttest.Step
		wantPhase middleware.Phase
		wantPanic any
		wantCalls int
	}{
		{
			name:      "an output step that returns Deny denies the answer",
			mw:        middleware.Middleware{Name: "policy", Output: deny},
			steps:     []agenttest.Step{agenttest.Reply(valid)},
			wantPhase: middleware.PhaseOutput,
			wantCalls: 1,
		},
		{
			name:      "an output step that panics denies the answer",
			mw:        middleware.Middleware{Name: "policy", Output: panics},
			steps:     []agenttest.Step{agenttest.Reply(prose)},
			wantPhase: middleware.PhaseOutput,
			wantPanic: "boom",
			wantCalls: 1,
		},
		{
			name:      "an input step that denies keeps the model from being called",
			mw:        middleware.Middleware{Name: "policy", Input: deny},
			wantPhase: middleware.PhaseInput,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agenttest.NewModel(t, tt.steps...)
			a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
				agent.WithMiddleware(tt.mw))

			res, err := a.Run(t.Context(), "Weather in Paris?")

			var de *middleware.DeniedError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want a *middleware.DeniedError", err)
			}
			if got, want := de.Name, "policy"; got != want {
				t.Errorf("DeniedError.Name = %q, want %q", got, want)
			}
			if got, want := de.Phase, tt.wantPhase; got != want {
				t.Errorf("DeniedError.Phase = %q, want %q", got, want)
			}
			if tt.wantPanic != nil {
				if got, want := de.Panic, tt.wantPanic; got != want {
					t.Errorf("DeniedError.Panic = %v, want %v", got, want)
				}
			} else if got, want := de.Reason, "x"; got != want {
				t.Errorf("DeniedError.Reason = %q, want %q", got, want)
			}
			var oe *enforce.OutputError
			if errors.As(err, &oe) {
				t.Errorf("a denial is an *enforce.OutputError too: %v", oe)
			}
			if res == nil {
				t.Fatal("Result is nil")
			}
			if len(res.Attempts) != 0 {
				t.Errorf("Attempts = %+v, want none: a denied answer is never judged", res.Attempts)
			}
			if got, want := m.Calls(), tt.wantCalls; got != want {
				t.Errorf("model calls = %d, want %d", got, want)
			}
		})
	}
}

// cancelOnCall wraps m so that the nth call (1-based) cancels ctx's run
// with cause before m answers.
func cancelOnCall(m agent.Model, n int, cancel context.CancelCauseFunc, cause error) agent.Model {
	calls := 0
	return agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		calls++
		// m answers first: a run whose context ends returns at once, not
		// waiting for the call (the package doc's Cancellation).
		resp, err := m.Generate(ctx, req)
		if calls == n {
			cancel(cause)
		}
		return resp, err
	})
}

func TestResultAlongsideErrors(t *testing.T) {
	modelErr := errors.New("service unavailable")
	cause := errors.New("user hung up")
	tests := []struct {
		name  string
		setup func(t *testing.T) (*agent.Agent, context.Context)
		is    error // the error must match this, or
		as    any   // be one of this type
	}{
		{
			name: "a model error",
			setup: func(t *testing.T) (*agent.Agent, context.Context) {
				m := agenttest.NewModel(t, agenttest.Fail(modelErr))
				return agent.New(m), t.Context()
			},
			is: modelErr,
		},
		{
			name: "the iteration limit",
			setup: func(t *testing.T) (*agent.Agent, context.Context) {
				m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("", "nope", `{}`)))
				return agent.New(m, agent.WithMaxIterations(1)), t.Context()
			},
			is: agent.ErrMaxIterations,
		},
		{
			name: "a denial",
			setup: func(t *testing.T) (*agent.Agent, context.Context) {
				m := agenttest.NewModel(t, agenttest.Reply(valid))
				return agent.New(m, agent.WithMiddleware(output("policy", func(context.Context, string) (string, error) {
					return "", middleware.Deny("no")
				}))), t.Context()
			},
			as: new(*middleware.DeniedError),
		},
		{
			name: "a cancellation",
			setup: func(t *testing.T) (*agent.Agent, context.Context) {
				ctx, cancel := context.WithCancelCause(t.Context())
				m := agenttest.NewModel(t, agenttest.Fail(context.Canceled))
				return agent.New(cancelOnCall(m, 1, cancel, cause)), ctx
			},
			is: cause,
		},
		{
			name: "an output error",
			setup: func(t *testing.T) (*agent.Agent, context.Context) {
				m := agenttest.NewModel(t, agenttest.Reply(prose))
				return agent.New(m, agent.WithOutputSchema(weatherSchema(t))), t.Context()
			},
			as: new(*enforce.OutputError),
		},
		{
			name: "an output error after retries",
			setup: func(t *testing.T) (*agent.Agent, context.Context) {
				m := agenttest.NewModel(t, agenttest.Reply(prose), agenttest.Reply(prose))
				return agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1)), t.Context()
			},
			as: new(*enforce.OutputError),
		},
	}
	run := map[string]func(context.Context, *agent.Agent) (*agent.Result, error){
		"Run": func(ctx context.Context, a *agent.Agent) (*agent.Result, error) { return a.Run(ctx, "hi") },
		"RunTyped": func(ctx context.Context, a *agent.Agent) (*agent.Result, error) {
			_, res, err := agent.RunTyped[Weather](ctx, a, "hi")
			return res, err
		},
	}
	for _, entry := range []string{"Run", "RunTyped"} {
		for _, tt := range tests {
			t.Run(entry+" returns a Result alongside "+tt.name, func(t *testing.T) {
				a, ctx := tt.setup(t)
				res, err := run[entry](ctx, a)
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("err = %v, want one matching %v", err, tt.is)
				}
				if tt.as != nil && !errors.As(err, tt.as) {
					t.Errorf("err = %v (%T), want a %T", err, err, reflect.ValueOf(tt.as).Elem().Interface())
				}
				if res == nil {
					t.Fatal("Result is nil")
				}
				if got, want := res.Iterations, 1; got < want {
					t.Errorf("Iterations = %d, want at least %d: the model was called", got, want)
				}
			})
		}
	}
}

func TestUsageIsSummedOverEveryCall(t *testing.T) {
	tool := agent.NewTool("noop", "does nothing", func(context.Context, struct{}) (string, error) { return "ok", nil })
	tests := []struct {
		name  string
		steps []agenttest.Step
		want  agent.Usage
	}{
		{
			name: "failed attempts and tool calls count",
			steps: []agenttest.Step{
				agenttest.Reply(prose).WithUsage(10, 5),
				agenttest.CallTools(agenttest.Call("", "noop", `{}`)).WithUsage(7, 3),
				agenttest.Reply(valid).WithUsage(20, 8),
			},
			want: agent.Usage{InputTokens: 37, OutputTokens: 16},
		},
		{
			name: "an exhausted run counts every answer",
			steps: []agenttest.Step{
				agenttest.Reply(prose).WithUsage(1, 2),
				agenttest.Reply(prose).WithUsage(3, 4),
				agenttest.Reply(prose).WithUsage(5, 6),
			},
			want: agent.Usage{InputTokens: 9, OutputTokens: 12},
		},
		{
			name: "a failed model call counts what it reported",
			steps: []agenttest.Step{
				agenttest.Reply(prose).WithUsage(1, 2),
				agenttest.Fail(errors.New("overloaded")).WithUsage(3, 0),
			},
			want: agent.Usage{InputTokens: 4, OutputTokens: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agenttest.NewModel(t, tt.steps...)
			// The same failure thrice: the repeat limit is off to spend every retry.
			a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithTools(tool), agent.WithRepeatLimit(0))
			res, _ := a.Run(t.Context(), "Weather in Paris?")
			if got := res.Usage; got != tt.want {
				t.Errorf("Usage = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestModelFailures(t *testing.T) {
	t.Run("a model panic matches ErrModel", func(t *testing.T) {
		m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) { panic("nil map") })
		res, err := agent.New(m).Run(t.Context(), "hi")
		if !errors.Is(err, agent.ErrModel) {
			t.Errorf("err = %v, want one matching ErrModel", err)
		}
		if res == nil {
			t.Error("Result is nil")
		}
	})
	t.Run("a model error matches ErrModel and the model's error", func(t *testing.T) {
		theErr := errors.New("rate limited")
		m := agenttest.NewModel(t, agenttest.Fail(theErr))
		_, err := agent.New(m).Run(t.Context(), "hi")
		if !errors.Is(err, agent.ErrModel) {
			t.Errorf("err = %v, want one matching ErrModel", err)
		}
		if !errors.Is(err, theErr) {
			t.Errorf("err = %v, want one matching the model's error", err)
		}
	})
}

// size counts the messages of a request and the bytes of their contents.
func size(r agent.Request) (n, bytes int) {
	for _, m := range r.Messages {
		bytes += len(m.Content)
	}
	return len(r.Messages), bytes
}

func TestRetryHistory(t *testing.T) {
	t.Run("by default each retry sends two more messages", func(t *testing.T) {
		m := agenttest.NewModel(t,
			agenttest.Reply(prose), agenttest.Reply(prose), agenttest.Reply(prose), agenttest.Reply(valid))
		a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(3), agent.WithRepeatLimit(0))
		if _, err := a.Run(t.Context(), "Weather in Paris?"); err != nil {
			t.Fatal(err)
		}
		reqs := m.Requests()
		first, _ := size(reqs[0])
		for i, r := range reqs {
			if got, want := len(r.Messages), first+2*i; got != want {
				t.Errorf("request %d has %d messages, want %d", i+1, got, want)
			}
		}
	})

	t.Run("WithLatestRetryOnly keeps the request flat over 10 retries", func(t *testing.T) {
		s := weatherSchema(t)
		var steps []agenttest.Step
		var failed []string
		for i := range 10 {
			// Same length and same parse error each time, so only the
			// corrective message's attempt number can change a size.
			answer := "not json " + string(rune('a'+i))
			failed = append(failed, answer)
			steps = append(steps, agenttest.Reply(answer))
		}
		steps = append(steps, agenttest.Reply(valid))
		m := agenttest.NewModel(t, steps...)
		// Eleven answers take eleven iterations: a corrective turn counts.
		a := agent.New(m, agent.WithOutputSchema(s), agent.WithOutputRetries(10),
			agent.WithMaxIterations(11), agent.WithLatestRetryOnly(), agent.WithRepeatLimit(0))

		res, err := a.Run(t.Context(), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		reqs := m.Requests()
		if got, want := len(reqs), 11; got != want {
			t.Fatalf("model got %d requests, want %d", got, want)
		}
		baseN, baseBytes := size(reqs[0])
		for i := 1; i < len(reqs); i++ {
			corrective := checkError(t, s, failed[i-1]).Corrective(i, 11)
			n, bytes := size(reqs[i])
			if got, want := n, baseN+2; got != want {
				t.Errorf("request %d has %d messages, want %d", i+1, got, want)
			}
			// Flat: the base plus one failed answer and its correction.
			if got, want := bytes, baseBytes+len(failed[i-1])+len(corrective); got != want {
				t.Errorf("request %d has %d bytes, want %d", i+1, got, want)
			}
			last := reqs[i].Messages[n-2:]
			want := []agent.Message{
				{Role: agent.RoleAssistant, Content: failed[i-1]},
				{Role: agent.RoleUser, Content: corrective},
			}
			if !reflect.DeepEqual(last, want) {
				t.Errorf("request %d ends with %+v, want the latest pair %+v", i+1, last, want)
			}
		}

		var gotFailed []string
		for _, msg := range res.Messages {
			if msg.Role == agent.RoleAssistant && msg.Content != valid {
				gotFailed = append(gotFailed, msg.Content)
			}
		}
		if !reflect.DeepEqual(gotFailed, failed) {
			t.Errorf("Result.Messages holds failed answers %q, want every one %q", gotFailed, failed)
		}
		if got, want := len(res.Messages), baseN+2*10+1; got != want {
			t.Errorf("Result.Messages has %d messages, want %d", got, want)
		}
	})
}

func TestCancellation(t *testing.T) {
	t.Run("a context cancelled during Generate returns its cause with the rows so far", func(t *testing.T) {
		cause := errors.New("user hung up")
		ctx, cancel := context.WithCancelCause(t.Context())
		defer cancel(nil)
		m := agenttest.NewModel(t, agenttest.Reply(prose), agenttest.Fail(context.Canceled))
		a := agent.New(cancelOnCall(m, 2, cancel, cause), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2))

		res, err := a.Run(ctx, "Weather in Paris?")

		if !errors.Is(err, cause) {
			t.Errorf("err = %v, want one matching the cause %v", err, cause)
		}
		got := rows(res.Attempts)
		want := []row{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Hashed: true}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rows = %+v, want %+v", got, want)
		}
	})

	t.Run("a context cancelled during a tool call stops the run", func(t *testing.T) {
		cause := errors.New("user hung up")
		ctx, cancel := context.WithCancelCause(t.Context())
		defer cancel(nil)
		tool := agent.NewTool("hang-up", "", func(context.Context, struct{}) (string, error) {
			cancel(cause)
			return "done", nil
		})
		m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "hang-up", `{}`)))
		res, err := agent.New(m, agent.WithTools(tool)).Run(ctx, "hi")
		if !errors.Is(err, cause) {
			t.Errorf("err = %v, want one matching the cause %v", err, cause)
		}
		if got, want := m.Calls(), 1; got != want {
			t.Errorf("model calls = %d, want %d", got, want)
		}
		if res == nil {
			t.Fatal("Result is nil")
		}
	})

	t.Run("a context cancelled before Run calls no model", func(t *testing.T) {
		cause := errors.New("shutting down")
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(cause)
		m := agenttest.NewModel(t)
		res, err := agent.New(m).Run(ctx, "hi")
		if !errors.Is(err, cause) {
			t.Errorf("err = %v, want one matching the cause %v", err, cause)
		}
		if got, want := m.Calls(), 0; got != want {
			t.Errorf("model calls = %d, want %d", got, want)
		}
		if res == nil {
			t.Error("Result is nil")
		}
	})
}

func TestInvalidOptions(t *testing.T) {
	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		t.Fatal(err)
	}
	noop := func(context.Context, struct{}) (string, error) { return "", nil }
	pass := func(_ context.Context, s string) (string, error) { return s, nil }
	tests := []struct {
		name string
		opts []agent.Option
	}{
		{"11 output retries are too many", []agent.Option{agent.WithOutputSchema(s), agent.WithOutputRetries(11)}},
		{"-1 output retries are refused", []agent.Option{agent.WithOutputSchema(s), agent.WithOutputRetries(-1)}},
		{"zero max iterations are refused", []agent.Option{agent.WithMaxIterations(0)}},
		{"a middleware with an empty name is refused", []agent.Option{agent.WithMiddleware(middleware.Middleware{Output: pass})}},
		{"two tools with one name are refused", []agent.Option{agent.WithTools(agent.NewTool("t", "", noop), agent.NewTool("t", "", noop))}},
		{"a nil output schema is refused", []agent.Option{agent.WithOutputSchema(nil)}},
		{"output retries without a schema are refused by Run", []agent.Option{agent.WithOutputRetries(1)}},
		{"-1 parallel tools are refused", []agent.Option{agent.WithParallelTools(-1)}},
		{"1025 parallel tools are over the cap", []agent.Option{agent.WithParallelTools(1025)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agenttest.NewModel(t)
			res, err := agent.New(m, tt.opts...).Run(t.Context(), "hi")
			if !errors.Is(err, agent.ErrInvalidOption) {
				t.Errorf("err = %v, want one matching ErrInvalidOption", err)
			}
			if got, want := m.Calls(), 0; got != want {
				t.Errorf("model calls = %d, want %d", got, want)
			}
			if res == nil {
				t.Error("Result is nil")
			}
		})
	}

	t.Run("a nil model is refused", func(t *testing.T) {
		_, err := agent.New(nil).Run(t.Context(), "hi")
		if !errors.Is(err, agent.ErrInvalidOption) {
			t.Errorf("err = %v, want one matching ErrInvalidOption", err)
		}
	})

	t.Run("output retries without a schema work with RunTyped", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(prose), agenttest.Reply(valid))
		w, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "hi")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := w, (Weather{City: "Paris", TempC: 21}); got != want {
			t.Errorf("value = %+v, want %+v", got, want)
		}
		got := rows(res.Attempts)
		want := []row{
			{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Hashed: true},
			{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomePassed},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rows = %+v, want %+v", got, want)
		}
		if got, want := string(m.Requests()[0].OutputSchema), sent(t, s.JSON()); got != want {
			t.Errorf("Request.OutputSchema = %s, want SchemaFor[Weather] %s", got, want)
		}
	})
}

func TestDefaultIterationsLeaveRoomForEveryRetry(t *testing.T) {
	// Ten retries take eleven answers; the default bound is ten iterations
	// of the loop's own work plus one per retry.
	var steps []agenttest.Step
	for range 11 {
		steps = append(steps, agenttest.Reply(prose))
	}
	m := agenttest.NewModel(t, steps...)
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(enforce.MaxRetries), agent.WithRepeatLimit(0))

	res, err := a.Run(t.Context(), "Weather in Paris?")

	if !errors.Is(err, enforce.ErrExhausted) {
		t.Errorf("err = %v, want one matching enforce.ErrExhausted", err)
	}
	if errors.Is(err, agent.ErrMaxIterations) {
		t.Errorf("err = %v matches ErrMaxIterations", err)
	}
	var got []enforce.Outcome
	for _, r := range res.Attempts {
		got = append(got, r.Outcome)
	}
	var want []enforce.Outcome
	for range 10 {
		want = append(want, enforce.OutcomeRetried)
	}
	want = append(want, enforce.OutcomeExhausted)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes = %v, want %v", got, want)
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

type City struct {
	Name string `json:"name"`
}

func TestEachSchemaSendsItsOwnContract(t *testing.T) {
	m := agenttest.NewModel(t,
		agenttest.Reply(valid), agenttest.Reply(`{"name":"Paris"}`), agenttest.Reply(valid))
	a := agent.New(m, agent.WithSystemPrompt("Be brief."))
	ctx := t.Context()
	if _, _, err := agent.RunTyped[Weather](ctx, a, "hi"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := agent.RunTyped[City](ctx, a, "hi"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := agent.RunTyped[Weather](ctx, a, "hi"); err != nil {
		t.Fatal(err)
	}
	weather, _ := enforce.SchemaFor[Weather]()
	city, _ := enforce.SchemaFor[City]()
	reqs := m.Requests()
	for i, s := range []*enforce.Schema{weather, city, weather} {
		if got, want := string(reqs[i].OutputSchema), sent(t, s.JSON()); got != want {
			t.Errorf("request %d OutputSchema = %s, want %s", i+1, got, want)
		}
		sys := reqs[i].Messages[0]
		if sys.Role != agent.RoleSystem || !strings.HasPrefix(sys.Content, "Be brief.\n\n") || !strings.HasSuffix(sys.Content, sent(t, s.JSON())) {
			t.Errorf("request %d system message = %q, want the prompt, then the contract of its own schema", i+1, sys.Content)
		}
	}
}
