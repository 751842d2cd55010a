package agent_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// leftInReasoning is a reply as vLLM gave it in vllm-project/vllm#48863:
// the JSON answer at the end of reasoning_content, the content empty.
var leftInReasoning = agenttest.Reply("").WithReasoning("The user wants the weather in Paris. In June it is about 21 degrees. So:\n" + valid)

func TestAnAnswerLeftInTheReasoning(t *testing.T) {
	t.Run("with prose repairs, its one value is the answer, and the row says where it came from", func(t *testing.T) {
		m := agenttest.NewModel(t, leftInReasoning)
		a := agent.New(m, agent.WithOutputRetries(1), agent.WithRepairs(enforce.RepairProse))
		w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if w.City != "Paris" || res.Output != valid {
			t.Errorf("answer = %+v, Output = %q, want Paris and %q", w, res.Output, valid)
		}
		r := res.Attempts[0]
		if r.Outcome != enforce.OutcomePassed || r.Thinking == nil || !r.Thinking.Answer || r.Thinking.Inline {
			t.Errorf("row = %+v (thinking %+v), want passed, its answer read from the reasoning", r, r.Thinking)
		}
		if got := lastAssistant(t, res); got.Content != "" {
			t.Errorf("conversation's content = %q, want the model's own, empty", got.Content)
		}
	})

	t.Run("without them, it is no answer, and the correction asks for it in the text", func(t *testing.T) {
		m := agenttest.NewModel(t, leftInReasoning, agenttest.Reply(valid))
		a := agent.New(m, agent.WithOutputRetries(1))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		r := res.Attempts[0]
		if r.Stage != enforce.StageNoAnswer || r.Thinking == nil || !r.Thinking.Answer {
			t.Errorf("first row = %+v (thinking %+v), want no-answer with the answer seen in the reasoning", r, r.Thinking)
		}
		msgs := m.Requests()[1].Messages
		if corr := msgs[len(msgs)-1].Content; !strings.Contains(corr, "reasoning") || !strings.Contains(corr, "give the answer") {
			t.Errorf("corrective = %q, want one asking for the answer in the text, not the reasoning", corr)
		}
	})

	// Each has another reading, or none: no-answer, the value not taken.
	for name, step := range map[string]agenttest.Step{
		"two values in the reasoning": agenttest.Reply("").WithReasoning(`Maybe {"city":"Lyon","tempC":3}? No.` + "\n" + valid),
		"a value that fails":          agenttest.Reply("").WithReasoning(`So: {"city":7,"tempC":21}`),
		"text after the value":        agenttest.Reply("").WithReasoning(valid + " Hmm, let me check June again."),
		"reasoning cut at the limit":  agenttest.Reply("").WithReasoning("So:\n" + valid).WithStop(agent.StopLength),
		"a value inline, not apart":   agenttest.Reply("<think>So:\n" + valid + "</think>"),
	} {
		t.Run("not taken: "+name, func(t *testing.T) {
			m := agenttest.NewModel(t, step)
			a := agent.New(m, agent.WithRepairs(enforce.RepairProse))
			_, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
			var oe *enforce.OutputError
			if !errors.As(err, &oe) || oe.Stage != enforce.StageNoAnswer {
				t.Fatalf("err = %v, want an *enforce.OutputError at no-answer", err)
			}
			if res.Output != "" {
				t.Errorf("Output = %q, want none", res.Output)
			}
		})
	}

	t.Run("the row's JSON says it", func(t *testing.T) {
		m := agenttest.NewModel(t, leftInReasoning)
		_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(0), agent.WithRepairs(enforce.RepairProse)), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Attempts[0].Thinking, (&enforce.Thinking{Bytes: len("The user wants the weather in Paris. In June it is about 21 degrees. So:\n" + valid), Answer: true}); !reflect.DeepEqual(got, want) {
			t.Errorf("Thinking = %+v, want %+v", got, want)
		}
	})
}
