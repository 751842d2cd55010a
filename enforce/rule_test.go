package enforce_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// bigOrder fails an order of more than 5 at /qty.
func bigOrder(name string) enforce.Validator {
	return enforce.NewValidator(name, func(_ context.Context, o order, _ enforce.Try) ([]enforce.Issue, error) {
		if o.Qty > 5 {
			return []enforce.Issue{{Path: "/qty", Message: "more than 5"}}, nil
		}
		return nil, nil
	})
}

func TestRulePolicies(t *testing.T) {
	const big = `{"sku":"A-1","qty":9}`
	tests := []struct {
		name    string
		rule    enforce.Validator
		outcome enforce.Outcome
		reason  enforce.Reason
		verdict enforce.RuleVerdict
	}{
		{"a rule that retries fails the answer and asks again", bigOrder("big"), enforce.OutcomeRetried, "", enforce.RuleFailed},
		{"a tripwire ends the run at once, retries unspent", bigOrder("big").OnFail(enforce.PolicyTripwire), enforce.OutcomeExhausted, enforce.ReasonTripwire, enforce.RuleTripped},
		{"a warning is recorded and the answer accepted", bigOrder("big").OnFail(enforce.PolicyWarn), enforce.OutcomePassed, "", enforce.RuleWarned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := orderLedger(t, 2, tt.rule, catalogue)
			v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: big})
			if got, want := v.Row.Outcome, tt.outcome; got != want {
				t.Fatalf("outcome = %s, want %s", got, want)
			}
			if got, want := v.Row.Reason, tt.reason; got != want {
				t.Errorf("reason = %q, want %q", got, want)
			}
			want := []enforce.Ruling{
				{Rule: "big", Verdict: tt.verdict, Path: "/qty", Reason: "more than 5"},
				{Rule: "catalogue", Verdict: enforce.RulePassed},
			}
			if got := rules(v.Row); !reflect.DeepEqual(got, want) {
				t.Errorf("rules = %+v, want %+v", got, want)
			}
		})
	}
}

func TestTripwireError(t *testing.T) {
	l := orderLedger(t, 3, bigOrder("big").OnFail(enforce.PolicyTripwire))
	v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku":"A-1","qty":9}`})
	var oe *enforce.OutputError
	if !errors.As(v.Err, &oe) {
		t.Fatalf("err = %v, want *enforce.OutputError", v.Err)
	}
	if !errors.Is(v.Err, enforce.ErrTripwire) || errors.Is(v.Err, enforce.ErrExhausted) {
		t.Errorf("err = %v, want it to match ErrTripwire and not ErrExhausted", v.Err)
	}
	if got, want := oe.Rule, "big"; got != want {
		t.Errorf("OutputError.Rule = %q, want %q", got, want)
	}
	if got := l.RetriesLeft(); got != 3 {
		t.Errorf("retries left = %d, want 3 unspent", got)
	}

	// Without a ledger, Schema.Judge stops the same way.
	s := withValidators(t, mustCompile(t, skuSchema), bigOrder("big").OnFail(enforce.PolicyTripwire))
	err := s.Judge(t.Context(), enforce.Answer{Given: `{"sku":"A-1","qty":9}`})
	if !errors.As(err, &oe) || !errors.Is(err, enforce.ErrTripwire) || oe.Rule != "big" || oe.Reason != enforce.ReasonTripwire {
		t.Errorf("Schema.Judge = %v, want a tripwire of rule big", err)
	}
}

