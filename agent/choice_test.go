package agent_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

type Sentiment string

const (
	Positive Sentiment = "positive"
	Negative Sentiment = "negative"
)

func sentiment(t testing.TB) *enforce.Schema {
	t.Helper()
	s, err := enforce.Choice(
		enforce.Label{Name: "positive", Description: "the review is favourable"},
		enforce.Label{Name: "negative", Description: "the review is unfavourable"},
		enforce.Label{Name: "neutral"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// lastUser is the last user or tool message a request carries: the
// corrective turn, after a failed answer.
func lastUser(req agent.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == agent.RoleUser || m.Role == agent.RoleTool {
			return m.Content
		}
	}
	return ""
}

func TestRunChoiceCorrectsANearMissWithoutTheRepair(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("Positive."), agenttest.Reply("positive"))
	a := agent.New(m, agent.WithOutputSchema(sentiment(t)), agent.WithOutputRetries(2))
	got, res, err := agent.RunChoice[Sentiment](t.Context(), a, "Great food, slow service, would return.")
	if err != nil {
		t.Fatal(err)
	}
	if got != Positive {
		t.Errorf("label = %q, want positive", got)
	}
	first := res.Attempts[0]
	if first.Outcome != enforce.OutcomeRetried || first.Stage != enforce.StageSchemaValidate || first.Kind != enforce.KindChoice || first.Repaired != 0 {
		t.Fatalf("first row %+v, want retried at schema-validate, kind choice, not repaired", first)
	}
	corrective := lastUser(m.Requests()[1])
	for _, want := range []string{`The labels are: "positive", "negative", "neutral".`, "Reply with only one of the labels"} {
		if !strings.Contains(corrective, want) {
			t.Errorf("corrective %q does not say %q", corrective, want)
		}
	}
	if res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Errorf("second row %+v", res.Attempts[1])
	}
}

func TestRunChoiceMendsANearMissWithTheRepair(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply(" Positive.\n"))
	a := agent.New(m, agent.WithOutputSchema(sentiment(t)), agent.WithOutputRetries(2), agent.WithRepairs(enforce.RepairLabel))
	got, res, err := agent.RunChoice[Sentiment](t.Context(), a, "Great food.")
	if err != nil {
		t.Fatal(err)
	}
	if got != Positive || res.Output != "positive" || m.Calls() != 1 {
		t.Errorf("label %q, output %q after %d calls; want positive after one", got, res.Output, m.Calls())
	}
	if row := res.Attempts[0]; row.Outcome != enforce.OutcomePassed || row.Repaired != enforce.RepairLabel {
		t.Errorf("row %+v, want passed, repaired by label", row)
	}
	if msg := res.Messages[len(res.Messages)-1]; msg.Content != " Positive.\n" {
		t.Errorf("the conversation keeps %q, want the model's own text", msg.Content)
	}
	// Without retries, the near-miss is read as its label too, and
	// Output is the mended label, as with rows.
	m2 := agenttest.NewModel(t, agenttest.Reply("NEGATIVE"))
	if got, res, err := agent.RunChoice[Sentiment](t.Context(), agent.New(m2, agent.WithOutputSchema(sentiment(t)), agent.WithRepairs(enforce.RepairLabel)), "Awful."); err != nil || got != Negative || res.Output != "negative" {
		t.Errorf("without retries: %q, %v, output %q; want negative", got, err, res.Output)
	}
}

func TestRunChoiceAsksInTheModesOwnWay(t *testing.T) {
	t.Run("prompted: the labels in words, the object form for a native mode", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.Reply("neutral"))
		if _, _, err := agent.RunChoice[Sentiment](t.Context(), agent.New(m, agent.WithOutputSchema(sentiment(t))), "Fine."); err != nil {
			t.Fatal(err)
		}
		req := m.Requests()[0]
		if sys := req.Messages[0].Content; !strings.Contains(sys, `- "positive": the review is favourable`) || strings.Contains(sys, "JSON Schema") {
			t.Errorf("system message %q", sys)
		}
		if js := string(req.OutputSchema); !strings.Contains(js, `"enum":["positive","negative","neutral"]`) || !strings.Contains(js, `"required":["label"]`) {
			t.Errorf("OutputSchema %s, want the object form with the labels as an enum", js)
		}
	})
	t.Run("tool: a call whose parameters hold the labels as an enum", func(t *testing.T) {
		m := agenttest.NewModel(t,
			agenttest.CallTools(agenttest.Call("c1", "classify", `{"label":"pos"}`)),
			agenttest.CallTools(agenttest.Call("c2", "classify", `{"label":"negative"}`)))
		a := agent.New(m, agent.WithOutputSchema(sentiment(t)), agent.WithOutputTool("classify"), agent.WithOutputRetries(1))
		got, res, err := agent.RunChoice[Sentiment](t.Context(), a, "Awful.")
		if err != nil || got != Negative {
			t.Fatalf("label %q, %v", got, err)
		}
		if row := res.Attempts[0]; row.Path != "/label" || row.Outcome != enforce.OutcomeRetried {
			t.Errorf("first row %+v, want retried at /label", row)
		}
		req := m.Requests()[0]
		i := slices.IndexFunc(req.Tools, func(s agent.ToolSpec) bool { return s.Name == "classify" })
		if i < 0 || !strings.Contains(string(req.Tools[i].Parameters), `"enum":["positive","negative","neutral"]`) || req.OutputSchema != nil {
			t.Errorf("tools %+v, OutputSchema %s", req.Tools, req.OutputSchema)
		}
		if c := lastUser(m.Requests()[1]); !strings.Contains(c, `Call the tool "classify"`) {
			t.Errorf("corrective %q", c)
		}
	})
}

