package agent_test

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
	"github.com/enforcer-go/enforcer/middleware"
)

const lyon = `{"city":"Lyon","tempC":21}` // keeps the schema; parisOnly refuses it

// parisOnly is an untyped validator: it reads the parsed JSON value.
var parisOnly = enforce.NewValidator("paris-only", func(_ context.Context, answer any, _ enforce.Try) ([]enforce.Issue, error) {
	if city, _ := answer.(map[string]any)["city"].(string); city != "Paris" {
		return []enforce.Issue{{Path: "/city", Message: "we forecast Paris only, not " + city}}, nil
	}
	return nil, nil
})

// lastRow is the last row of res.
func lastRow(t *testing.T, res *agent.Result) enforce.Attempt {
	t.Helper()
	if res == nil || len(res.Attempts) == 0 {
		t.Fatalf("no rows")
	}
	return res.Attempts[len(res.Attempts)-1]
}

func TestRunWithValidators(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(lyon), agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithValidators(parisOnly))

	res, err := a.Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	want := []row{
		{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/city", Hashed: true},
		{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomePassed},
	}
	if got := rows(res.Attempts); !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}
	if got, want := res.Attempts[0].Error, "we forecast Paris only, not Lyon"; got != want {
		t.Errorf("row error = %q, want the validator's %q", got, want)
	}
	sent := m.Requests()[1].Messages
	corrective := sent[len(sent)-1]
	if got, want := fnv.Hex32a(corrective.Content), res.Attempts[0].CorrectiveMessageHash; got != want {
		t.Errorf("the corrective message hashes to %s, the row says %s", got, want)
	}
	if !strings.HasSuffix(corrective.Content, `- at "/city": "we forecast Paris only, not Lyon"`) {
		t.Errorf("the corrective message does not end with the validator's issue:\n%s", corrective.Content)
	}
}

func TestRunWithValidatorsWithoutRetries(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(lyon))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithValidators(parisOnly))

	res, err := a.Run(t.Context(), "Weather in Paris?")

	var oe *enforce.OutputError
	if !errors.As(err, &oe) {
		t.Fatalf("err = %v, want *enforce.OutputError", err)
	}
	if oe.Attempts != nil || res.Attempts != nil {
		t.Errorf("rows = %v / %v, want none without WithOutputRetries", oe.Attempts, res.Attempts)
	}
	var ce *enforce.CheckError
	if !errors.As(err, &ce) || ce.Stage != enforce.StageSchemaValidate || ce.Issues[0].Keyword != "paris-only" || ce.Issues[0].Path != "/city" {
		t.Errorf("CheckError = %+v, want schema-validate at /city with keyword paris-only", ce)
	}
}

func TestRunTypedWithATypedValidator(t *testing.T) {
	var seen []enforce.Try
	warmEnough := enforce.NewValidator("plausible", func(_ context.Context, w Weather, at enforce.Try) ([]enforce.Issue, error) {
		seen = append(seen, at)
		if w.TempC > 60 {
			return []enforce.Issue{{Path: "/tempC", Message: "no city is that hot"}}, nil
		}
		return nil, nil
	})
	m := agenttest.NewModel(t, agenttest.Reply(`{"city":"Paris","tempC":210}`), agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputRetries(2), agent.WithValidators(warmEnough)) // no WithOutputSchema: RunTyped's own

	w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if w != (Weather{City: "Paris", TempC: 21}) {
		t.Errorf("value = %+v", w)
	}
	want := []row{
		{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/tempC", Hashed: true},
		{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomePassed},
	}
	if got := rows(res.Attempts); !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}
	if want := []enforce.Try{{Attempt: 1, RetriesLeft: 2}, {Attempt: 2, RetriesLeft: 1}}; !reflect.DeepEqual(seen, want) {
		t.Errorf("the validator saw %+v, want %+v", seen, want)
	}

	t.Run("without retries a failing answer is an OutputError", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(`{"city":"Paris","tempC":210}`))
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithValidators(warmEnough)), "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || oe.Path != "/tempC" || oe.Attempts != nil || res.Attempts != nil {
			t.Errorf("err = %v, want an *OutputError at /tempC with no rows", err)
		}
	})
}