func TestRuleFix(t *testing.T) {
	// clamp sets an order of more than 5 to 5.
	clamp := bigOrder("clamp").At("").Fix(func(_ context.Context, value any, issues []enforce.Issue) (any, error) {
		o := value.(map[string]any)
		o["qty"] = 5
		return o, nil
	})
	l := orderLedger(t, 2, clamp, stock)
	v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku":"A-1","qty":9}`})
	if v.Row.Outcome != enforce.OutcomePassed {
		t.Fatalf("row = %+v, want passed as fixed", v.Row)
	}
	var got order
	if err := json.Unmarshal([]byte(v.Answer), &got); err != nil || got.Qty != 5 {
		t.Errorf("answer = %s (%v), want qty fixed to 5", v.Answer, err)
	}
	want := []enforce.Ruling{
		{Rule: "clamp", Verdict: enforce.RuleFixed, Path: "/qty", Reason: "more than 5"},
		{Rule: "stock", Verdict: enforce.RulePassed}, // judged the fixed answer
	}
	if !reflect.DeepEqual(rules(v.Row), want) {
		t.Errorf("rules = %+v, want %+v", v.Row.Rules, want)
	}

	t.Run("a fix at a member gets and replaces that member", func(t *testing.T) {
		upper := enforce.NewValidator("upper", func(_ context.Context, sku string, _ enforce.Try) ([]enforce.Issue, error) {
			if sku != strings.ToUpper(sku) {
				return []enforce.Issue{{Message: "not upper case"}}, nil
			}
			return nil, nil
		}).At("/sku").Fix(func(_ context.Context, value any, _ []enforce.Issue) (any, error) {
			return strings.ToUpper(value.(string)), nil
		})
		v := orderLedger(t, 2, upper).Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku":"a-1","qty":2}`})
		var got order
		if err := json.Unmarshal([]byte(v.Answer), &got); err != nil || got != (order{SKU: "A-1", Qty: 2}) {
			t.Errorf("answer = %s, want sku A-1", v.Answer)
		}
		if want := []enforce.Ruling{{Rule: "upper", Verdict: enforce.RuleFixed, Path: "/sku", Reason: "not upper case"}}; !reflect.DeepEqual(rules(v.Row), want) {
			t.Errorf("rules = %+v, want %+v", v.Row.Rules, want)
		}
	})

	t.Run("a fix that breaks the schema could not judge", func(t *testing.T) {
		breaks := bigOrder("breaks").Fix(func(context.Context, any, []enforce.Issue) (any, error) { return "nonsense", nil })
		v := orderLedger(t, 2, breaks).Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku":"A-1","qty":9}`})
		var ve *enforce.ValidatorError
		if !errors.As(v.Err, &ve) || ve.Name != "breaks" || v.Row.Reason != enforce.ReasonValidatorFailed {
			t.Errorf("err = %v, row %+v; want the fix's ValidatorError on a validator-failed row", v.Err, v.Row)
		}
	})
}

func TestRulePolicyRefused(t *testing.T) {
	for name, v := range map[string]enforce.Validator{
		"an unknown policy":    catalogue.OnFail("ignore"),
		"fix without its func": catalogue.OnFail(enforce.PolicyFix),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := mustCompile(t, skuSchema).WithValidators(v)
			var se *enforce.SchemaError
			if !errors.As(err, &se) {
				t.Errorf("WithValidators = %v, want a *SchemaError", err)
			}
		})
	}
}

func TestReportCost(t *testing.T) {
	judged := enforce.NewValidator("judged", func(ctx context.Context, _ any, _ enforce.Try) ([]enforce.Issue, error) {
		enforce.ReportCost(ctx, "acme", "judge-1", enforce.Cost{InputTokens: 10, OutputTokens: 2})
		enforce.ReportCost(ctx, "acme", "judge-1", enforce.Cost{InputTokens: 5, OutputTokens: 1, Money: 0.5})
		return []enforce.Issue{{Message: "rude"}}, nil
	})
	v := orderLedger(t, 1, judged).Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku":"A-1","qty":1}`})
	want := []enforce.Ruling{{Rule: "judged", Verdict: enforce.RuleFailed, Reason: "rude", Provider: "acme", Model: "judge-1",
		Cost: enforce.Cost{InputTokens: 15, OutputTokens: 3, Money: 0.5}}}
	if !reflect.DeepEqual(rules(v.Row), want) {
		t.Errorf("rules = %+v, want %+v", v.Row.Rules, want)
	}
	b, _ := json.Marshal(rules(v.Row)[0])
	if got, want := string(b), `{"rule":"judged","verdict":"failed","reason":"rude","provider":"acme","model":"judge-1","inputTokens":15,"outputTokens":3,"money":0.5}`; got != want {
		t.Errorf("ruling JSON = %s, want %s", got, want)
	}
	enforce.ReportCost(t.Context(), "acme", "judge-1", enforce.Cost{InputTokens: 1}) // outside a rule: nothing
}

