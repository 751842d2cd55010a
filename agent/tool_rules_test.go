package agent_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// customerLookup answers every call with a customer's record.
var customerLookup = agent.NewTool("lookup", "Looks a customer up.", func(context.Context, struct{ ID string }) (string, error) {
	return "Jane Roe, jane.roe@example.org, paid with Globex", nil
})

// resultRun runs an agent whose tool results are held to rules: the model
// calls customerLookup, then answers.
func resultRun(t *testing.T, rules ...enforce.Validator) (*agent.Result, *agenttest.Model, error) {
	t.Helper()
	m := agenttest.NewModel(t,
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{"ID": "7"}`)),
		agenttest.Reply("done"),
	)
	a := agent.New(m, agent.WithTools(customerLookup), agent.WithToolResultRules(rules...))
	res, err := a.Run(t.Context(), "Who is customer 7?")
	return res, m, err
}

// toolMessage is the tool message the model was given in its second request.
func toolMessage(t *testing.T, m *agenttest.Model) string {
	t.Helper()
	reqs := m.Requests()
	msgs := reqs[len(reqs)-1].Messages
	for _, msg := range msgs {
		if msg.Role == agent.RoleTool {
			return msg.Content
		}
	}
	t.Fatal("no tool message")
	return ""
}

func TestToolResultRules(t *testing.T) {
	t.Run("a rule that retries withholds the result, with a note naming it", func(t *testing.T) {
		res, m, err := resultRun(t, enforce.PII("personal", enforce.PIIEmail))
		if err != nil {
			t.Fatal(err)
		}
		got := toolMessage(t, m)
		if strings.Contains(got, "jane.roe") || !strings.Contains(got, "personal: holds an email address at byte 10") {
			t.Errorf("the model saw %q, want a note naming the rule and not the result", got)
		}
		want := &enforce.Rulings{{Rule: "personal", Verdict: enforce.RuleFailed, Reason: "holds an email address at byte 10"}}
		if len(res.Calls) != 1 || !reflect.DeepEqual(res.Calls[0].Rules, want) {
			t.Errorf("calls = %+v, want the rule's verdict on the call's row", res.Calls)
		}
	})
	t.Run("a fix gives the model the fixed result", func(t *testing.T) {
		masked := enforce.ForbiddenWords("competitors", "Globex").Fix(func(_ context.Context, v any, _ []enforce.Issue) (any, error) {
			return strings.ReplaceAll(v.(string), "Globex", "a card"), nil
		})
		res, m, err := resultRun(t, masked)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := toolMessage(t, m), "Jane Roe, jane.roe@example.org, paid with a card"; got != want {
			t.Errorf("the model saw %q, want %q", got, want)
		}
		if got := (*res.Calls[0].Rules)[0].Verdict; got != enforce.RuleFixed {
			t.Errorf("verdict = %s, want fixed", got)
		}
	})
	t.Run("a warning lets the result through, recorded", func(t *testing.T) {
		res, m, err := resultRun(t, enforce.ForbiddenWords("competitors", "Globex").OnFail(enforce.PolicyWarn))
		if err != nil {
			t.Fatal(err)
		}
		if got := toolMessage(t, m); !strings.Contains(got, "Globex") {
			t.Errorf("the model saw %q, want the result as it is", got)
		}
		if got := (*res.Calls[0].Rules)[0].Verdict; got != enforce.RuleWarned {
			t.Errorf("verdict = %s, want warned", got)
		}
	})
	t.Run("a tripwire ends the run before the model sees the result", func(t *testing.T) {
		m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "lookup", `{"ID": "7"}`)))
		a := agent.New(m, agent.WithTools(customerLookup), agent.WithToolResultRules(
			enforce.ForbiddenWords("competitors", "Globex").OnFail(enforce.PolicyTripwire)))
		res, err := a.Run(t.Context(), "Who is customer 7?")
		var ie *agent.InputRuleError
		if !errors.Is(err, enforce.ErrTripwire) || !errors.As(err, &ie) || ie.Rule != "competitors" || ie.Tool != "lookup" || ie.CallID != "c1" {
			t.Fatalf("err = %#v, want an *agent.InputRuleError naming the rule, the tool and the call", err)
		}
		for _, msg := range res.Messages {
			if msg.Role == agent.RoleTool {
				t.Errorf("the conversation holds the tool message %q", msg.Content)
			}
		}
		if got := (*res.Calls[0].Rules)[0].Verdict; got != enforce.RuleTripped {
			t.Errorf("verdict = %s, want tripped", got)
		}
	})
	t.Run("a clean result passes as it is", func(t *testing.T) {
		res, m, err := resultRun(t, enforce.PII("cards", enforce.PIICard))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := toolMessage(t, m), "Jane Roe, jane.roe@example.org, paid with Globex"; got != want {
			t.Errorf("the model saw %q, want %q", got, want)
		}
		if want := (&enforce.Rulings{{Rule: "cards", Verdict: enforce.RulePassed}}); !reflect.DeepEqual(res.Calls[0].Rules, want) {
			t.Errorf("rules = %+v, want %+v", res.Calls[0].Rules, want)
		}
	})
}

func TestToolResultRulesWithholdAResultTooLongToJudge(t *testing.T) {
	huge := agent.NewTool("dump", "Dumps a table.", func(context.Context, struct{}) (string, error) {
		return strings.Repeat("row ", enforce.MaxAnswerBytes/4+1), nil
	})
	m := agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", "dump", `{}`)), agenttest.Reply("done"))
	a := agent.New(m, agent.WithTools(huge), agent.WithToolResultRules(enforce.PII("personal")))
	if _, err := a.Run(t.Context(), "Dump it."); err != nil {
		t.Fatal(err)
	}
	if got := toolMessage(t, m); len(got) > 1000 || !strings.Contains(got, "too long to be judged") {
		t.Errorf("the model saw %d bytes (%.80q…), want a note that the result was withheld", len(got), got)
	}
}
