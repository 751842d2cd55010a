package enforce_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
)

// fatal calls runtime.Goexit, as t.FailNow and testify's require.* do
// when a test's assertion fails inside a validator.
var fatal = enforce.NewValidator("fatal", func(context.Context, any, enforce.Try) ([]enforce.Issue, error) {
	runtime.Goexit()
	return nil, nil
})

func TestAValidatorThatCallsGoexitGivesAValidatorErrorWithAndWithoutACancellableContext(t *testing.T) {
	cancellable, cancel := context.WithCancel(context.Background()) // never ends: a hang would not be cut short
	defer cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{
		{"a context without a Done channel", context.Background()},
		{"a cancellable context", cancellable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			s := withValidators(t, mustCompile(t, skuSchema), fatal)
			returned := false
			err := s.Judge(tc.ctx, enforce.Answer{Given: `{"sku": "A-1", "qty": 1}`})
			returned = true // Goexit on this goroutine would never get here
			var ve *enforce.ValidatorError
			if !errors.As(err, &ve) || ve.Name != "fatal" || ve.Panic != nil || !strings.Contains(ve.Error(), "runtime.Goexit") {
				t.Errorf("Schema.Judge = %v, want a *ValidatorError naming fatal and runtime.Goexit", err)
			}
			l, err := enforce.NewLedger(s, 2)
			if err != nil {
				t.Fatal(err)
			}
			v := l.Judge(tc.ctx, enforce.Answer{Iteration: 1, Given: `{"sku": "A-1", "qty": 1}`})
			if !errors.As(v.Err, &ve) || v.Row.Reason != enforce.ReasonValidatorFailed || l.RetriesLeft() != 2 {
				t.Errorf("Ledger.Judge = %+v, want a *ValidatorError, the row exhausted as validator-failed, no retry spent", v)
			}
			if !returned {
				t.Fatal("unreachable")
			}
			// The validator's goroutine ends with its Goexit; give the
			// scheduler a bounded chance to retire it.
			for bound := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(bound); {
				runtime.Gosched()
			}
			if after := runtime.NumGoroutine(); after > before {
				t.Errorf("%d goroutines after judging, %d before: the validator's goroutine leaked", after, before)
			}
		})
	}
}