func TestAValidatorsVerdictBeyondRepairSpendsNoRetry(t *testing.T) {
	noCity := enforce.NewValidator("known-city", func(_ context.Context, w Weather, _ enforce.Try) ([]enforce.Issue, error) {
		if w.City == "Atlantis" {
			return []enforce.Issue{{Path: "/city", Message: "Atlantis does not exist"}}, enforce.ErrBeyondRepair
		}
		return nil, nil
	})
	m := agenttest.NewModel(t, agenttest.Reply(`{"city":"Atlantis","tempC":21}`))
	a := agent.New(m, agent.WithOutputRetries(3), agent.WithValidators(noCity))

	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Atlantis?")

	if !errors.Is(err, enforce.ErrBeyondRepair) {
		t.Errorf("err = %v, want one matching enforce.ErrBeyondRepair", err)
	}
	if got := lastRow(t, res); got.Outcome != enforce.OutcomeExhausted || got.Reason != enforce.ReasonBeyondRepair || got.Path != "/city" {
		t.Errorf("row = %+v, want exhausted at /city, reason beyond-repair", got)
	}
	if got := m.Calls(); got != 1 {
		t.Errorf("model calls = %d, want 1", got)
	}
}

func TestAFailingValidatorEndsTheRunWithAValidatorError(t *testing.T) {
	down := errors.New("geocoder unavailable")
	failing := enforce.NewValidator("geocoder", func(context.Context, Weather, enforce.Try) ([]enforce.Issue, error) { return nil, down })
	panicking := enforce.NewValidator("geocoder", func(context.Context, Weather, enforce.Try) ([]enforce.Issue, error) { panic("bug") })
	exiting := enforce.NewValidator("geocoder", func(context.Context, Weather, enforce.Try) ([]enforce.Issue, error) {
		runtime.Goexit() // as t.FailNow or testify's require.* in a validator would
		return nil, nil
	})
	for _, tt := range []struct {
		name string
		v    enforce.Validator
	}{{"an error", failing}, {"a panic", panicking}, {"a runtime.Goexit", exiting}} {
		t.Run(tt.name+" with retries gives an exhausted row", func(t *testing.T) {
			m := agenttest.NewModel(t, agenttest.Reply(valid))
			_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(2), agent.WithValidators(tt.v)), "Weather in Paris?")
			var ve *enforce.ValidatorError
			if !errors.As(err, &ve) || ve.Name != "geocoder" {
				t.Fatalf("err = %v, want an *enforce.ValidatorError naming the validator", err)
			}
			got := lastRow(t, res)
			if got.Outcome != enforce.OutcomeExhausted || got.Reason != enforce.ReasonValidatorFailed || got.Stage != enforce.StageSchemaValidate || !strings.Contains(got.Error, `validator "geocoder" failed`) {
				t.Errorf("row = %+v, want exhausted at schema-validate, reason validator-failed, saying which failed", got)
			}
		})
		t.Run(tt.name+" without retries gives no row", func(t *testing.T) {
			m := agenttest.NewModel(t, agenttest.Reply(valid))
			_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithValidators(tt.v)), "Weather in Paris?")
			var ve *enforce.ValidatorError
			if !errors.As(err, &ve) || res.Attempts != nil {
				t.Errorf("err = %v, rows = %v, want a *ValidatorError and no rows", err, res.Attempts)
			}
		})
	}
	t.Run("its error is still there to match", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(valid))
		_, _, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithValidators(failing)), "Weather in Paris?")
		if !errors.Is(err, down) {
			t.Errorf("err = %v, want one matching %v", err, down)
		}
	})
}

