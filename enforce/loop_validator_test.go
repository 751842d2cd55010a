package enforce_test

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// Loop is the third entry point for validators, after agent.Run and
// agent.RunTyped: a validator's verdict ends or continues it exactly as
// a ledger's row says.
func TestLoopWithValidators(t *testing.T) {
	oldSKU := enforce.NewValidator("discontinued", func(_ context.Context, o order, _ enforce.Try) ([]enforce.Issue, error) {
		if o.SKU == "OLD-1" {
			return []enforce.Issue{{Path: "/sku", Message: "OLD-1 is discontinued"}}, enforce.ErrBeyondRepair
		}
		return nil, nil
	})
	down := errors.New("catalogue service unavailable")
	tests := []struct {
		name     string
		v        enforce.Validator
		answers  []string
		want     []enforce.Outcome
		reason   enforce.Reason // of the last row
		wantErr  error          // matched with errors.Is
		wantVErr bool           // a *ValidatorError
	}{
		{"issues are corrected", catalogue, []string{`{"sku": "Z-9", "qty": 1}`, `{"sku": "A-1", "qty": 1}`},
			[]enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}, "", nil, false},
		{"beyond repair stops at once", oldSKU, []string{`{"sku": "OLD-1", "qty": 1}`},
			[]enforce.Outcome{enforce.OutcomeExhausted}, enforce.ReasonBeyondRepair, enforce.ErrBeyondRepair, false},
		{"a failing validator stops with a ValidatorError", enforce.NewValidator("catalogue", func(context.Context, order, enforce.Try) ([]enforce.Issue, error) {
			return nil, down
		}), []string{`{"sku": "A-1", "qty": 1}`}, []enforce.Outcome{enforce.OutcomeExhausted}, enforce.ReasonValidatorFailed, down, true},
		{"a panicking validator stops with a ValidatorError", enforce.NewValidator("catalogue", func(context.Context, order, enforce.Try) ([]enforce.Issue, error) {
			panic("bug")
		}), []string{`{"sku": "A-1", "qty": 1}`}, []enforce.Outcome{enforce.OutcomeExhausted}, enforce.ReasonValidatorFailed, nil, true},
		{"a validator that calls runtime.Goexit stops with a ValidatorError", enforce.NewValidator("catalogue", func(context.Context, order, enforce.Try) ([]enforce.Issue, error) {
			runtime.Goexit()
			return nil, nil
		}), []string{`{"sku": "A-1", "qty": 1}`}, []enforce.Outcome{enforce.OutcomeExhausted}, enforce.ReasonValidatorFailed, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &script{answers: tt.answers}
			_, rows, err := enforce.Loop(t.Context(), withValidators(t, mustCompile(t, skuSchema), tt.v), 3, m.produce)
			if got := outcomes(rows); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outcomes = %v, want %v", got, tt.want)
			}
			if got := rows[len(rows)-1].Reason; got != tt.reason {
				t.Errorf("last row's Reason = %q, want %q", got, tt.reason)
			}
			if len(m.saw) != len(tt.answers) {
				t.Errorf("produce called %d times, want %d", len(m.saw), len(tt.answers))
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want one matching %v", err, tt.wantErr)
			}
			var ve *enforce.ValidatorError
			if got := errors.As(err, &ve); got != tt.wantVErr {
				t.Errorf("err = %v: a *ValidatorError: %v, want %v", err, got, tt.wantVErr)
			}
			if tt.wantErr == nil && !tt.wantVErr && err != nil {
				t.Errorf("err = %v, want nil", err)
			}
		})
	}
}
