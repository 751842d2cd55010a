package enforce_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// One answer's judging asks a rule once per value: the answer as it
// stands, the model's own and each rewrite share the member it judges.
func TestARuleIsAskedOncePerValueOfAnAnswer(t *testing.T) {
	var asked atomic.Int32
	city := enforce.NewValidator("about-paris", func(_ context.Context, c string, _ enforce.Try) ([]enforce.Issue, error) {
		asked.Add(1)
		if c != "Paris" {
			return []enforce.Issue{{Message: c + " is not Paris"}}, nil
		}
		return nil, nil
	}).At("/city")
	s, err := enforce.CompileSchema([]byte(`{"type":"object","properties":{"city":{"type":"string"},"tempC":{"type":"number"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s, err = s.WithValidators(city); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		given     string
		rewrites  []enforce.Rewrite
		wantAsked int32
		wantOut   enforce.Outcome
		brokenBy  string
	}{
		{"a rewrite beside the member: Lyon once", `{"city":"Lyon","tempC":21}`,
			[]enforce.Rewrite{{By: "round", Text: `{"city":"Lyon","tempC":22}`}}, 1, enforce.OutcomeRetried, ""},
		{"a rewrite of the member: Lyon once, Paris once", `{"city":"Paris","tempC":21}`,
			[]enforce.Rewrite{{By: "swap", Text: `{"city":"Lyon","tempC":21}`}}, 2, enforce.OutcomeExhausted, "swap"},
		{"two rewrites to the same member: Lyon once, Paris once", `{"city":"Paris","tempC":21}`,
			[]enforce.Rewrite{{By: "round", Text: `{"city":"Paris","tempC":22}`}, {By: "swap", Text: `{"city":"Lyon","tempC":22}`}}, 2, enforce.OutcomeExhausted, "swap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked.Store(0)
			l, err := enforce.NewLedger(s, 1)
			if err != nil {
				t.Fatal(err)
			}
			v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: tt.given, Rewrites: tt.rewrites})
			if v.Row.Outcome != tt.wantOut || v.Row.BrokenBy != tt.brokenBy {
				t.Fatalf("row = %+v, want %s broken by %q", v.Row, tt.wantOut, tt.brokenBy)
			}
			if got := asked.Load(); got != tt.wantAsked {
				t.Errorf("the rule was asked %d times, want %d", got, tt.wantAsked)
			}
		})
	}
}

// StopAfter is asked once the rules have judged a failing answer: its
// reason stops the run instead of a correction.
func TestStopAfterIsAskedOnceTheRulesHaveJudged(t *testing.T) {
	ruled := false
	rule := enforce.NewValidator("no", func(context.Context, any, enforce.Try) ([]enforce.Issue, error) {
		ruled = true
		return []enforce.Issue{{Message: "no"}}, nil
	})
	s, err := enforce.CompileSchema([]byte(`{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s, err = s.WithValidators(rule); err != nil {
		t.Fatal(err)
	}
	l, _ := enforce.NewLedger(s, 2)
	v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: `{}`, StopAfter: func() enforce.Reason {
		if !ruled {
			t.Error("StopAfter was asked before the rule judged")
		}
		return enforce.ReasonMoneyBudget
	}})
	if v.Row.Outcome != enforce.OutcomeExhausted || v.Row.Reason != enforce.ReasonMoneyBudget || v.Corrective != "" {
		t.Errorf("row = %+v, want exhausted with money-budget and no correction", v.Row)
	}
}
