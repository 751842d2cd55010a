package enforce

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/enforcer-go/enforcer/enforce/internal/guard"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Policy is what a rule (a [Validator]) that finds issues does to the
// answer; [Validator.OnFail] sets it.
type Policy string

const (
	// PolicyRetry (the default): the answer fails with the rule's
	// issues, and a corrective turn asks again while retries are left.
	PolicyRetry Policy = "retry"
	// PolicyTripwire: the answer fails and the run ends at once, retries
	// unspent: the row is exhausted with [ReasonTripwire] and the
	// *[OutputError] matches [ErrTripwire] and names the rule.
	PolicyTripwire Policy = "tripwire"
	// PolicyFix: the rule's fix ([Validator.Fix]) rewrites its member,
	// and the answer is judged on as fixed.
	PolicyFix Policy = "fix"
	// PolicyWarn: the issues are recorded on the row, and the answer is
	// accepted as it is.
	PolicyWarn Policy = "warn"
)

// ErrTripwire: a rule of [PolicyTripwire] found issues, so the run
// stopped without spending its retries.
var ErrTripwire = errors.New("enforce: a tripwire rule refused the answer")

// OnFail returns v with policy p for the answers it finds issues in.
// [Schema.WithValidators] refuses a policy not listed above, and
// PolicyFix without a fix (use [Validator.Fix]).
func (v Validator) OnFail(p Policy) Validator {
	v.policy = p
	return v
}

// Fix returns v with [PolicyFix]: when v finds issues, fix gets the value
// it judged (the member at its pointer, as the JSON value [NewValidator]
// gives an any) and those issues, and returns the value to put there,
// which encoding/json encodes. The fixed answer must keep the schema and
// is what later rules judge and the run returns; v is not asked again.
// An error, a panic or a fix that breaks the schema is a
// *[ValidatorError]. Of a [Text] answer the fix gets the text, a string,
// and must return the text to put in its place; a choice takes no fix.
func (v Validator) Fix(fix func(ctx context.Context, value any, issues []Issue) (any, error)) Validator {
	v.policy, v.fix = PolicyFix, fix
	return v
}

// Validators returns the rules joined to s's contract, in order
// ([Schema.WithValidators]); nil when it has none.
func (s *Schema) Validators() []Validator { return slices.Clone(s.validators) }

// checkPolicy says what is wrong with v's policy, "" when nothing is.
func (v Validator) checkPolicy(s *Schema) string {
	switch v.policy {
	case "", PolicyRetry, PolicyTripwire, PolicyWarn:
		return ""
	case PolicyFix:
		switch {
		case v.fix == nil:
			return fmt.Sprintf("validator %q: policy fix needs its fix (Validator.Fix)", v.name)
		case s.reading != nil && s.Kind() != KindText:
			// A choice's fix would pick a label for the model: a
			// corrective turn asks the model to, and a default is the
			// caller's to pick after the run.
			return fmt.Sprintf("validator %q: a fix needs a JSON contract or text, not one of kind %s", v.name, s.Kind())
		}
		return ""
	}
	return fmt.Sprintf("validator %q: unknown policy %q (want retry, tripwire, fix or warn)", v.name, jsonvalue.Clip(string(v.policy), maxIssueQuote))
}

// RuleVerdict is what one rule made of an answer, as its [Ruling] says.
type RuleVerdict string

const (
	// RulePassed: the rule found no issue.
	RulePassed RuleVerdict = "passed"
	// RuleFailed: it found issues, and the answer failed with them
	// ([PolicyRetry]).
	RuleFailed RuleVerdict = "failed"
	// RuleTripped: it found issues and ended the run ([PolicyTripwire]).
	RuleTripped RuleVerdict = "tripped"
	// RuleFixed: it found issues and its fix rewrote the member
	// ([PolicyFix]).
	RuleFixed RuleVerdict = "fixed"
	// RuleWarned: it found issues, recorded only ([PolicyWarn]).
	RuleWarned RuleVerdict = "warned"
)

// Ruling is one rule's verdict on an answer, on its row
// ([Attempt.Rules]): every validator asked, in order. The schema's own
// verdict is the row's stage and error.
type Ruling struct {
	Rule    string      `json:"rule"` // the validator's name
	Verdict RuleVerdict `json:"verdict"`
	// Path and Reason are the first issue's pointer and message, as the
	// row's are; absent when it passed. For a fix they say where the
	// answer was changed and why; the values are not copied here.
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Provider, Model and Cost are what the rule spent asking a model
	// ([ReportCost]); absent for a rule that asked none.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Cost
}

