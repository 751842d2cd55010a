package otel_test

import (
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
)

// chainModel is a scripted model that names itself as an adapter does.
type chainModel struct {
	*agenttest.Model
	provider, name string
}

func (m chainModel) ProviderName() string { return m.provider }
func (m chainModel) ModelName() string    { return m.name }

func TestEachAttemptEventNamesTheModelThatWroteIt(t *testing.T) {
	tp, exp := traced(t)
	cheap := chainModel{agenttest.NewModel(t, agenttest.Reply(`{"city":"Paris"}`)), "openai", "gpt-4o-mini"}
	strong := chainModel{agenttest.NewModel(t, agenttest.Reply(`{"city":"Paris","tempC":18}`)), "anthropic", "claude-sonnet-4-5"}
	a := newAgent(t, tp, cheap, agent.WithOutputRetries(1),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{strong}, AfterFailures: 1}))
	if _, _, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	run := span(t, exp.GetSpans(), "invoke_agent")
	var got []string
	for _, e := range run.Events {
		if e.Name != "enforcer.attempt" {
			continue
		}
		var provider, model string
		for _, kv := range e.Attributes {
			switch kv.Key {
			case "enforcer.attempt.provider":
				provider = kv.Value.AsString()
			case "enforcer.attempt.model":
				model = kv.Value.AsString()
			}
		}
		got = append(got, provider+"/"+model)
	}
	if want := []string{"openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5"}; !slices.Equal(got, want) {
		t.Errorf("attempt events name %v, want %v", got, want)
	}
}