// rules is the row's rulings, nil when it has none.
func rules(row enforce.Attempt) []enforce.Ruling {
	if row.Rules == nil {
		return nil
	}
	return *row.Rules
}

// withoutRules is row without its rulings, to compare.
func withoutRules(row enforce.Attempt) enforce.Attempt {
	row.Rules = nil
	return row
}

func TestRulesAbsentWithoutValidators(t *testing.T) {
	l, _ := enforce.NewLedger(mustCompile(t, skuSchema), 1)
	v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{"sku":"A-1","qty":1}`})
	if v.Row.Rules != nil {
		t.Errorf("rules = %+v, want none", v.Row.Rules)
	}
	if b, _ := json.Marshal(v.Row); strings.Contains(string(b), "rules") {
		t.Errorf("row JSON %s has rules", b)
	}
}

func TestRuleFixText(t *testing.T) {
	// masked writes each forbidden word as ***; the text's own rules still hold.
	masked := enforce.ForbiddenWords("competitors", "Globex").Fix(func(_ context.Context, value any, _ []enforce.Issue) (any, error) {
		return strings.ReplaceAll(value.(string), "Globex", "***"), nil
	})
	text := func(t *testing.T, rules []enforce.TextRule, vs ...enforce.Validator) *enforce.Ledger {
		t.Helper()
		s, err := enforce.Text(rules...)
		if err != nil {
			t.Fatal(err)
		}
		l, err := enforce.NewLedger(withValidators(t, s, vs...), 2)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	t.Run("a text answer's fix rewrites the text", func(t *testing.T) {
		v := text(t, nil, masked).Judge(t.Context(), enforce.Answer{Iteration: 1, Given: "Ask Globex, or us."})
		if v.Row.Outcome != enforce.OutcomePassed || v.Answer != "Ask ***, or us." {
			t.Fatalf("row %+v, answer %q; want passed as fixed", v.Row, v.Answer)
		}
		if want := []enforce.Ruling{{Rule: "competitors", Verdict: enforce.RuleFixed, Reason: `forbidden word "Globex"`}}; !reflect.DeepEqual(rules(v.Row), want) {
			t.Errorf("rules = %+v, want %+v", v.Row.Rules, want)
		}
	})
	t.Run("a fix that breaks the text's rules could not judge", func(t *testing.T) {
		v := text(t, []enforce.TextRule{enforce.MustNotContain("***")}, masked).Judge(t.Context(), enforce.Answer{Iteration: 1, Given: "Ask Globex."})
		var ve *enforce.ValidatorError
		if !errors.As(v.Err, &ve) || ve.Name != "competitors" {
			t.Errorf("err = %v, want the fix's ValidatorError", v.Err)
		}
	})
	t.Run("a text answer's fix must give text", func(t *testing.T) {
		number := enforce.ForbiddenWords("n", "Globex").Fix(func(context.Context, any, []enforce.Issue) (any, error) { return 7, nil })
		v := text(t, nil, number).Judge(t.Context(), enforce.Answer{Iteration: 1, Given: "Globex"})
		var ve *enforce.ValidatorError
		if !errors.As(v.Err, &ve) || ve.Name != "n" {
			t.Errorf("err = %v, want the fix's ValidatorError", v.Err)
		}
	})
}