// ReportCost adds c, spent by the model provider/model to judge an
// answer, to the [Ruling] of the rule whose check ctx was given; outside
// a check it does nothing. A rule that asks a model (agent.Judge) calls
// it for each call.
func ReportCost(ctx context.Context, provider, model string, c Cost) {
	sc, _ := ctx.Value(ruleScopeKey{}).(*ruleScope)
	if sc == nil {
		return
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.provider, sc.model = provider, model
	sat := func(a, b int) int { return int(addSat(int64(a), int64(max(b, 0)), math.MaxInt)) }
	sc.cost.InputTokens = sat(sc.cost.InputTokens, c.InputTokens)
	sc.cost.OutputTokens = sat(sc.cost.OutputTokens, c.OutputTokens)
	sc.cost.CachedTokens = sat(sc.cost.CachedTokens, c.CachedTokens)
	sc.cost.ReasoningTokens = sat(sc.cost.ReasoningTokens, c.ReasoningTokens)
	sc.cost.LatencyMs = addSat(sc.cost.LatencyMs, max(c.LatencyMs, 0), math.MaxInt64)
	if c.Money > 0 {
		sc.cost.Money = min(sc.cost.Money+c.Money, math.MaxFloat64)
	}
}

// Rulings are the verdicts of an answer's rules, in the order they were
// asked ([Attempt.Rules]).
type Rulings []Ruling

// rulings is rs on a row: nil when there are none.
func rulings(rs []Ruling) *Rulings {
	if len(rs) == 0 {
		return nil
	}
	r := Rulings(rs)
	return &r
}

// ruleScopeKey keys the *ruleScope of one check's context.
type ruleScopeKey struct{}

// ruleScope gathers what one rule's check reported spending. A check
// runs on a goroutine of its own and may outlive its judging.
type ruleScope struct {
	mu              sync.Mutex
	provider, model string
	cost            Cost
}

// ruling is r for rule v, spending what sc gathered.
func (sc *ruleScope) ruling(v Validator, verdict RuleVerdict) Ruling {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return Ruling{Rule: v.name, Verdict: verdict, Provider: sc.provider, Model: sc.model, Cost: sc.cost}
}

// verdict is what v's policy makes of issues found.
func (v Validator) verdict() RuleVerdict {
	switch v.policy {
	case PolicyTripwire:
		return RuleTripped
	case PolicyFix:
		return RuleFixed
	case PolicyWarn:
		return RuleWarned
	}
	return RuleFailed
}

// fixed returns text, an answer of a JSON contract that keeps the schema,
// with v's member rewritten by its fix for issues; or why it could not.
func (s *Schema) fixed(ctx context.Context, v Validator, text string, issues []Issue) (string, *ValidatorError, error) {
	if s.reading != nil {
		return s.fixedText(ctx, v, text, issues)
	}
	tree, err := jsonvalue.Parse(text)
	if err != nil {
		return "", &ValidatorError{Name: v.name, Err: err}, nil
	}
	value, _ := jsonvalue.LookupPointer(tree, v.at)
	fixedValue, verr, err := runFix(ctx, v, value, issues)
	if verr != nil || err != nil {
		return "", verr, err
	}
	b, err := json.Marshal(fixedValue)
	if err != nil {
		return "", &ValidatorError{Name: v.name, Err: fixErr(err)}, nil
	}
	if v.at != "" {
		// The fixed value is placed in the tree as parsed JSON, so the
		// answer encodes as JSON encodes it.
		nv, err := jsonvalue.Parse(string(b))
		if err != nil {
			return "", &ValidatorError{Name: v.name, Err: fixErr(err)}, nil
		}
		toks, _ := jsonvalue.PointerTokens(v.at)
		if !setAt(tree, toks, nv) {
			return "", &ValidatorError{Name: v.name, Err: fixErr(errors.New("its member is gone"))}, nil
		}
		if b, err = json.Marshal(tree); err != nil {
			return "", &ValidatorError{Name: v.name, Err: fixErr(err)}, nil
		}
	}
	out := string(b)
	if _, _, err := s.judgeForm(out); err != nil {
		return "", &ValidatorError{Name: v.name, Err: fixErr(fmt.Errorf("the fixed answer breaks the contract: %w", err))}, nil
	}
	return out, nil, nil
}

// fixedText is fixed for a [Text] answer: the fix gets the text and
// gives the text in its place, held to the text's rules.
func (s *Schema) fixedText(ctx context.Context, v Validator, text string, issues []Issue) (string, *ValidatorError, error) {
	fixedValue, verr, err := runFix(ctx, v, text, issues)
	if verr != nil || err != nil {
		return "", verr, err
	}
	out, ok := fixedValue.(string)
	if !ok {
		return "", &ValidatorError{Name: v.name, Err: fixErr(fmt.Errorf("a text answer's fix gave %T, not a string", fixedValue))}, nil
	}
	if _, _, err := s.judgeForm(out); err != nil {
		return "", &ValidatorError{Name: v.name, Err: fixErr(fmt.Errorf("the fixed answer breaks the contract: %w", err))}, nil
	}
	return out, nil, nil
}

// runFix calls v's fix on value under guard: what it gave, or why it
// gave nothing (a *ValidatorError), or ctx's stop.
func runFix(ctx context.Context, v Validator, value any, issues []Issue) (any, *ValidatorError, error) {
	r := guard.Check(ctx, func() (any, error) { return v.fix(ctx, value, issues) }, func(error) bool { return false })
	switch {
	case r.Stopped != nil:
		return nil, nil, r.Stopped
	case r.Failed && r.Panic != nil:
		return nil, &ValidatorError{Name: v.name, Panic: r.Panic, Err: r.Err}, nil
	case r.Failed:
		return nil, &ValidatorError{Name: v.name, Err: fixErr(r.Err)}, nil
	}
	return r.Value, nil, nil
}

func fixErr(err error) error { return fmt.Errorf("its fix: %w", err) }

// setAt puts v at the pointer toks (not empty) into tree, a parsed JSON
// value; false when there is nothing there to replace.
func setAt(tree any, toks []string, v any) bool {
	for i, t := range toks {
		last := i == len(toks)-1
		switch n := tree.(type) {
		case map[string]any:
			if _, ok := n[t]; !ok {
				return false
			}
			if last {
				n[t] = v
				return true
			}
			tree = n[t]
		case []any:
			k, ok := arrayIndex(t, len(n))
			if !ok {
				return false
			}
			if last {
				n[k] = v
				return true
			}
			tree = n[k]
		default:
			return false
		}
	}
	return false
}

// arrayIndex reads a pointer token as an index below n.
func arrayIndex(t string, n int) (int, bool) {
	if t == "" || len(t) > 1 && t[0] == '0' {
		return 0, false
	}
	k := 0
	for _, c := range []byte(t) {
		if c < '0' || c > '9' || k > n {
			return 0, false
		}
		k = k*10 + int(c-'0')
	}
	return k, k < n
}