func TestRunChoiceCutsStreamedProseAtItsFirstByte(t *testing.T) {
	m := agenttest.NewStreamingModel(t,
		agenttest.Reply("The review is clearly positive.").InChunks(3),
		agenttest.Reply("positive").InChunks(3))
	a := agent.New(m, agent.WithOutputSchema(sentiment(t)), agent.WithOutputRetries(1))
	got, res, err := agent.RunChoice[Sentiment](t.Context(), a, "Great.")
	if err != nil || got != Positive {
		t.Fatalf("label %q, %v", got, err)
	}
	if row := res.Attempts[0]; row.Cut == nil || row.Cut.Bytes != 1 || row.Kind != enforce.KindChoice {
		t.Errorf("first row %+v, want cut after 1 byte", row)
	}
	if c := m.Consumed(); c[0].Chunks != 1 {
		t.Errorf("read %d chunks of the prose, want 1", c[0].Chunks)
	}
}

func TestRunMultiLabelReturnsTheSetInOrder(t *testing.T) {
	topics, err := enforce.MultiLabel(enforce.Label{Name: "billing"}, enforce.Label{Name: "urgent"}, enforce.Label{Name: "bug"})
	if err != nil {
		t.Fatal(err)
	}
	m := agenttest.NewModel(t, agenttest.Reply(`["urgent", "Billing"]`))
	got, res, err := agent.RunMultiLabel[string](t.Context(), agent.New(m, agent.WithOutputSchema(topics), agent.WithOutputRetries(1), agent.WithRepairs(enforce.RepairLabel)), "I was charged twice!")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"urgent", "billing"}) || res.Attempts[0].Kind != enforce.KindMultiLabel {
		t.Errorf("labels %q, row %+v", got, res.Attempts[0])
	}
	var back []string
	if json.Unmarshal([]byte(res.Output), &back) != nil || !slices.Equal(back, got) {
		t.Errorf("Output %q, want the mended array", res.Output)
	}
}

func TestRunChoiceRefusesAnAgentWithoutAChoice(t *testing.T) {
	m := agenttest.NewModel(t)
	_, _, err := agent.RunChoice[Sentiment](t.Context(), agent.New(m, agent.WithOutputSchema(weatherSchema(t))), "?")
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("RunChoice = %v, want ErrInvalidOption", err)
	}
	multi, _ := enforce.MultiLabel(enforce.Label{Name: "a"})
	if _, _, err := agent.RunChoice[string](t.Context(), agent.New(m, agent.WithOutputSchema(multi)), "?"); !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("RunChoice of a multi-label = %v, want ErrInvalidOption", err)
	}
	if _, _, err := agent.RunTyped[string](t.Context(), agent.New(m, agent.WithOutputSchema(sentiment(t))), "?"); !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("RunTyped of a choice = %v, want ErrInvalidOption", err)
	}
}

func TestRunChoiceUnderAutoOutputModeAnswersByTheOutputTool(t *testing.T) {
	m := &reporting{Model: agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", answerTool, `{"label": "positive"}`))), modes: agent.Modes{Tools: true}}
	got, res, err := agent.RunChoice[Sentiment](t.Context(), agent.New(m, agent.WithOutputSchema(sentiment(t)), agent.WithAutoOutputMode(answerTool), agent.WithOutputRetries(1)), "Lovely.")
	if err != nil || got != Positive {
		t.Fatalf("RunChoice = %q, %v", got, err)
	}
	if mode := modeSent(m.Requests()[0]); mode != agent.ModeTool || res.Attempts[0].Mode != string(agent.ModeTool) || res.Attempts[0].Kind != enforce.KindChoice {
		t.Errorf("sent %s, row %+v; want tool mode, a choice's row", mode, res.Attempts[0])
	}
}
