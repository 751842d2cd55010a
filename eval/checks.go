package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// Check is one of a record's checks beyond the shape, on the member at
// At (a JSON Pointer; "" the whole answer): exactly one of Contains,
// NotContains, Regex (RE2 syntax), Near and Judge is set. A member's
// text is the string it holds, or its JSON text.
type Check struct {
	At          string   `json:"at"`
	Contains    *string  `json:"contains,omitempty"`
	NotContains *string  `json:"notContains,omitempty"`
	Regex       *string  `json:"regex,omitempty"`
	Near        *float64 `json:"near,omitempty"`
	// Tolerance is how far from Near the number may be (default 0).
	Tolerance float64 `json:"tolerance,omitempty"`
	// Judge is a rubric, a question put in words, asked about the member
	// of the model Model names, as agent.Judge asks it ([Judges]).
	Judge *string `json:"judge,omitempty"`
	Model string  `json:"model,omitempty"`
}

// Checks is how an answer fared against its record's checks: each fails
// when the answer fails its contract (after the repairs).
type Checks struct {
	Run    int           `json:"run"`
	Passed int           `json:"passed"`
	Failed []CheckFailed `json:"failed,omitzero"`
	// Judged holds the verdicts of its judge checks, in order.
	Judged []Judged `json:"judged,omitzero"`
}

// Judged is a judge check's verdict on one answer: its index in the
// record's checks, the model asked, pass or not and the model's reason
// (given when it fails), and what asking cost, counted apart from the
// runs' ([Group.JudgeTokens]).
type Judged struct {
	Check  int     `json:"check"`
	Model  string  `json:"model"`
	Pass   bool    `json:"pass"`
	Reason string  `json:"reason,omitempty"`
	Tokens int     `json:"tokens,omitzero"`
	Money  float64 `json:"money,omitzero"`
}

// Judges is how a dataset's judge checks ([Check.Judge]) reach the
// models they name. The zero value reaches none: a judge check is then
// an [ErrBadCheck].
type Judges struct {
	// Model returns the model a check names; it is called once a name.
	Model func(name string) (agent.Model, error)
	// Agent are the options of each judge's own run, as agent.Judge
	// takes them: agent.WithPrices counts its money.
	Agent []agent.Option
}

// CheckFailed is a check that failed: its index in the record's checks,
// and why.
type CheckFailed struct {
	Check int    `json:"check"`
	Why   string `json:"why"`
}

// ErrBadCheck is the error of a record whose checks cannot run: a check
// with no test or more than one, a pointer not starting with "/", a
// regex that does not compile, a negative tolerance, a judge without a
// rubric or a model, or one whose model [Judges] cannot reach.
var ErrBadCheck = errors.New("a check cannot run")

// compiledCheck is a Check made ready: its regex compiled, its judge
// made.
type compiledCheck struct {
	Check
	re    *regexp.Regexp
	judge *enforce.Schema // a contract of any JSON value and the judge's rule
}

// checkCache is what a dataset's checks share: each regex by its text,
// each judge's model by its name, each judge by model, rubric and
// pointer.
type checkCache struct {
	judges  Judges
	regexps map[string]*regexp.Regexp
	models  map[string]agent.Model
	rules   map[[3]string]*enforce.Schema
}

func newCheckCache(j Judges) *checkCache {
	return &checkCache{judges: j, regexps: map[string]*regexp.Regexp{}, models: map[string]agent.Model{}, rules: map[[3]string]*enforce.Schema{}}
}

// compile makes cs ready.
func (cc *checkCache) compile(cs []Check) ([]compiledCheck, error) {
	out := make([]compiledCheck, len(cs))
	for i, c := range cs {
		n := 0
		for _, set := range []bool{c.Contains != nil, c.NotContains != nil, c.Regex != nil, c.Near != nil, c.Judge != nil} {
			if set {
				n++
			}
		}
		switch {
		case n != 1:
			return nil, fmt.Errorf("check %d: %w: want one of contains, notContains, regex, near and judge", i, ErrBadCheck)
		case c.At != "" && !strings.HasPrefix(c.At, "/"):
			return nil, fmt.Errorf("check %d: %w: at %q is no JSON Pointer (\"\" or starting with /)", i, ErrBadCheck, c.At)
		case c.Tolerance < 0 || math.IsNaN(c.Tolerance):
			return nil, fmt.Errorf("check %d: %w: a tolerance is at least 0", i, ErrBadCheck)
		case c.Judge != nil && (strings.TrimSpace(*c.Judge) == "" || c.Model == ""):
			return nil, fmt.Errorf("check %d: %w: a judge needs its rubric and the model to ask", i, ErrBadCheck)
		case c.Judge == nil && c.Model != "":
			return nil, fmt.Errorf("check %d: %w: a model is named by a judge check only", i, ErrBadCheck)
		}
		out[i].Check = c
		if c.Regex != nil {
			r, ok := cc.regexps[*c.Regex]
			if !ok {
				var err error
				if r, err = regexp.Compile(*c.Regex); err != nil {
					return nil, fmt.Errorf("check %d: %w: %w", i, ErrBadCheck, err)
				}
				cc.regexps[*c.Regex] = r
			}
			out[i].re = r
		}
		if c.Judge != nil {
			s, err := cc.judge(c)
			if err != nil {
				return nil, fmt.Errorf("check %d: %w", i, err)
			}
			out[i].judge = s
		}
	}
	return out, nil
}