func TestRunReturnsTheCauseWhenCancelledWhileAValidatorRuns(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) })
	stubborn := enforce.NewValidator("stubborn", func(context.Context, any, enforce.Try) ([]enforce.Issue, error) {
		close(started)
		<-release // ignores its context
		return nil, nil
	})
	cause := errors.New("user hung up")
	ctx, cancel := context.WithCancelCause(t.Context())
	go func() {
		<-started
		cancel(cause)
	}()
	m := agenttest.NewModel(t, agenttest.Reply(valid))
	res, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithValidators(stubborn)).Run(ctx, "Weather in Paris?")
	if !errors.Is(err, cause) {
		t.Errorf("err = %v, want the cause %v", err, cause)
	}
	var ve *enforce.ValidatorError
	if errors.As(err, &ve) || len(res.Attempts) != 0 {
		t.Errorf("err = %v, rows = %+v: a cancelled run has no validator failure and no row for the answer", err, res.Attempts)
	}
}

func TestValidatorOptionsAreChecked(t *testing.T) {
	ok := func(context.Context, any, enforce.Try) ([]enforce.Issue, error) { return nil, nil }
	tests := []struct {
		name string
		run  func(m agent.Model) error
	}{
		{"validators without a schema", func(m agent.Model) error {
			_, err := agent.New(m, agent.WithValidators(parisOnly)).Run(t.Context(), "hi")
			return err
		}},
		{"a validator without a name, with a schema", func(m agent.Model) error {
			_, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithValidators(enforce.NewValidator("", ok))).Run(t.Context(), "hi")
			return err
		}},
		{"a name given twice, under RunTyped", func(m agent.Model) error {
			_, _, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithValidators(parisOnly, parisOnly)), "hi")
			return err
		}},
		{"a repeat limit of 1", func(m agent.Model) error {
			_, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1), agent.WithRepeatLimit(1)).Run(t.Context(), "hi")
			return err
		}},
		{"a repeat limit past the most retries", func(m agent.Model) error {
			_, err := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithRepeatLimit(enforce.MaxRetries+2)).Run(t.Context(), "hi")
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused before the model is called", func(t *testing.T) {
			m := agenttest.NewModel(t)
			if err := tt.run(m); !errors.Is(err, agent.ErrInvalidOption) {
				t.Errorf("err = %v, want one matching ErrInvalidOption", err)
			}
			if m.Calls() != 0 {
				t.Errorf("the model was called")
			}
		})
	}
}

