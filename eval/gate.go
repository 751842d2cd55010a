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
	return d
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
