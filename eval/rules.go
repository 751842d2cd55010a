package eval

import (
	"encoding/json"

	"github.com/enforcer-go/enforcer/enforce"
)

// RuleRate is how one rule (a validator, a built-in guardrail, a judge)
// fared over a group's answers, or over its runs' inputs (On "input"),
// as the runs recorded its verdicts: every answer of a live run, the
// first answer of a record's saved result offline. Asked counts its
// verdicts, Passed those that found no issue, and the rest those of each
// other verdict (enforce.RuleVerdict).
type RuleRate struct {
	Rule    string `json:"rule"`
	On      string `json:"on"` // "answer" or "input"
	Asked   int    `json:"asked"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed,omitzero"`
	Tripped int    `json:"tripped,omitzero"`
	Fixed   int    `json:"fixed,omitzero"`
	Warned  int    `json:"warned,omitzero"`
}

// Rate is the share of its verdicts that passed.
func (r RuleRate) Rate() float64 { return float64(r.Passed) / float64(max(r.Asked, 1)) }

// addRules counts the rulings of v's answers (each row's) and input in
// g.Rules, in the order the rules first came.
func (g *group) addRules(v RunVerdict) {
	count := func(on string, rs []enforce.Ruling) {
		for _, r := range rs {
			i := 0
			for i < len(g.Rules) && (g.Rules[i].Rule != r.Rule || g.Rules[i].On != on) {
				i++
			}
			if i == len(g.Rules) {
				g.Rules = append(g.Rules, RuleRate{Rule: r.Rule, On: on})
			}
			rr := &g.Rules[i]
			rr.Asked++
			switch r.Verdict {
			case enforce.RulePassed:
				rr.Passed++
			case enforce.RuleFailed:
				rr.Failed++
			case enforce.RuleTripped:
				rr.Tripped++
			case enforce.RuleFixed:
				rr.Fixed++
			case enforce.RuleWarned:
				rr.Warned++
			}
		}
	}
	count("input", v.InputRules)
	for _, row := range v.Rows {
		if row.Rules != nil {
			count("answer", *row.Rules)
		}
	}
}

// savedRules is, of a record's saved agent.Result, the rulings on its
// input and its first row (the answer an offline eval judges), as a
// run's verdict holds them.
func savedRules(raw json.RawMessage) RunVerdict {
	var res struct {
		InputRules []enforce.Ruling  `json:"inputRules"`
		Attempts   []enforce.Attempt `json:"attempts"`
	}
	_ = json.Unmarshal(raw, &res) // read before, by firstAnswer
	v := RunVerdict{InputRules: res.InputRules}
	if len(res.Attempts) > 0 {
		v.Rows = res.Attempts[:1]
	}
	return v
}
