package enforce_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

func TestADegenerateCutIsRecordedAtItsOwnStageWithItsOwnCorrection(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(`{"type":"object","required":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := enforce.NewLedger(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	cut := &enforce.Cut{Verdict: enforce.Degenerate("more than 64 whitespace bytes in a row"), Bytes: 70}
	v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: "{" + strings.Repeat("\n", 69), Cut: cut})
	if v.Row.Outcome != enforce.OutcomeRetried || v.Row.Stage != enforce.StageDegenerate || v.Row.Cut == nil || v.Row.Cut.Bytes != 70 {
		t.Fatalf("row %+v, want retried at stage degenerate, cut after 70 bytes", v.Row)
	}
	for _, want := range []string{"degenerated", "Stage: degenerate", `"more than 64 whitespace bytes in a row"`} {
		if !strings.Contains(v.Corrective, want) {
			t.Errorf("corrective %q does not say %q", v.Corrective, want)
		}
	}
	if strings.Contains(v.Corrective, "could no longer satisfy") {
		t.Errorf("corrective %q says the answer broke the format: it degenerated", v.Corrective)
	}
	v = l.Judge(context.Background(), enforce.Answer{Iteration: 2, Given: "{", Cut: cut})
	var oe *enforce.OutputError
	if !errors.As(v.Err, &oe) || oe.Stage != enforce.StageDegenerate || !errors.Is(v.Err, enforce.ErrExhausted) {
		t.Errorf("err = %v, want an OutputError at stage degenerate, exhausted", v.Err)
	}
}

func TestAnAnswerStoppedForTheCallersReasonIsExhaustedWithIt(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(`{"type":"object","required":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []enforce.Reason{enforce.ReasonTokenBudget, enforce.ReasonRequestBudget, enforce.ReasonMoneyBudget} {
		t.Run(string(r), func(t *testing.T) {
			l, err := enforce.NewLedger(s, 3)
			if err != nil {
				t.Fatal(err)
			}
			v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: `{}`, Stop: r, Provider: "openai", Model: "gpt-4o-mini"})
			if v.Row.Outcome != enforce.OutcomeExhausted || v.Row.Reason != r || v.Corrective != "" || l.RetriesLeft() != 3 {
				t.Errorf("row %+v, want exhausted with reason %q and retries unspent", v.Row, r)
			}
			if v.Row.Provider != "openai" || v.Row.Model != "gpt-4o-mini" {
				t.Errorf("row names %q/%q, want the answer's model", v.Row.Provider, v.Row.Model)
			}
			if !errors.Is(v.Err, enforce.ErrBudget) {
				t.Errorf("err = %v, want it to match ErrBudget", v.Err)
			}
			if v := l.Judge(context.Background(), enforce.Answer{Iteration: 2, Given: `{"a":1}`, Stop: r}); v.Row.Outcome != enforce.OutcomePassed {
				t.Errorf("a passing answer's row %+v, want passed whatever Stop says", v.Row)
			}
		})
	}
}
