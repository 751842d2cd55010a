package eval

import (
	"fmt"
	"slices"
	"strings"
)

// Rate names a share of a group's judged records (those whose schema
// compiled).
type Rate string

// The rates: the first two of any eval, the last two of a live one.
const (
	AsWritten   Rate = "as-written"   // passed as the model wrote them
	AfterRepair Rate = "after-repair" // passed as written or once mended
	FirstTry    Rate = "first-try"    // a live run's first answer passed
	AfterRetry  Rate = "after-retry"  // a live run ended with a passing answer
)

// Rates lists the rates [Group.Rate] knows.
var Rates = []Rate{AsWritten, AfterRepair, FirstTry, AfterRetry}

// Rate is the share of g's judged records (a live group's runs) that
// passed as r says, in [0, 1]; a group with none judged has rate 0, and
// an offline group has the live rates 0.
func (g Group) Rate(r Rate) (float64, error) {
	var n int
	switch r {
	case AsWritten:
		n = g.PassedAsWritten
	case AfterRepair:
		n = g.PassedAfterRepair
	case FirstTry:
		n = g.PassedFirstTry
	case AfterRetry:
		n = g.PassedAfterRetry
	default:
		return 0, fmt.Errorf("eval: unknown rate %q (want one of %v)", r, Rates)
	}
	judged := g.Records - g.SchemaErrors
	if g.Runs > 0 {
		judged = g.Runs
	}
	if judged == 0 {
		return 0, nil
	}
	return float64(n) / float64(judged), nil
}

// Below returns the groups whose rate r is under min, in the report's
// order: a CI gate fails on any.
func (rep *Report) Below(r Rate, min float64) ([]Group, error) {
	var low []Group
	for _, g := range rep.Groups {
		v, err := g.Rate(r)
		if err != nil {
			return nil, err
		}
		if v < min {
			low = append(low, g)
		}
	}
	return low, nil
}

// Change is how one rate of one group moved between two reports.
type Change struct {
	Group string `json:"group"`
	Rate  Rate   `json:"rate"`
	// Old and New are the rates; a group only one report has has 0 in
	// the other, and Missing says which.
	Old float64 `json:"old"`
	New float64 `json:"new"`
	// Missing is "old" or "new" for a group one report lacks.
	Missing string `json:"missing,omitempty"`
	// Regressed: New is below Old by more than the tolerance given.
	Regressed bool `json:"regressed"`
}

// PointerChange is how many failing records of a group one pointer held
// in two reports.
type PointerChange struct {
	Group   string `json:"group"`
	Pointer string `json:"pointer"`
	Old     int    `json:"old"`
	New     int    `json:"new"`
}

// Diff is what moved between two reports ([Compare]).
type Diff struct {
	Rates    []Change        `json:"rates"`
	Pointers []PointerChange `json:"pointers,omitzero"`
	// Cases lists the records whose verdict moved, in the new report's
	// order.
	Cases []CaseChange `json:"cases,omitzero"`
	// Unmatched counts the cases of either report the other has no
	// match for.
	Unmatched int `json:"unmatched,omitzero"`
}

// CaseMove says how one record's verdict moved between two reports.
type CaseMove string

// The moves of a record's verdict after the repairs chosen
// ([Verdict.PassedAfterRepair]; a schema that did not compile fails).
const (
	NewlyFailing CaseMove = "newly-failing" // passed in the old report, fails in the new
	NewlyPassing CaseMove = "newly-passing" // failed in the old, passes in the new
	IssueChanged CaseMove = "changed-issue" // fails in both, at another stage or pointers
)

// CaseChange is one record whose verdict moved: its verdicts in the old
// report and the new.
type CaseChange struct {
	Move CaseMove `json:"move"`
	Old  Verdict  `json:"old"`
	New  Verdict  `json:"new"`
}

// Regressions returns the changes that regressed.
func (d Diff) Regressions() []Change {
	var out []Change
	for _, c := range d.Rates {
		if c.Regressed {
			out = append(out, c)
		}
	}
	return out
}

