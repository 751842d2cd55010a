package otel_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// ruleEvents are the run span's enforcer.rule events, each as its
// attributes.
func ruleEvents(s tracetest.SpanStub) []map[string]string {
	var out []map[string]string
	for _, e := range s.Events {
		if e.Name != "enforcer.rule" {
			continue
		}
		m := map[string]string{}
		for _, kv := range e.Attributes {
			m[string(kv.Key)] = kv.Value.Emit()
		}
		out = append(out, m)
	}
	return out
}

func TestEveryRulesVerdictIsAnEventOnTheRunSpan(t *testing.T) {
	tp, exp := traced(t)
	lyon := `{"city":"Lyon","tempC":21}`
	paris := enforce.NewValidator("about-zanzibar", func(_ context.Context, w Weather, _ enforce.Try) ([]enforce.Issue, error) {
		if w.City != "Zanzibar" {
			return []enforce.Issue{{Path: "/city", Message: "not Zanzibar"}}, nil
		}
		return nil, nil
	})
	m := agenttest.NewModel(t, agenttest.Reply(lyon), agenttest.Reply(valid))
	a := newAgent(t, tp, m, agent.WithOutputRetries(1), agent.WithValidators(paris),
		agent.WithInputRules(enforce.ForbiddenWords("words", "weather").OnFail(enforce.PolicyWarn)))
	if _, err := a.Run(t.Context(), prompt); err != nil {
		t.Fatal(err)
	}
	got := ruleEvents(span(t, exp.GetSpans(), "invoke_agent"))
	reason := `not Zanzibar`
	want := []map[string]string{
		{"enforcer.rule.name": "about-zanzibar", "enforcer.rule.verdict": "failed", "enforcer.rule.on": "answer", "enforcer.rule.attempt": "1",
			"enforcer.rule.path": "/city", "enforcer.rule.reason.length": fmt.Sprint(len(reason)), "enforcer.rule.reason.hash": fnv.Hex32a(reason)},
		{"enforcer.rule.name": "about-zanzibar", "enforcer.rule.verdict": "passed", "enforcer.rule.on": "answer", "enforcer.rule.attempt": "2"},
		{"enforcer.rule.name": "words", "enforcer.rule.verdict": "warned", "enforcer.rule.on": "input",
			"enforcer.rule.reason.length": fmt.Sprint(len(`forbidden word "weather"`)), "enforcer.rule.reason.hash": fnv.Hex32a(`forbidden word "weather"`)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("enforcer.rule events:\n%v\nwant\n%v", got, want)
	}
}
