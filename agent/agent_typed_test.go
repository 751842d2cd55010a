package agent_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

type otherAnswer struct {
	Name string `json:"name"`
}

func TestRunTypedRefusesASchemaReflectedFromAnotherType(t *testing.T) {
	m := agenttest.NewModel(t) // any call fails the test: the script is empty
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)))

	got, res, err := agent.RunTyped[otherAnswer](t.Context(), a, "Weather in Paris?")
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Fatalf("err = %v, want one matching agent.ErrInvalidOption", err)
	}
	var se *enforce.SchemaError
	if !errors.As(err, &se) {
		t.Errorf("err = %v, want it to carry enforce's *SchemaError", err)
	}
	if got != (otherAnswer{}) {
		t.Errorf("value = %+v, want the zero value", got)
	}
	if res == nil {
		t.Fatal("Result = nil, want a non-nil Result")
	}
	if got, want := len(m.Requests()), 0; got != want {
		t.Errorf("the model got %d requests, want %d", got, want)
	}
}

// counted keeps {"type": "object"} but needs N to be an integer.
type counted struct {
	N int `json:"n"`
}

func TestRunTypedJudgesACompiledSchemaTogetherWithT(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(`{"type": "object"}`))
	if err != nil {
		t.Fatal(err)
	}
	const misfit, fit = `{"n": "three"}`, `{"n": 3}`

	t.Run("with retries, an answer that does not decode into T is retried at schema-validate", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(misfit), agenttest.Reply(fit))
		a := agent.New(m, agent.WithOutputSchema(s), agent.WithOutputRetries(1))
		got, res, err := agent.RunTyped[counted](t.Context(), a, "Count")
		if err != nil {
			t.Fatal(err)
		}
		if want := (counted{N: 3}); got != want {
			t.Errorf("value = %+v, want %+v", got, want)
		}
		want := []row{
			{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/n", Hashed: true},
			{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomePassed},
		}
		if got := rows(res.Attempts); !reflect.DeepEqual(got, want) {
			t.Errorf("rows = %+v, want %+v", got, want)
		}
	})

	t.Run("without retries, it is an OutputError at schema-validate with no rows", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(misfit))
		a := agent.New(m, agent.WithOutputSchema(s))
		_, res, err := agent.RunTyped[counted](t.Context(), a, "Count")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) {
			t.Fatalf("err = %v, want an *enforce.OutputError", err)
		}
		if got, want := oe.Stage, enforce.StageSchemaValidate; got != want {
			t.Errorf("Stage = %q, want %q", got, want)
		}
		if got, want := oe.Path, "/n"; got != want {
			t.Errorf("Path = %q, want %q", got, want)
		}
		if oe.Attempts != nil || res.Attempts != nil {
			t.Errorf("Attempts = %v / %v, want nil without retries", oe.Attempts, res.Attempts)
		}
	})

	t.Run("Run with the same schema judges the schema alone", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(misfit))
		a := agent.New(m, agent.WithOutputSchema(s))
		if _, err := a.Run(t.Context(), "Count"); err != nil {
			t.Errorf("Run = %v, want nil: the schema alone admits any object", err)
		}
	})
}

func TestRunTypedAcceptsTheSchemaOfItsOwnType(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)))
	got, _, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got == (Weather{}) {
		t.Errorf("value = %+v, want the decoded answer", got)
	}
}

// unitSchema asks for a member counted lacks.
const unitSchema = `{"type": "object", "required": ["n", "unit"], "properties": {"n": {"type": "integer"}, "unit": {"type": "string"}}}`

func TestRunTypedHoldsTheAnswerToBothTheSchemaAndT(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(unitSchema))
	if err != nil {
		t.Fatal(err)
	}
	m := agenttest.NewModel(t,
		agenttest.Reply(`{"n": 3}`),               // T takes it; the schema does not
		agenttest.Reply(`{"n": 3, "unit": "kg"}`), // both do; T has no unit
	)
	a := agent.New(m, agent.WithOutputSchema(s), agent.WithOutputRetries(1))
	got, res, err := agent.RunTyped[counted](t.Context(), a, "Count")
	if err != nil {
		t.Fatal(err)
	}
	if want := (counted{N: 3}); got != want {
		t.Errorf("value = %+v, want %+v", got, want)
	}
	want := []row{
		{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/unit", Hashed: true},
		{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomePassed},
	}
	if got := rows(res.Attempts); !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %+v, want %+v", got, want)
	}

	t.Run("the model is sent the schema given, not T's", func(t *testing.T) {
		var got, want any
		if err := json.Unmarshal(m.Requests()[0].OutputSchema, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(unitSchema), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("OutputSchema = %s, want %s", m.Requests()[0].OutputSchema, unitSchema)
		}
	})
}
