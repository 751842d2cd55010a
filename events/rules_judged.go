package events

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// MethodRulesJudged is the method [RulesJudged] folds to.
const MethodRulesJudged Method = "rules/judged"

// RulesJudged is every rule's verdict on one final answer (its row's
// rules, enforce.Attempt.Rules), or on the run's input: recorded
// for each judging that asked a rule, before the row's own event. Record
// kind rules_judged; folds to rules/judged. Describe reads "rules on
// answer 1 · about-paris failed · no-pii passed", or "rules on the input
// · injection tripped" (the first four rules, then "· 2 more").
type RulesJudged struct {
	TurnID string `json:"turnId"`
	// Attempt and Iteration are the answer's row's; both zero (absent on
	// the wire) when the rules judged the run's input.
	Attempt   int `json:"attempt,omitempty"`
	Iteration int `json:"iteration,omitempty"`
	// Rules are the verdicts in the order the rules were asked: 1 to
	// [MaxRulings].
	Rules []Ruling `json:"rules"`
}

// MaxRulings bounds the rules of one [RulesJudged].
const MaxRulings = 256

// Ruling is one rule's verdict, as enforce.Ruling says it.
type Ruling struct {
	Rule string `json:"rule"` // the rule's name
	// Verdict is passed, failed, tripped, fixed or warned.
	Verdict string `json:"verdict"`
	// Path and Reason are the first issue's pointer and message; absent
	// when the rule passed.
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Provider, Model, the tokens and Money are what the rule spent
	// asking a model (a judge); zero is none and left off the wire.
	Provider        string  `json:"provider,omitempty"`
	Model           string  `json:"model,omitempty"`
	InputTokens     int     `json:"inputTokens,omitempty"`
	OutputTokens    int     `json:"outputTokens,omitempty"`
	CachedTokens    int     `json:"cachedTokens,omitempty"`
	ReasoningTokens int     `json:"reasoningTokens,omitempty"`
	Money           float64 `json:"money,omitempty"`
}

var kindRulesJudged = register("rules_judged", MethodRulesJudged, false, decodePlain[RulesJudged])

func (RulesJudged) info() *kind    { return kindRulesJudged }
func (e RulesJudged) turn() string { return e.TurnID }

func (e RulesJudged) check() (Event, error) {
	const name = "rules_judged"
	switch {
	case (e.Attempt == 0) != (e.Iteration == 0) || e.Attempt < 0 || e.Iteration < 0:
		return nil, invalid("%s: attempt %d and iteration %d: want both >= 1 (an answer's) or both 0 (the input's)", name, e.Attempt, e.Iteration)
	case len(e.Rules) == 0 || len(e.Rules) > MaxRulings:
		return nil, invalid("%s: %d rules, want 1 to %d", name, len(e.Rules), MaxRulings)
	}
	rules := make([]Ruling, len(e.Rules))
	for i, r := range e.Rules {
		switch {
		case r.Rule == "":
			return nil, invalid("%s: rule %d has no name", name, i+1)
		case !knownVerdict(r.Verdict):
			return nil, invalid("%s: verdict %q is not passed, failed, tripped, fixed or warned", name, text(r.Verdict))
		case min(r.InputTokens, r.OutputTokens, r.CachedTokens, r.ReasoningTokens) < 0:
			return nil, invalid("%s: rule %d: negative token count", name, i+1)
		case r.Money < 0 || math.IsNaN(r.Money) || math.IsInf(r.Money, 0):
			return nil, invalid("%s: rule %d: money %v is not a finite amount >= 0", name, i+1, r.Money)
		}
		r.Rule, r.Path, r.Reason, r.Provider, r.Model = text(r.Rule), text(r.Path), text(r.Reason), text(r.Provider), text(r.Model)
		rules[i] = r
	}
	e.Rules = rules
	return e, checkIDs(name, e.TurnID)
}

// knownVerdict reports whether v is one of enforce.RuleVerdict's values.
func knownVerdict(v string) bool {
	switch v {
	case "passed", "failed", "tripped", "fixed", "warned":
		return true
	}
	return false
}

func (e RulesJudged) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.intOpt("attempt", int64(e.Attempt))
	w.intOpt("iteration", int64(e.Iteration))
	w.key("rules")
	w.b = append(w.b, '[')
	for i, r := range e.Rules {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.open("")
		w.str("rule", r.Rule)
		w.str("verdict", r.Verdict)
		w.strOpt("path", r.Path)
		w.strOpt("reason", r.Reason)
		w.strOpt("provider", r.Provider)
		w.strOpt("model", r.Model)
		w.intOpt("inputTokens", int64(r.InputTokens))
		w.intOpt("outputTokens", int64(r.OutputTokens))
		w.intOpt("cachedTokens", int64(r.CachedTokens))
		w.intOpt("reasoningTokens", int64(r.ReasoningTokens))
		if r.Money > 0 {
			w.key("money")
			b, _ := json.Marshal(r.Money) // finite: check refuses the rest
			w.b = append(w.b, b...)
		}
		w.close()
	}
	w.b = append(w.b, ']')
}

// describedRulings is how many rules Describe names before "· n more".
const describedRulings = 4

func (e RulesJudged) describe(time.Duration) string {
	var b strings.Builder
	if e.Attempt == 0 {
		b.WriteString("rules on the input")
	} else {
		b.WriteString("rules on answer " + strconv.Itoa(e.Attempt))
	}
	for i, r := range e.Rules {
		if i == describedRulings {
			b.WriteString(" · " + strconv.Itoa(len(e.Rules)-i) + " more")
			break
		}
		v := r.Verdict
		if !knownVerdict(v) {
			v = "judged" // a hostile or newer server's word
		}
		b.WriteString(" · " + ruleWords(r.Rule) + " " + v)
	}
	return b.String()
}

// ruleWords shows a rule's name read from a frame: 1 to 64 of a-z,
// A-Z, 0-9, space and _ . : / - verbatim, anything else (a hostile or
// newer server's) as "(unnamed)".
func ruleWords(rule string) string {
	ok := rule != "" && len(rule) <= 64
	for i := 0; ok && i < len(rule); i++ {
		c := rule[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(" _.:/-", c) >= 0
	}
	if !ok {
		return "(unnamed)"
	}
	return rule
}