func TestRepeatLimitInTheAgent(t *testing.T) {
	t.Run("by default every retry is spent on a model that fails the same way", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(missing), agenttest.Reply(missing), agenttest.Reply(missing))
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(2)), "Weather in Paris?")
		if !errors.Is(err, enforce.ErrExhausted) || errors.Is(err, enforce.ErrRepeated) {
			t.Errorf("err = %v, want ErrExhausted and not ErrRepeated", err)
		}
		if m.Calls() != 3 {
			t.Errorf("the model was called %d times, want 3", m.Calls())
		}
		want := []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeRetried, enforce.OutcomeExhausted}
		var got []enforce.Outcome
		for _, r := range res.Attempts {
			got = append(got, r.Outcome)
		}
		if !reflect.DeepEqual(got, want) || lastRow(t, res).Reason != "" {
			t.Errorf("rows = %+v, want retried, retried, exhausted with no reason", res.Attempts)
		}
	})
	t.Run("WithRepeatLimit(2) ends the run at the second identical failure in a row", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(missing), agenttest.Reply(missing))
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(2), agent.WithRepeatLimit(2)), "Weather in Paris?")
		if m.Calls() != 2 {
			t.Errorf("the model was called %d times, want 2", m.Calls())
		}
		if !errors.Is(err, enforce.ErrRepeated) || errors.Is(err, enforce.ErrExhausted) {
			t.Errorf("err = %v, want ErrRepeated and not ErrExhausted", err)
		}
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || oe.Reason != enforce.ReasonRepeated {
			t.Errorf("err = %v, want an *OutputError whose Reason is repeated", err)
		}
		want := []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomeExhausted}
		var got []enforce.Outcome
		for _, r := range res.Attempts {
			got = append(got, r.Outcome)
		}
		if !reflect.DeepEqual(got, want) || lastRow(t, res).Reason != enforce.ReasonRepeated {
			t.Errorf("rows = %+v, want retried then exhausted with reason repeated", res.Attempts)
		}
	})
	t.Run("WithRepeatLimit(0) spends every retry", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(missing), agenttest.Reply(missing), agenttest.Reply(missing))
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(2), agent.WithRepeatLimit(2), agent.WithRepeatLimit(0)), "Weather in Paris?")
		if !errors.Is(err, enforce.ErrExhausted) || len(res.Attempts) != 3 {
			t.Errorf("err = %v after %d rows, want ErrExhausted after 3", err, len(res.Attempts))
		}
	})
	t.Run("prose and then a fenced answer are two different json-parse failures, not a repeat", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(prose), agenttest.Reply("```json\n"+valid+"\n```"), agenttest.Reply(valid))
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(3), agent.WithRepeatLimit(2)), "Weather in Paris?")
		if err != nil {
			t.Fatalf("err = %v after rows %+v, want the third answer to pass", err, res.Attempts)
		}
	})
	t.Run("a fenced answer twice is a repeat", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply("```json\n"+missing+"\n```"), agenttest.Reply("```\n"+valid+"\n```"))
		_, _, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(3), agent.WithRepeatLimit(2)), "Weather in Paris?")
		if !errors.Is(err, enforce.ErrRepeated) {
			t.Errorf("err = %v, want ErrRepeated", err)
		}
	})
	t.Run("WithRepeatLimit(3) allows two identical failures in a row", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(missing), agenttest.Reply(missing), agenttest.Reply(valid))
		if _, _, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(3), agent.WithRepeatLimit(3)), "Weather in Paris?"); err != nil {
			t.Errorf("err = %v, want the third answer to pass", err)
		}
	})
}

// The case found porting the reference tests: act-output wraps a failing
// answer in a fence. The row and the correction speak of the model's own
// mistake (/tempC), which it can see; the fence shows in the trace.
func TestTheCorrectionDescribesTheModelsOwnAnswer(t *testing.T) {
	const given = `{"city":"Paris","tempC":"21"}`
	fence := output("fence", func(_ context.Context, s string) (string, error) {
		return "```json\n" + s + "\n```", nil
	})
	m := agenttest.NewModel(t, agenttest.Reply(given), agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithMiddleware(fence))

	_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")

	want := []row{
		// The model's own answer fails at /tempC: that is what it is told.
		{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/tempC", Hashed: true},
		// Its second answer is valid, and only the fence breaks it.
		{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageJSONParse, BrokenBy: "fence"},
	}
	if got := rows(res.Attempts); !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}
	if !errors.Is(err, enforce.ErrBrokenBy) {
		t.Errorf("err = %v, want ErrBrokenBy", err)
	}
	sent := m.Requests()[1].Messages
	failed, corrective := sent[len(sent)-2], sent[len(sent)-1]
	if failed.Content != given {
		t.Errorf("the failed answer re-sent is %q, want the model's own %q", failed.Content, given)
	}
	if want := checkError(t, weatherSchema(t), given).Corrective(1, 3); corrective.Content != want {
		t.Errorf("corrective message:\n%s\nwant the one for the model's own answer:\n%s", corrective.Content, want)
	}
	if strings.Contains(corrective.Content, "json-parse") {
		t.Errorf("the correction speaks of the fence the model never wrote:\n%s", corrective.Content)
	}
	wantTrace := middleware.Step{Name: "fence", Phase: middleware.PhaseOutput, Changed: true, Text: "```json\n" + given + "\n```"}
	if len(res.Trace) == 0 || res.Trace[0] != wantTrace {
		t.Errorf("Trace = %+v, want the fence's rewrite first: %+v", res.Trace, wantTrace)
	}
}

