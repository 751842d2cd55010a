package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Check is one of a record's checks beyond the shape, on the member at
// At (a JSON Pointer; "" the whole answer): exactly one of Contains,
// NotContains, Regex (RE2 syntax) and Near is set. A member's text is
// the string it holds, or its JSON text.
type Check struct {
	At          string   `json:"at"`
	Contains    *string  `json:"contains,omitempty"`
	NotContains *string  `json:"notContains,omitempty"`
	Regex       *string  `json:"regex,omitempty"`
	Near        *float64 `json:"near,omitempty"`
	// Tolerance is how far from Near the number may be (default 0).
	Tolerance float64 `json:"tolerance,omitempty"`
}

// Checks is how an answer fared against its record's checks: each fails
// when the answer fails its contract (after the repairs).
type Checks struct {
	Run    int           `json:"run"`
	Passed int           `json:"passed"`
	Failed []CheckFailed `json:"failed,omitzero"`
}

// CheckFailed is a check that failed: its index in the record's checks,
// and why.
type CheckFailed struct {
	Check int    `json:"check"`
	Why   string `json:"why"`
}

// ErrBadCheck is the error of a record whose checks cannot run: a check
// with no test or more than one, a pointer not starting with "/", a
// regex that does not compile, a negative tolerance.
var ErrBadCheck = errors.New("a check cannot run")

// compiledCheck is a Check made ready: its regex compiled.
type compiledCheck struct {
	Check
	re *regexp.Regexp
}

// compileChecks makes cs ready, with re caching each regex by its text.
func compileChecks(cs []Check, re map[string]*regexp.Regexp) ([]compiledCheck, error) {
	out := make([]compiledCheck, len(cs))
	for i, c := range cs {
		n := 0
		for _, set := range []bool{c.Contains != nil, c.NotContains != nil, c.Regex != nil, c.Near != nil} {
			if set {
				n++
			}
		}
		switch {
		case n != 1:
			return nil, fmt.Errorf("check %d: %w: want one of contains, notContains, regex and near", i, ErrBadCheck)
		case c.At != "" && !strings.HasPrefix(c.At, "/"):
			return nil, fmt.Errorf("check %d: %w: at %q is no JSON Pointer (\"\" or starting with /)", i, ErrBadCheck, c.At)
		case c.Tolerance < 0 || math.IsNaN(c.Tolerance):
			return nil, fmt.Errorf("check %d: %w: a tolerance is at least 0", i, ErrBadCheck)
		}
		out[i].Check = c
		if c.Regex != nil {
			r, ok := re[*c.Regex]
			if !ok {
				var err error
				if r, err = regexp.Compile(*c.Regex); err != nil {
					return nil, fmt.Errorf("check %d: %w: %w", i, ErrBadCheck, err)
				}
				re[*c.Regex] = r
			}
			out[i].re = r
		}
	}
	return out, nil
}

// runChecks holds answer, which passed its contract or not, to cs.
func runChecks(cs []compiledCheck, answer string, passed bool) *Checks {
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
		} else {
			why = c.judge(v)
		}
		if why == "" {
			r.Passed++
		} else {
			r.Failed = append(r.Failed, CheckFailed{Check: i, Why: why})
		}
	}
	return r
}

// judge is why v fails c, or "" when it passes.
func (c compiledCheck) judge(v any) string {
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