// judge is the contract that asks c's judge: any JSON value, with
// agent.Judge's rule on the member.
func (cc *checkCache) judge(c Check) (*enforce.Schema, error) {
	key := [3]string{c.Model, *c.Judge, c.At}
	if s, ok := cc.rules[key]; ok {
		return s, nil
	}
	m, ok := cc.models[c.Model]
	if !ok {
		if cc.judges.Model == nil {
			return nil, fmt.Errorf("%w: no way to reach the judge %q was given (eval.Judges)", ErrBadCheck, c.Model)
		}
		var err error
		if m, err = cc.judges.Model(c.Model); err != nil {
			return nil, fmt.Errorf("judge %q: %w", c.Model, err)
		}
		cc.models[c.Model] = m
	}
	// One rule, agent.Judge's: its verdict, reason and cost come back on
	// the row's ruling as a run's judge's do.
	rule := agent.Judge("judge", m, *c.Judge, cc.judges.Agent...)
	if c.At != "" {
		rule = rule.At(c.At)
	}
	s, err := enforce.CompileSchema([]byte(`{}`))
	if err == nil {
		s, err = s.WithValidators(rule)
	}
	if err != nil {
		return nil, err
	}
	cc.rules[key] = s
	return s, nil
}

// runChecks holds answer, which passed its contract or not, to cs. A
// judge is asked only of an answer that passed, holding the member.
func runChecks(ctx context.Context, cs []compiledCheck, answer string, passed bool) *Checks {
	r := &Checks{Run: len(cs)}
	var doc any
	if passed && decode([]byte(answer), &doc) != nil {
		passed = false
	}
	for i, c := range cs {
		why := ""
		if !passed {
			why = "the answer fails its contract"
		} else if v, ok := at(doc, c.At); !ok {
			why = "no value at #" + c.At
		} else if c.judge != nil {
			j := askJudge(ctx, c, answer)
			j.Check = i
			r.Judged = append(r.Judged, j)
			if !j.Pass {
				why = fmt.Sprintf("judge %s: %s", c.Model, j.Reason)
			}
		} else {
			why = c.test(v)
		}
		if why == "" {
			r.Passed++
		} else {
			r.Failed = append(r.Failed, CheckFailed{Check: i, Why: why})
		}
	}
	return r
}

// askJudge asks c's judge about answer: its ruling's verdict, reason and
// cost. A judge that gives no verdict fails the check, its error the
// reason.
func askJudge(ctx context.Context, c compiledCheck, answer string) Judged {
	j := Judged{Model: c.Model}
	l, err := enforce.NewLedger(c.judge, 0)
	if err != nil { // a schema and no retries: cannot fail
		j.Reason = err.Error()
		return j
	}
	v := l.Judge(ctx, enforce.Answer{Iteration: 1, Given: answer})
	if v.Row.Outcome == "" && v.Err != nil { // ctx ended: no row
		j.Reason = v.Err.Error()
		return j
	}
	row := v.Row
	j.Pass = row.Outcome == enforce.OutcomePassed
	if row.Rules != nil && len(*row.Rules) > 0 {
		rl := (*row.Rules)[0]
		j.Tokens = max(rl.InputTokens, 0) + max(rl.OutputTokens, 0)
		j.Money = rl.Money
		if !j.Pass {
			j.Reason = rl.Reason
		}
	}
	if !j.Pass && j.Reason == "" {
		j.Reason = row.Error
	}
	return j
}

// test is why v fails c, or "" when it passes.
func (c compiledCheck) test(v any) string {
	if c.Near != nil {
		n, ok := v.(json.Number)
		f, err := strconv.ParseFloat(string(n), 64)
		if !ok || err != nil {
			return fmt.Sprintf("#%s is not a number", c.At)
		}
		if math.Abs(f-*c.Near) > c.Tolerance {
			return fmt.Sprintf("#%s is %s, not within %g of %g", c.At, n, c.Tolerance, *c.Near)
		}
		return ""
	}
	text, ok := v.(string)
	if !ok {
		b, _ := json.Marshal(v)
		text = string(b)
	}
	switch {
	case c.Contains != nil && !strings.Contains(text, *c.Contains):
		return fmt.Sprintf("#%s does not contain %q", c.At, *c.Contains)
	case c.NotContains != nil && strings.Contains(text, *c.NotContains):
		return fmt.Sprintf("#%s contains %q", c.At, *c.NotContains)
	case c.re != nil && !c.re.MatchString(text):
		return fmt.Sprintf("#%s does not match %q", c.At, c.re.String())
	}
	return ""
}