// A rewrite that turns a validator-passing answer into one the validator
// refuses is named, as one that breaks the schema is.
func TestBrokenByAValidator(t *testing.T) {
	relocate := output("relocate", func(_ context.Context, s string) (string, error) {
		return strings.Replace(s, "Paris", "Lyon", 1), nil
	})
	m := agenttest.NewModel(t, agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithValidators(parisOnly), agent.WithMiddleware(relocate))

	res, err := a.Run(t.Context(), "Weather in Paris?")

	want := []row{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageSchemaValidate, Path: "/city", BrokenBy: "relocate"}}
	if got := rows(res.Attempts); !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}
	if !errors.Is(err, enforce.ErrBrokenBy) || m.Calls() != 1 {
		t.Errorf("err = %v after %d calls, want ErrBrokenBy after 1", err, m.Calls())
	}
}

func TestAFailingValidatorIsAnEnvironmentErrorOnTheStream(t *testing.T) {
	s := newStream(t)
	down := enforce.NewValidator("geocoder", func(context.Context, Weather, enforce.Try) ([]enforce.Issue, error) {
		return nil, errors.New("geocoder unavailable")
	})
	m := agenttest.NewModel(t, agenttest.Reply(valid))
	if _, _, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithEvents(s), agent.WithOutputRetries(1), agent.WithValidators(down)), "hi"); err == nil {
		t.Fatal("err = nil")
	}
	got, ns := methods(t, s)
	if want := []string{"turn/started", "output/schemaExhausted", "turn/completed"}; !reflect.DeepEqual(got, want) {
		t.Errorf("methods = %v, want %v", got, want)
	}
	if last := ns[len(ns)-1]; !containsJSON(last.Params, `"kind":"environmentError"`) {
		t.Errorf("turn/completed = %s, want an environmentError: the model did nothing wrong", last.Params)
	}
}

// A validator of one member cuts a streamed answer at that member's close:
// "Atlantis" is refused at its closing quote, not after 4 KiB of forecast.
func TestAValidatorOfOneMemberCutsAStreamedAnswerEarly(t *testing.T) {
	known := enforce.NewValidator("known-city", func(_ context.Context, city string, at enforce.Try) ([]enforce.Issue, error) {
		if city == "Atlantis" {
			return []enforce.Issue{{Message: "Atlantis is not on any map"}}, nil
		}
		return nil, nil
	}).At("/city")
	type Forecast struct {
		City     string `json:"city"`
		Forecast []int  `json:"forecast"`
	}
	long := `{"city": "Atlantis", "forecast": [` + strings.Repeat("21, ", 1000) + `21]}`
	m := agenttest.NewStreamingModel(t, agenttest.Reply(long).InChunks(16), agenttest.Reply(`{"city": "Paris", "forecast": [21]}`))
	a := agent.New(m, agent.WithOutputRetries(1), agent.WithValidators(known))
	f, res, err := agent.RunTyped[Forecast](t.Context(), a, "Forecast?")
	if err != nil || f.City != "Paris" {
		t.Fatalf("RunTyped = %+v, %v; want the corrected answer", f, err)
	}
	r := res.Attempts[0]
	if r.Outcome != enforce.OutcomeRetried || r.Path != "/city" || r.Cut == nil {
		t.Fatalf("first row = %+v, want retried at /city, cut", r)
	}
	if want := strings.Index(long, `Atlantis"`) + len(`Atlantis"`); r.Cut.Bytes != want {
		t.Errorf("cut after %d bytes, want %d: at the city's closing quote", r.Cut.Bytes, want)
	}
	if got := m.Consumed()[0]; !got.Stopped || got.Bytes >= len(long)/2 {
		t.Errorf("the model's reply was read %d of %d bytes (stopped %v)", got.Bytes, len(long), got.Stopped)
	}
}
