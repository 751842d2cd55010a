package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
)

// WithToolResultRules holds each tool's result, before the model sees
// it, to rules judging it as a JSON string, each by its policy: retry
// (the default) withholds the result, and the model gets a note naming
// the rule and its issues instead; a tripwire ends the run with an
// *[InputRuleError] naming the rule and the tool; a fix gives the model
// the fixed text; a warning lets the result through. Their verdicts are
// the Rules of the call's row ([Result.Calls]). A tool's error is not
// judged; a rule that cannot judge ends the run with its
// *enforce.ValidatorError. Rules given twice by name are refused.
func WithToolResultRules(rules ...enforce.Validator) Option {
	return optionFunc(func(c *config) {
		base := inputContract
		if c.resultRules != nil {
			base = c.resultRules
		}
		s, err := base.WithValidators(rules...)
		if err != nil {
			c.invalid("WithToolResultRules: %v", err)
			return
		}
		c.resultRules = s
	})
}

// judgeResult holds out, call c's result, to the rules: it returns what
// the model is to see, the rules' verdicts, and the error that ends the
// run (a tripwire's, a rule that could not judge, ctx's cause).
func (st *runState) judgeResult(ctx context.Context, c ToolCall, out string) (string, *enforce.Rulings, error) {
	given, err := json.Marshal(out)
	if err != nil {
		return "", nil, err
	}
	// A ledger of its own, without retries: a rule that fails is read
	// from the row, and the policy is this file's to apply.
	l, err := enforce.NewLedger(st.a.cfg.resultRules, 0)
	if err != nil {
		return "", nil, err
	}
	v := l.Judge(ctx, enforce.Answer{Iteration: st.res.Iterations, Given: string(given)})
	var ve *enforce.ValidatorError
	switch {
	case errors.As(v.Err, &ve):
		return "", v.Row.Rules, ve
	case v.Row == (enforce.Attempt{}) && v.Err != nil:
		return "", nil, v.Err // ctx ended
	}
	var ce *enforce.CheckError
	errors.As(v.Err, &ce)
	var withheld []string
	if v.Row.Rules != nil {
		for _, r := range *v.Row.Rules {
			switch r.Verdict {
			case enforce.RuleTripped:
				return "", v.Row.Rules, &InputRuleError{Rule: r.Rule, Issues: issuesOf(ce, r.Rule), Tool: c.Name, CallID: c.ID}
			case enforce.RuleFailed:
				for _, is := range issuesOf(ce, r.Rule) {
					withheld = append(withheld, fmt.Sprintf("%s: %s", r.Rule, is.Message))
				}
			}
		}
	}
	if withheld == nil && v.Err != nil {
		// The result failed before a rule could judge it (longer than
		// enforce.MaxAnswerBytes as a JSON string): it is not let through
		// unjudged.
		withheld = append(withheld, "too long to be judged")
	}
	if withheld != nil {
		return fmt.Sprintf("error: the result of this call was withheld by a rule on tool results (%s). "+
			"Go on without it, or call again if another call may give an acceptable result.", strings.Join(withheld, "; ")), v.Row.Rules, nil
	}
	if v.Answer != string(given) {
		// A rule's fix rewrote it.
		var fixed string
		if err := json.Unmarshal([]byte(v.Answer), &fixed); err != nil {
			return "", v.Row.Rules, err
		}
		out = fixed
	}
	return out, v.Row.Rules, nil
}

// issuesOf is ce's issues of rule.
func issuesOf(ce *enforce.CheckError, rule string) []enforce.Issue {
	if ce == nil {
		return nil
	}
	var issues []enforce.Issue
	for _, is := range ce.Issues {
		if is.Keyword == rule {
			issues = append(issues, is)
		}
	}
	return issues
}

// callRows are the run's call rows, each with the verdicts of the rules
// on its result: copies, as the call ledger's rows are never changed.
func (st *runState) callRows() []enforce.Attempt {
	rows := st.calls.Calls()
	if len(st.resultRulings) == 0 {
		return rows
	}
	rows = append([]enforce.Attempt(nil), rows...)
	for i := range rows {
		if rs, ok := st.resultRulings[rows[i].Attempt]; ok {
			rows[i].Rules = rs
		}
	}
	return rows
}
