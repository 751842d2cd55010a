package eval

import (
	"encoding/json"
	"slices"
)

// Labels is how the answers of a group's labelled records compare with
// the labels they expected. A labelled record has an expected value and
// a schema that is a string enum (a choice: the answer is one label, and
// so is the expected value) or an array of one (multi-label: the answer
// is a set of labels, and so is the expected value, a JSON array).
type Labels struct {
	// Records counts the labelled records (a live eval's: runs), and
	// Exact those whose answer held exactly the labels expected.
	Records int `json:"records"`
	Exact   int `json:"exact"`
	// Labels are the labels of the records' enums and expected values,
	// sorted.
	Labels []string `json:"labels"`
	// Matrix counts the choice records by the label expected (a row, in
	// the order of Labels) and the label answered (a column, in that
	// order, then one more column for an answer that failed its
	// contract). Multi-label records are counted in PerLabel only.
	Matrix [][]int `json:"matrix"`
	// PerLabel holds each label's figures, in the order of Labels, over
	// choice and multi-label records alike.
	PerLabel []LabelScore `json:"perLabel"`
}

// LabelScore is how one label fared: answered where expected (true
// positive), answered where not expected (false positive), expected but
// not answered (false negative), and the precision and recall they
// make; null when undefined (no answer, or no record, held the label).
type LabelScore struct {
	Label          string   `json:"label"`
	TruePositives  int      `json:"truePositives"`
	FalsePositives int      `json:"falsePositives"`
	FalseNegatives int      `json:"falseNegatives"`
	Precision      *float64 `json:"precision"`
	Recall         *float64 `json:"recall"`
}

// labelSet is the labels a schema lists: a string enum, or an array's
// items' one (multi); nil when it lists none.
type labelSet struct {
	labels []string
	multi  bool
}

// labelsOf reads the label set of a schema, nil for one that is no
// string enum nor an array of one.
func labelsOf(schema []byte) *labelSet {
	var s struct {
		Type  any   `json:"type"`
		Enum  []any `json:"enum"`
		Items *struct {
			Enum []any `json:"enum"`
		} `json:"items"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	strs := func(vs []any) []string {
		out := make([]string, 0, len(vs))
		for _, v := range vs {
			str, ok := v.(string)
			if !ok {
				return nil
			}
			out = append(out, str)
		}
		return out
	}
	if ls := strs(s.Enum); len(ls) > 0 {
		return &labelSet{labels: ls}
	}
	if s.Type == "array" && s.Items != nil {
		if ls := strs(s.Items.Enum); len(ls) > 0 {
			return &labelSet{labels: ls, multi: true}
		}
	}
	return nil
}

// labelCounts is a group's Labels being counted.
type labelCounts struct {
	records, exact int
	labels         map[string]bool
	matrix         map[[2]string]int // by expected, answered ("\x00": failed)
	tp, fp, fn     map[string]int
}

// noAnswer is the answered label of a choice record whose answer failed.
const noAnswer = "\x00"

// add counts one labelled answer, which passed its contract or not,
// against expected; a record whose expected value is not of its set's
// form (a string, or an array of strings) is not counted.
func (g *group) addLabels(set *labelSet, expected json.RawMessage, answer string, passed bool) {
	if set == nil || len(expected) == 0 {
		return
	}
	var want, got []string
	if set.multi {
		if json.Unmarshal(expected, &want) != nil || want == nil {
			return
		}
		if passed && json.Unmarshal([]byte(answer), &got) != nil {
			got = nil
		}
	} else {
		var w, a string
		if json.Unmarshal(expected, &w) != nil {
			return
		}
		want = []string{w}
		if passed && json.Unmarshal([]byte(answer), &a) == nil {
			got = []string{a}
		}
	}
	c := g.labelCounts
	if c == nil {
		c = &labelCounts{labels: map[string]bool{}, matrix: map[[2]string]int{}, tp: map[string]int{}, fp: map[string]int{}, fn: map[string]int{}}
		g.labelCounts = c
	}
	c.records++
	for _, l := range set.labels {
		c.labels[l] = true
	}
	for _, l := range want {
		c.labels[l] = true
	}
	slices.Sort(want)
	want = slices.Compact(want)
	slices.Sort(got)
	got = slices.Compact(got)
	if slices.Equal(want, got) {
		c.exact++
	}
	for _, l := range got {
		if slices.Contains(want, l) {
			c.tp[l]++
		} else {
			c.fp[l]++
		}
	}
	for _, l := range want {
		if !slices.Contains(got, l) {
			c.fn[l]++
		}
	}
	if !set.multi {
		answered := noAnswer
		if len(got) == 1 {
			answered = got[0]
		}
		c.matrix[[2]string{want[0], answered}]++
	}
}

// report is c as the report holds it; nil for none.
func (c *labelCounts) report() *Labels {
	if c == nil {
		return nil
	}
	l := &Labels{Records: c.records, Exact: c.exact, Labels: []string{}, Matrix: [][]int{}, PerLabel: []LabelScore{}}
	for name := range c.labels {
		l.Labels = append(l.Labels, name)
	}
	slices.Sort(l.Labels)
	for _, want := range l.Labels {
		row := make([]int, len(l.Labels)+1)
		for j, got := range append(slices.Clip(l.Labels), noAnswer) {
			row[j] = c.matrix[[2]string{want, got}]
		}
		l.Matrix = append(l.Matrix, row)
	}
	ratio := func(n, d int) *float64 {
		if d == 0 {
			return nil
		}
		r := float64(n) / float64(d)
		return &r
	}
	for _, name := range l.Labels {
		tp, fp, fn := c.tp[name], c.fp[name], c.fn[name]
		l.PerLabel = append(l.PerLabel, LabelScore{Label: name, TruePositives: tp, FalsePositives: fp, FalseNegatives: fn,
			Precision: ratio(tp, tp+fp), Recall: ratio(tp, tp+fn)})
	}
	return l
}
