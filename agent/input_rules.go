package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/enforcer-go/enforcer/enforce"
)

// WithInputRules holds each run's input, as the model gets it (after
// act-input middleware, which stays for rewriting), to rules judging it
// as a JSON string. They run beside the first model call; an issue ends
// the run with an *[InputRuleError], cancelling that call if it is still
// in flight, and no reply is acted on before they pass. A rule that warns
// or fixes lets the input through; one that cannot judge ends the run with
// its *enforce.ValidatorError. Rules given twice by name are refused.
func WithInputRules(rules ...enforce.Validator) Option {
	return optionFunc(func(c *config) {
		base := inputContract
		if c.inputRules != nil {
			base = c.inputRules
		}
		s, err := base.WithValidators(rules...)
		if err != nil {
			c.invalid("WithInputRules: %v", err)
			return
		}
		c.inputRules = s
	})
}

// inputContract is what an input is: a string, judged by the rules alone.
var inputContract = func() *enforce.Schema {
	s, err := enforce.CompileSchema([]byte(`{"type": "string"}`))
	if err != nil {
		panic(err)
	}
	return s
}()

// InputRuleError is a run ended by a rule on what the model is given:
// its input ([WithInputRules]), or a tool's result
// ([WithToolResultRules]), when Tool and CallID name the call. Rule
// names the rule and Issues are what it found. It matches
// enforce.ErrTripwire.
type InputRuleError struct {
	Rule   string
	Issues []enforce.Issue
	Tool   string
	CallID string
}

// Error names the rule, the tool if any, and the first issue.
func (e *InputRuleError) Error() string {
	what := "input rule " + e.Rule
	if e.Tool != "" {
		what = fmt.Sprintf("rule %s on the result of tool %s", e.Rule, e.Tool)
	}
	if len(e.Issues) == 0 {
		return "agent: " + what + " tripped"
	}
	return fmt.Sprintf("agent: %s tripped: %s", what, e.Issues[0].Message)
}

// Unwrap returns enforce.ErrTripwire.
func (e *InputRuleError) Unwrap() error { return enforce.ErrTripwire }

// guardInput starts judging in by rules and returns the context of the
// run from here, which ends with the verdict's error when a rule trips;
// wait, which gives the rules' rulings and the verdict once there is
// one; and stop, which ends the judging, called when the run ends.
func guardInput(ctx context.Context, rules *enforce.Schema, in string) (_ context.Context, wait func() ([]enforce.Ruling, error), stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	var verdict error
	var rulings []enforce.Ruling
	go func() {
		defer close(done)
		if rulings, verdict = judgeInput(ctx, rules, in); verdict != nil {
			cancel(verdict) // the first call, if in flight, ends now
		}
	}()
	wait = func() ([]enforce.Ruling, error) {
		<-done
		return rulings, verdict
	}
	stop = func() {
		cancel(context.Canceled)
		<-done
	}
	return ctx, wait, stop
}

// judgeInput is the rules' rulings on in, in order, and their verdict:
// nil, an *InputRuleError, or why they could not judge it.
func judgeInput(ctx context.Context, rules *enforce.Schema, in string) ([]enforce.Ruling, error) {
	given, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	// A ledger of one row, for its rulings: the input has no retries.
	l, err := enforce.NewLedger(rules, 0)
	if err != nil {
		return nil, err
	}
	v := l.Judge(ctx, enforce.Answer{Iteration: 1, Given: string(given)})
	var rulings []enforce.Ruling
	if v.Row.Rules != nil {
		rulings = *v.Row.Rules
	}
	err = v.Err
	var ce *enforce.CheckError
	if !errors.As(err, &ce) || len(ce.Issues) == 0 {
		return rulings, err
	}
	rule := ce.Issues[0].Keyword
	var oe *enforce.OutputError
	if errors.As(err, &oe) && oe.Rule != "" {
		rule = oe.Rule
	}
	var issues []enforce.Issue
	for _, is := range ce.Issues {
		if is.Keyword == rule {
			issues = append(issues, is)
		}
	}
	if issues == nil {
		issues = ce.Issues
	}
	return rulings, &InputRuleError{Rule: rule, Issues: issues}
}