// Compare holds new against old, group by group and rate by rate (the
// live rates where either group is live's): a
// rate that fell by more than tolerance (a share, 0.01 for one point) has
// regressed, and a group old had that new lacks regresses every rate.
// Pointers lists each pointer whose count of failing records moved.
func Compare(old, new *Report, tolerance float64) Diff {
	byName := func(r *Report) map[string]Group {
		m := map[string]Group{}
		for _, g := range r.Groups {
			m[g.Group] = g
		}
		return m
	}
	o, n := byName(old), byName(new)
	var names []string
	for k := range o {
		names = append(names, k)
	}
	for k := range n {
		if _, ok := o[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var d Diff
	for _, name := range names {
		og, inOld := o[name]
		ng, inNew := n[name]
		rates := Rates[:2]
		if og.Runs > 0 || ng.Runs > 0 {
			rates = Rates // live
		}
		for _, r := range rates {
			c := Change{Group: name, Rate: r}
			c.Old, _ = og.Rate(r)
			c.New, _ = ng.Rate(r)
			switch {
			case !inOld:
				c.Missing = "old"
			case !inNew:
				c.Missing, c.Regressed = "new", true
			default:
				c.Regressed = c.Old-c.New > tolerance
			}
			d.Rates = append(d.Rates, c)
		}
		d.Pointers = append(d.Pointers, pointerChanges(name, og.Pointers, ng.Pointers)...)
	}
	d.Cases, d.Unmatched = caseChanges(old, new)
	return d
}

// caseChanges matches the cases of two reports — by id (the nth of an
// id with the nth), and a case without one by line when both reports
// are of one dataset — and lists those whose verdict moved, with the
// count of cases left without a match.
func caseChanges(old, new *Report) ([]CaseChange, int) {
	sameData := old.Dataset != "" && old.Dataset == new.Dataset
	keys := func(cs []Verdict) []string {
		seen := map[string]int{}
		out := make([]string, len(cs))
		for i, c := range cs {
			switch {
			case c.ID != "":
				seen[c.ID]++
				out[i] = fmt.Sprintf("id %d %s", seen[c.ID], c.ID)
			case sameData:
				out[i] = fmt.Sprintf("line %d", c.Line)
			}
		}
		return out
	}
	oldKeys, newKeys := keys(old.Cases), keys(new.Cases)
	byKey := make(map[string]int, len(oldKeys))
	for i, k := range oldKeys {
		if k != "" {
			byKey[k] = i
		}
	}
	var out []CaseChange
	matched := 0
	for i, k := range newKeys {
		j, ok := byKey[k]
		if k == "" || !ok {
			continue
		}
		matched++
		o, n := old.Cases[j], new.Cases[i]
		op, np := passed(o), passed(n)
		switch {
		case op && !np:
			out = append(out, CaseChange{NewlyFailing, o, n})
		case !op && np:
			out = append(out, CaseChange{NewlyPassing, o, n})
		case !op && !np && issueKey(o) != issueKey(n):
			out = append(out, CaseChange{IssueChanged, o, n})
		}
	}
	return out, len(old.Cases) + len(new.Cases) - 2*matched
}

func passed(v Verdict) bool { return v.SchemaError == "" && v.PassedAfterRepair }

// issueKey is where a failing case failed: its stage and its issues'
// pointers, or its schema's error.
func issueKey(v Verdict) string {
	if v.SchemaError != "" {
		return "schema " + v.SchemaError
	}
	ptrs := make([]string, 0, len(v.Issues))
	for _, is := range v.Issues {
		ptrs = append(ptrs, is.Path)
	}
	slices.Sort(ptrs)
	return string(v.Stage) + "\x00" + strings.Join(slices.Compact(ptrs), "\x00")
}

func pointerChanges(group string, old, new []Count) []PointerChange {
	counts := map[string]*PointerChange{}
	get := func(p string) *PointerChange {
		if counts[p] == nil {
			counts[p] = &PointerChange{Group: group, Pointer: p}
		}
		return counts[p]
	}
	for _, c := range old {
		get(c.Key).Old = c.Count
	}
	for _, c := range new {
		get(c.Key).New = c.Count
	}
	var out []PointerChange
	for _, c := range counts {
		if c.Old != c.New {
			out = append(out, *c)
		}
	}
	slices.SortFunc(out, func(a, b PointerChange) int { return strings.Compare(a.Pointer, b.Pointer) })
	return out
}
