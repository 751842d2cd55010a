package agent_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/fnv"
)

// cut is a final answer the output limit cut short.
const cut = `{"city":"Paris","te`

// truncatedRows lists which rows say Truncated.
func truncatedRows(as []enforce.Attempt) []bool {
	var out []bool
	for _, a := range as {
		out = append(out, a.Truncated)
	}
	return out
}

func TestATruncatedAnswer(t *testing.T) {
	t.Run("truncated twice in a row, it is exhausted with retries left", func(t *testing.T) {
		s := newStream(t)
		m := agenttest.NewModel(t,
			agenttest.Reply(cut).WithStop(agent.StopLength),
			agenttest.Reply(cut).WithStop(agent.StopLength),
		)
		a := agent.New(m, agent.WithOutputRetries(3), agent.WithEvents(s))

		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")

		var oe *enforce.OutputError
		if !errors.As(err, &oe) || !oe.Truncated {
			t.Fatalf("err = %v, want an *enforce.OutputError with Truncated", err)
		}
		if !errors.Is(err, enforce.ErrExhausted) {
			t.Errorf("err does not match enforce.ErrExhausted")
		}
		want := []row{
			{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Hashed: true},
			{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomeExhausted, Stage: enforce.StageJSONParse},
		}
		if got := rows(res.Attempts); !reflect.DeepEqual(got, want) {
			t.Errorf("rows = %+v, want %+v", got, want)
		}
		if got, want := truncatedRows(res.Attempts), []bool{true, true}; !reflect.DeepEqual(got, want) {
			t.Errorf("rows' Truncated = %v, want %v", got, want)
		}
		got, _ := methods(t, s)
		if want := []string{"turn/started", "turn/retryScheduled", "output/schemaRetry", "output/schemaExhausted", "turn/completed"}; !slices.Equal(got, want) {
			t.Errorf("stream = %v, want %v", got, want)
		}
	})

	t.Run("the corrective turn says it was truncated, and a fixed answer passes", func(t *testing.T) {
		m := agenttest.NewModel(t,
			agenttest.Reply(cut).WithStop(agent.StopLength),
			agenttest.Reply(valid),
		)
		a := agent.New(m, agent.WithOutputRetries(1))

		w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := w, (Weather{City: "Paris", TempC: 21}); got != want {
			t.Errorf("value = %+v, want %+v", got, want)
		}
		if got, want := truncatedRows(res.Attempts), []bool{true, false}; !reflect.DeepEqual(got, want) {
			t.Errorf("rows' Truncated = %v, want %v", got, want)
		}
		msgs := m.Requests()[1].Messages
		corrective := msgs[len(msgs)-1]
		plain := checkError(t, weatherSchema(t), cut).Corrective(1, 2)
		if !strings.HasSuffix(corrective.Content, plain) || corrective.Content == plain {
			t.Errorf("corrective message = %q, want our words about the cut before %q", corrective.Content, plain)
		}
		if got, want := res.Attempts[0].CorrectiveMessageHash, fnv.Hex32a(corrective.Content); got != want {
			t.Errorf("CorrectiveMessageHash = %q, want %q", got, want)
		}
	})

	t.Run("without retries the OutputError says it was truncated", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(cut).WithStop(agent.StopLength))
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m), "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || !oe.Truncated || oe.Attempts != nil {
			t.Fatalf("err = %#v, want an *enforce.OutputError with Truncated and no rows", err)
		}
		if res.Attempts != nil {
			t.Errorf("Attempts = %+v, want nil", res.Attempts)
		}
	})

	t.Run("an answer that ended normally is not called truncated", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(cut), agenttest.Reply(cut))
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "Weather in Paris?")
		var oe *enforce.OutputError
		if !errors.As(err, &oe) || oe.Truncated {
			t.Fatalf("err = %#v, want an *enforce.OutputError without Truncated", err)
		}
		if got, want := truncatedRows(res.Attempts), []bool{false, false}; !reflect.DeepEqual(got, want) {
			t.Errorf("rows' Truncated = %v, want %v", got, want)
		}
	})
}

