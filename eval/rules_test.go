package eval_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

func TestLiveCountsEachRulesPassRate(t *testing.T) {
	// "lima" first leaves tempC out (no rule is asked of it), then
	// passes; the rule warns of Oslo on every passing answer.
	rep, err := eval.Live(t.Context(), strings.NewReader(liveDataset("oslo", "lima")), eval.LiveOptions{
		Model: scripted("m"),
		Agent: []agent.Option{agent.WithOutputRetries(1),
			agent.WithValidators(enforce.ForbiddenWords("no-oslo", "Oslo").OnFail(enforce.PolicyWarn)),
			agent.WithInputRules(enforce.ForbiddenWords("no-lima", "lima"))},
	})
	if err == nil && len(rep.Groups) != 1 {
		t.Fatalf("groups = %+v", rep.Groups)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := []eval.RuleRate{
		{Rule: "no-lima", On: "input", Asked: 2, Passed: 1, Failed: 1},
		{Rule: "no-oslo", On: "answer", Asked: 1, Passed: 0, Warned: 1},
	}
	if got := rep.Groups[0].Rules; !reflect.DeepEqual(got, want) {
		t.Errorf("Rules = %+v, want %+v", got, want)
	}
	var page bytes.Buffer
	if err := eval.WriteHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `<tr data-rule="no-lima" data-of="input"><td>no-lima</td><td>input</td><td class="n">2</td><td class="n" data-rate="passed">1 (50.0%)</td>`) {
		t.Errorf("the page has no rules table for the group:\n%s", page.String())
	}
}

func TestOfflineCountsTheRulesASavedRunRecorded(t *testing.T) {
	res := agent.Result{
		Messages:   []agent.Message{{Role: agent.RoleUser, Content: "q"}, {Role: agent.RoleAssistant, Content: `{"city":"Oslo","tempC":3}`}},
		InputRules: []enforce.Ruling{{Rule: "no-cards", Verdict: enforce.RulePassed}},
		Attempts: []enforce.Attempt{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomePassed,
			Rules: &enforce.Rulings{{Rule: "about-oslo", Verdict: enforce.RuleFailed, Reason: "r"}}}},
	}
	saved, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	line := `{"model":"m","schema":` + cityJSON + `,"result":` + string(saved) + "}\n"
	rep, err := eval.Offline(t.Context(), strings.NewReader(line+line), eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []eval.RuleRate{
		{Rule: "no-cards", On: "input", Asked: 2, Passed: 2},
		{Rule: "about-oslo", On: "answer", Asked: 2, Failed: 2},
	}
	if got := rep.Groups[0].Rules; !reflect.DeepEqual(got, want) {
		t.Errorf("Rules = %+v, want %+v", got, want)
	}
}