func TestAWithheldAnswer(t *testing.T) {
	const refusal = "I can't help with that request."
	for _, stop := range []agent.StopReason{agent.StopRefusal, agent.StopContentFilter} {
		t.Run(string(stop)+" ends the run with a RefusalError and an exhausted row, retries unspent", func(t *testing.T) {
			s := newStream(t)
			m := agenttest.NewModel(t, agenttest.Reply(refusal).WithStop(stop))
			a := agent.New(m, agent.WithOutputRetries(2), agent.WithEvents(s), agent.WithClock(fixedClock)) // rows compared whole

			_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")

			var re *agent.RefusalError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want an *agent.RefusalError", err)
			}
			if want := (agent.RefusalError{Stop: stop, Raw: string(stop), Text: refusal}); *re != want {
				t.Errorf("RefusalError = %+v, want %+v", *re, want)
			}
			var oe *enforce.OutputError
			if errors.As(err, &oe) {
				t.Errorf("a withheld answer was judged: %v", oe)
			}
			want := []enforce.Attempt{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeExhausted, Withheld: string(stop)}}
			if !reflect.DeepEqual(res.Attempts, want) {
				t.Errorf("rows = %+v, want %+v", res.Attempts, want)
			}
			if res.Output != "" {
				t.Errorf("Output = %q, want none", res.Output)
			}

			got, ns := methods(t, s)
			if want := []string{"turn/started", "turn/completed"}; !slices.Equal(got, want) {
				t.Errorf("stream = %v, want %v", got, want)
			}
			last := ns[len(ns)-1].Params
			if containsJSON(last, "help with that") || !containsJSON(last, `"kind":"`+string(events.FailureModelError)+`"`) {
				t.Errorf("turn/completed = %s, want a modelError without the model's text", last)
			}
		})
	}

	t.Run("without retries or a schema it is a RefusalError too", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply(refusal).WithStop(agent.StopRefusal))
		res, err := agent.New(m).Run(t.Context(), "hi")
		var re *agent.RefusalError
		if !errors.As(err, &re) || re.Text != refusal {
			t.Fatalf("err = %v, want an *agent.RefusalError with the text", err)
		}
		if res.Attempts != nil || res.Output != "" {
			t.Errorf("Result = %+v, want no rows and no output", res)
		}
	})

	t.Run("the error's text leaves out the model's", func(t *testing.T) {
		err := error(&agent.RefusalError{Stop: agent.StopRefusal, Text: refusal})
		if strings.Contains(err.Error(), refusal) {
			t.Errorf("Error() = %q quotes the model", err.Error())
		}
	})
}

func TestACutToolCallIsNotRun(t *testing.T) {
	ran := 0
	tool := agent.NewTool("lookup", "Looks up the weather of a city.", func(_ context.Context, in lookupArgs) (string, error) {
		ran++
		return `{"tempC":21}`, nil
	})
	m := agenttest.NewModel(t,
		agenttest.CallTools(
			agenttest.Call("c1", "lookup", `{"city":"Paris"}`),
			agenttest.Call("c2", "lookup", `{"city":"Pa"}`), // the API's best parse of a cut call
		).WithStop(agent.StopLength),
		agenttest.Reply(valid),
	)
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithTools(tool))

	if _, err := a.Run(t.Context(), "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	if ran != 0 {
		t.Errorf("the tool ran %d times, want 0", ran)
	}
	msgs := m.Requests()[1].Messages
	tools := msgs[len(msgs)-2:]
	for i, id := range []string{"c1", "c2"} {
		if got := tools[i]; got.Role != agent.RoleTool || got.ToolCallID != id || !strings.Contains(got.Content, "truncated") {
			t.Errorf("message for %s = %+v, want a tool error saying the call was truncated", id, got)
		}
	}
}

// A reply cut at the output limit is not mended out of prose: what the
// model was still writing after its value (a correction, a second thought)
// is unknown, so a second reading cannot be ruled out (issue 42). The model
// is asked again.
func TestATruncatedAnswerIsNotTakenOutOfProse(t *testing.T) {
	for _, given := range []string{
		`{"city":"Paris","tempC":21}` + "\n\nWait, that's wrong. Corrected: {\"city\":\"Lyon\"",
		`{"city":"Paris","tempC":21}` + "\n\nActually no. The correct JSON is: ```json\n{\"city\":\"Lyon\"",
		`{"city":"Paris","tempC":21}` + "\n\nOn second thought, the",
	} {
		t.Run(given, func(t *testing.T) {
			lyon := `{"city":"Lyon","tempC":19}`
			m := agenttest.NewModel(t, agenttest.Reply(given).WithStop(agent.StopLength), agenttest.Reply(lyon))
			a := agent.New(m, agent.WithOutputRetries(1), agent.WithRepairs(enforce.AllRepairs))

			w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Lyon?")
			if err != nil {
				t.Fatal(err)
			}
			if want := (Weather{City: "Lyon", TempC: 19}); w != want {
				t.Errorf("value = %+v, want %+v (the answer asked for again)", w, want)
			}
			if got, want := truncatedRows(res.Attempts), []bool{true, false}; !reflect.DeepEqual(got, want) {
				t.Errorf("rows' Truncated = %v, want %v", got, want)
			}
		})
	}
}
