package eval

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
)

// WriteHTML writes rep as one self-contained HTML page (no script, no
// fetch: its charts are inline SVG): the pass rates of each group as a
// bar split by how its records passed, failures by stage and by
// pointer, and for a live eval tokens and money per passing run. Every figure a
// bar draws is also written as text, and each bar carries its count and
// group in data attributes, so the page's numbers can be read back.
func WriteHTML(w io.Writer, rep *Report) error {
	return page.Execute(w, pageData(rep))
}

// WriteCompareHTML writes rep's page as [WriteHTML] does, opening with
// d, what moved since the report rep was compared with ([Compare]): the
// rates that moved, then the cases newly failing, newly passing and
// whose issue changed, each open to its output and its issue before and
// now.
func WriteCompareHTML(w io.Writer, rep *Report, d Diff) error {
	v := pageData(rep)
	v.Diff = diffData(d)
	return page.Execute(w, v)
}

// diffView is a Diff as the page shows it.
type diffView struct {
	Rates                     []Change // those that moved
	Regressed                 int
	Failing, Passing, Changed int
	Unmatched                 int
	Moved, Listed             int // cases that moved, and those listed: at most maxPageCases
	Moves                     []moveView
}

// moveView is the cases of one move.
type moveView struct {
	Move  CaseMove
	Title string
	Count int
	Cases []movedCase
}

// movedCase is a case that moved, as the page lists it.
type movedCase struct {
	Move               CaseMove
	Name, ID, Group    string
	Line               int
	OldIssue, NewIssue string // "" when it passed
	Output, OutputOf   string // the new output, or the old when the new passed
}

func diffData(d Diff) *diffView {
	v := &diffView{Unmatched: d.Unmatched}
	for _, c := range d.Rates {
		if c.Old != c.New || c.Missing != "" {
			v.Rates = append(v.Rates, c)
		}
		if c.Regressed {
			v.Regressed++
		}
	}
	moves := []moveView{
		{Move: NewlyFailing, Title: "Newly failing"},
		{Move: NewlyPassing, Title: "Newly passing"},
		{Move: IssueChanged, Title: "Failing at another issue"},
	}
	for _, c := range d.Cases {
		i := slices.IndexFunc(moves, func(m moveView) bool { return m.Move == c.Move })
		if i < 0 {
			continue
		}
		moves[i].Count++
		v.Moved++
		if v.Listed == maxPageCases {
			continue
		}
		v.Listed++
		m := movedCase{Move: c.Move, Name: caseName(c.New), ID: c.New.ID, Group: c.New.Group, Line: c.New.Line,
			OldIssue: issueLine(c.Old), NewIssue: issueLine(c.New), Output: c.New.Output, OutputOf: "now"}
		if m.Output == "" {
			m.Output, m.OutputOf = c.Old.Output, "before"
		}
		moves[i].Cases = append(moves[i].Cases, m)
	}
	v.Failing, v.Passing, v.Changed = moves[0].Count, moves[1].Count, moves[2].Count
	for _, m := range moves {
		if m.Count > 0 {
			v.Moves = append(v.Moves, m)
		}
	}
	return v
}

// caseName is a case's id, or "line N".
func caseName(v Verdict) string {
	if v.ID != "" {
		return v.ID
	}
	return "line " + strconv.Itoa(v.Line)
}

// issueLine is where a case failed, on one line: its stage and first
// issue, or its schema's error; "" when it passed.
func issueLine(v Verdict) string {
	switch {
	case v.SchemaError != "":
		return "the schema did not compile: " + v.SchemaError
	case v.PassedAfterRepair:
		return ""
	case len(v.Issues) == 0:
		return string(v.Stage)
	}
	s := fmt.Sprintf("%s at #%s: %s", v.Stage, v.Issues[0].Path, v.Issues[0].Message)
	if len(v.Issues) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(v.Issues)-1)
	}
	return s
}

// A segment is one part of a group's bar.
type segment struct {
	Kind  string // as-written, repaired, retried, failed, schema-error, no-answer
	Label string
	Count int
	X, W  float64 // in percent of the bar
}

type groupRow struct {
	Group
	Name     string
	Judged   int
	Segments []segment
	Stages   []Count
	Top      []Count // the most failing pointers, at most 10
	PerPass  string  // tokens per passing run, live only
	MoneyPer string  // money per passing run, live and priced only
}

type pageView struct {
	Report *Report
	Live   bool
	Rows   []groupRow
	Kinds  []segment // the legend
	// The failing cases: at most maxPageCases of Failing listed, and the
	// filters over them with their CSS.
	Cases   []caseRow
	Failing int
	Filters []filter
	Style   template.CSS
	// Labelled are the groups with labelled records ([Group.Labels]).
	Labelled []labelView
	// Diff is what moved since an older report; nil on a report's own
	// page.
	Diff *diffView
}

// maxMatrixLabels is the most labels whose confusion matrix the page
// draws; a group with more has its per-label table only (-json holds
// the matrix).
const maxMatrixLabels = 30

// labelView is a group's Labels as the page shows them.
type labelView struct {
	*Labels
	Name, Group string
	Rows        []matrixRow // nil past maxMatrixLabels
}

// matrixRow is the records of one expected label, by the label answered.
type matrixRow struct {
	Label string
	Cells []int
}

// maxPageCases is how many failing cases the page lists: a report of
// 100,000 records stays a page a browser opens at once; -json holds all.
const maxPageCases = 1000

// caseRow is a failing case as the page lists it.
type caseRow struct {
	Verdict
	Name    string
	Classes string // the filters' options it matches
	Pointer string // its first issue's
}

// A filter narrows the failing cases to those of one option, with no
// script: each option is a radio input whose :checked rule hides the
// cases without its class (an index, never the data's text).
type filter struct {
	Name    string
	Options []filterOption
}

type filterOption struct {
	ID, Class, Label string
}

// The segments' kinds, in the order a bar draws them.
var kinds = []segment{
	{Kind: "as-written", Label: "passed as written"},
	{Kind: "repaired", Label: "passed once mended"},
	{Kind: "retried", Label: "passed after a retry"},
	{Kind: "failed", Label: "failed"},
	{Kind: "schema-error", Label: "schema did not compile"},
	{Kind: "no-answer", Label: "no answer came"},
}

func pageData(rep *Report) pageView {
	v := pageView{Report: rep}
	for _, g := range rep.Groups {
		if g.Runs > 0 {
			v.Live = true
		}
	}
	noAnswer := false
	for _, g := range rep.Groups {
		noAnswer = noAnswer || g.NoAnswer > 0
	}
	for _, k := range kinds {
		if (k.Kind != "retried" || v.Live) && (k.Kind != "no-answer" || noAnswer) {
			v.Kinds = append(v.Kinds, k)
		}
	}
	for _, g := range rep.Groups {
		r := groupRow{Group: g, Name: groupLabel(g.Group)}
		var counts []int
		if g.Runs > 0 {
			r.Judged = g.Runs
			counts = []int{g.PassedAsWritten, g.PassedFirstTry - g.PassedAsWritten, g.PassedAfterRetry - g.PassedFirstTry, g.Runs - g.PassedAfterRetry - g.NoAnswer, 0, g.NoAnswer}
			if g.PassedAfterRetry > 0 {
				r.PerPass = strconv.FormatFloat(float64(g.Tokens)/float64(g.PassedAfterRetry), 'f', 0, 64)
				if g.Money > 0 {
					r.MoneyPer = strconv.FormatFloat(g.Money/float64(g.PassedAfterRetry), 'f', 6, 64)
				}
			}
		} else {
			r.Judged = g.Records - g.SchemaErrors
			counts = []int{g.PassedAsWritten, g.PassedAfterRepair - g.PassedAsWritten, 0, r.Judged - g.PassedAfterRepair - g.NoAnswer, g.SchemaErrors, g.NoAnswer}
		}
		total := 0
		for _, c := range counts {
			total += c
		}
		x := 0.0
		for i, c := range counts {
			if c == 0 {
				continue
			}
			w := 100 * float64(c) / float64(max(total, 1))
			r.Segments = append(r.Segments, segment{Kind: kinds[i].Kind, Label: kinds[i].Label, Count: c, X: x, W: w})
			x += w
		}
		for k, n := range g.Failed {
			r.Stages = append(r.Stages, Count{string(k), n})
		}
		sortCounts(r.Stages)
		r.Top = g.Pointers[:min(len(g.Pointers), 10)]
		v.Rows = append(v.Rows, r)
		if g.Labels != nil {
			lv := labelView{Labels: g.Labels, Name: r.Name, Group: g.Group}
			if len(g.Labels.Labels) <= maxMatrixLabels {
				for i, row := range g.Labels.Matrix {
					if i < len(g.Labels.Labels) {
						lv.Rows = append(lv.Rows, matrixRow{Label: g.Labels.Labels[i], Cells: row})
					}
				}
			}
			v.Labelled = append(v.Labelled, lv)
		}
	}
	v.failingCases(rep)
	return v
}

// failingCases fills in the page's failing cases and their filters: by
// group, stage, pointer (the 20 most failing) and repair.
func (v *pageView) failingCases(rep *Report) {
	type dim struct {
		name, key string
		index     map[string]int
		labels    []string
		counts    []int
	}
	dims := []*dim{{name: "group", key: "g"}, {name: "stage", key: "s"}, {name: "pointer", key: "p"}, {name: "repair", key: "r"}}
	for _, d := range dims {
		d.index = map[string]int{}
	}
	values := func(c Verdict) [][]string {
		var ptrs []string
		for _, is := range c.Issues {
			if !slices.Contains(ptrs, is.Path) {
				ptrs = append(ptrs, is.Path)
			}
		}
		var reps []string
		if c.Repaired != 0 {
			reps = strings.Split(c.Repaired.String(), ",")
		}
		return [][]string{{groupLabel(c.Group)}, {string(c.Stage)}, ptrs, reps}
	}
	var listed []Verdict
	for _, c := range rep.Cases {
		if c.SchemaError != "" || !failing(c) {
			continue
		}
		v.Failing++
		if len(listed) < maxPageCases {
			listed = append(listed, c)
		}
		for i, vals := range values(c) {
			d := dims[i]
			for _, val := range vals {
				j, ok := d.index[val]
				if !ok {
					j = len(d.labels)
					d.index[val] = j
					d.labels, d.counts = append(d.labels, val), append(d.counts, 0)
				}
				d.counts[j]++
			}
		}
	}
	// Only the 20 most failing pointers are offered: a filter of
	// thousands of pointers would be a list no one reads.
	offered := map[string]bool{}
	{
		d := dims[2]
		order := make([]int, len(d.labels))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return d.counts[b] - d.counts[a] })
		for _, i := range order[:min(len(order), 20)] {
			offered[d.labels[i]] = true
		}
	}
	var css strings.Builder
	for _, d := range dims {
		f := filter{Name: d.name}
		all := "f-" + d.name + "-all"
		f.Options = append(f.Options, filterOption{ID: all, Label: "all"})
		fmt.Fprintf(&css, "#%s:checked ~ .filters label[for=%s] { font-weight: bold; }\n", all, all)
		for i, label := range d.labels {
			if d.key == "p" && !offered[label] {
				continue
			}
			switch {
			case d.key == "p":
				label = "#" + label
			case label == "":
				label = "-" // a stage of none: a provider's error
			}
			o := filterOption{ID: fmt.Sprintf("f-%s-%d", d.name, i), Class: fmt.Sprintf("%s%d", d.key, i), Label: label}
			f.Options = append(f.Options, o)
			fmt.Fprintf(&css, "#%s:checked ~ .cases .case:not(.%s) { display: none; }\n", o.ID, o.Class)
			fmt.Fprintf(&css, "#%s:checked ~ .filters label[for=%s] { font-weight: bold; }\n", o.ID, o.ID)
		}
		if len(f.Options) > 1 {
			v.Filters = append(v.Filters, f)
		}
	}
	v.Style = template.CSS(css.String()) // ids and classes of ASCII letters and digits only
	for _, c := range listed {
		row := caseRow{Verdict: c, Name: c.ID}
		if row.Name == "" {
			row.Name = "line " + strconv.Itoa(c.Line)
		}
		if len(c.Issues) > 0 {
			row.Pointer = c.Issues[0].Path
		}
		var classes []string
		for i, vals := range values(c) {
			for _, val := range vals {
				classes = append(classes, fmt.Sprintf("%s%d", dims[i].key, dims[i].index[val]))
			}
		}
		row.Classes = strings.Join(classes, " ")
		v.Cases = append(v.Cases, row)
	}
}

func groupLabel(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"pct": func(n, of int) string {
		if of == 0 {
			return "0.0%"
		}
		return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%"
	},
	"f":       func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) },
	"pointer": func(p string) string { return "#" + p },
	"bar": func(n, most int) string {
		return strconv.FormatFloat(100*float64(n)/float64(max(most, 1)), 'f', 3, 64)
	},
	"most": func(cs []Count) int {
		return slices.MaxFunc(append([]Count{{}}, cs...), func(a, b Count) int { return a.Count - b.Count }).Count
	},
	"repairs": func(r *Report) string {
		if r.Repairs == 0 {
			return "none"
		}
		return r.Repairs.String()
	},
	"sprintf":    fmt.Sprintf,
	"join":       func(r enforce.Repairs) string { return r.String() },
	"groupLabel": groupLabel,
	"share":      func(r float64) string { return strconv.FormatFloat(100*r, 'f', 1, 64) + "%" },
	"mark": func(c Change) string {
		switch {
		case c.Regressed && c.Missing == "new":
			return "regressed (not in the new report)"
		case c.Regressed:
			return "regressed"
		case c.Missing == "old":
			return "new group"
		}
		return ""
	},
	"ratio": func(r *float64) string {
		if r == nil {
			return "-"
		}
		return strconv.FormatFloat(*r, 'f', 3, 64)
	},
}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>enforcer eval</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; max-width: 70em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 2em; }
table { border-collapse: collapse; } td, th { padding: .2em .8em; text-align: left; white-space: nowrap; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { border-bottom: 1px solid #999; }
svg.bar { width: 28em; height: 1.2em; display: block; }
.as-written { fill: #2e7d32; background: #2e7d32; } .repaired { fill: #81c784; background: #81c784; }
.retried { fill: #fbc02d; background: #fbc02d; } .failed { fill: #c62828; background: #c62828; }
.schema-error { fill: #9e9e9e; background: #9e9e9e; } .no-answer { fill: #8d6e63; background: #8d6e63; } .count { fill: #5c6bc0; }
.legend span.swatch { display: inline-block; width: .9em; height: .9em; margin: 0 .3em 0 1em; vertical-align: -.1em; }
#cases input { display: none; } .filters label { cursor: pointer; margin-right: .8em; text-decoration: underline dotted; }
details.case { border-top: 1px solid #ddd; padding: .2em 0; } details.case summary { cursor: pointer; }
details.case pre { white-space: pre-wrap; word-break: break-all; background: #f5f5f5; padding: .5em; max-height: 30em; overflow: auto; }
.case-body { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
details.moved { border-top: 1px solid #ddd; padding: .2em 0; } details.moved summary { cursor: pointer; }
details.moved pre { white-space: pre-wrap; word-break: break-all; background: #f5f5f5; padding: .5em; max-height: 30em; overflow: auto; }
tr.regressed td { color: #c62828; font-weight: 600; }
{{.Style}}</style>
</head>
<body>
<h1>enforcer eval</h1>
<p id="summary">{{.Report.Records}} records in {{len .Rows}} groups; repairs: {{repairs .Report}}.</p>
{{- with .Diff}}

<section id="compare">
<h2>Compared with the old report</h2>
<p id="compare-summary">{{.Failing}} newly failing, {{.Passing}} newly passing, {{.Changed}} failing at another issue{{if .Unmatched}}; {{.Unmatched}} cases without a match (a record without an id is matched by line only in one dataset){{end}}; {{.Regressed}} rates regressed.{{if gt .Moved .Listed}} The first {{.Listed}} cases are listed.{{end}}</p>
{{- if .Rates}}
<table id="compare-rates">
<tr><th>group</th><th>rate</th><th>before</th><th>now</th><th></th></tr>
{{- range .Rates}}
<tr data-group="{{.Group}}" data-rate="{{.Rate}}"{{if .Regressed}} class="regressed"{{end}}><td>{{groupLabel .Group}}</td><td>{{.Rate}}</td><td class="n">{{share .Old}}</td><td class="n">{{share .New}}</td><td>{{mark .}}</td></tr>
{{- end}}
</table>
{{- end}}
{{- range .Moves}}
<h3 data-move="{{.Move}}">{{.Title}}: {{.Count}}</h3>
{{- range .Cases}}
<details class="moved" data-move="{{.Move}}" data-id="{{.ID}}" data-line="{{.Line}}" data-group="{{.Group}}">
<summary>{{.Name}} · {{groupLabel .Group}} · {{or .NewIssue "passes"}}</summary>
<div class="case-body">
<div><h4>output ({{.OutputOf}})</h4><pre class="output">{{.Output}}</pre></div>
<div><h4>before</h4><p class="old-issue">{{or .OldIssue "passed"}}</p><h4>now</h4><p class="new-issue">{{or .NewIssue "passes"}}</p></div>
</div>
</details>
{{- end}}
{{- end}}
</section>
{{- end}}

<h2>How each group passed</h2>
<p class="legend">{{range .Kinds}}<span class="swatch {{.Kind}}"></span>{{.Label}}{{end}}</p>
<table id="rates">
<tr><th>group</th><th>{{if .Live}}runs{{else}}records{{end}}</th><th></th><th>as written</th><th>{{if .Live}}first try{{else}}after repair{{end}}</th>{{if .Live}}<th>after retry</th><th>tokens per passing run</th><th>money per passing run</th>{{end}}</tr>
{{- range .Rows}}
<tr data-group="{{.Group.Group}}">
<td>{{.Name}}</td><td class="n">{{.Judged}}</td>
<td><svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="{{.Name}}">
{{- range .Segments}}<rect class="{{.Kind}}" data-kind="{{.Kind}}" data-count="{{.Count}}" x="{{f .X}}" width="{{f .W}}" y="0" height="10"><title>{{.Label}}: {{.Count}}</title></rect>{{end -}}
</svg></td>
<td class="n" data-rate="as-written">{{.PassedAsWritten}} ({{pct .PassedAsWritten .Judged}})</td>
{{- if $.Live}}
<td class="n" data-rate="first-try">{{.PassedFirstTry}} ({{pct .PassedFirstTry .Judged}})</td>
<td class="n" data-rate="after-retry">{{.PassedAfterRetry}} ({{pct .PassedAfterRetry .Judged}})</td>
<td class="n" data-figure="tokens-per-pass">{{if .PerPass}}{{.PerPass}}{{else}}-{{end}}</td>
<td class="n" data-figure="money-per-pass">{{if .MoneyPer}}{{.MoneyPer}}{{else}}-{{end}}</td>
{{- else}}
<td class="n" data-rate="after-repair">{{.PassedAfterRepair}} ({{pct .PassedAfterRepair .Judged}})</td>
{{- end}}
</tr>
{{- end}}
</table>

<h2>Where they failed</h2>
{{- range .Rows}}{{if or .Stages .Top}}
<h3>{{.Name}}</h3>
<table class="failures" data-group="{{.Group.Group}}">
{{- $most := most .Stages}}
{{- range .Stages}}
<tr><td>at {{.Key}}</td><td class="n" data-stage="{{.Key}}">{{.Count}}</td><td><svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none"><rect class="failed" x="0" width="{{bar .Count $most}}" y="0" height="10"></rect></svg></td></tr>
{{- end}}
{{- $top := most .Top}}
{{- range .Top}}
<tr><td><code>{{pointer .Key}}</code></td><td class="n" data-pointer="{{.Key}}">{{.Count}}</td><td><svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none"><rect class="count" x="0" width="{{bar .Count $top}}" y="0" height="10"></rect></svg></td></tr>
{{- end}}
</table>
{{- end}}{{end}}
{{- range .Rows}}{{if .Group.Rules}}

<h2>Rules of {{.Name}}</h2>
<table class="rules" data-group="{{.Group.Group}}">
<tr><th>rule</th><th>on</th><th>asked</th><th>passed</th><th>failed</th><th>tripped</th><th>fixed</th><th>warned</th></tr>
{{- range .Group.Rules}}
<tr data-rule="{{.Rule}}" data-of="{{.On}}"><td>{{.Rule}}</td><td>{{.On}}</td><td class="n">{{.Asked}}</td><td class="n" data-rate="passed">{{.Passed}} ({{pct .Passed .Asked}})</td><td class="n">{{.Failed}}</td><td class="n">{{.Tripped}}</td><td class="n">{{.Fixed}}</td><td class="n">{{.Warned}}</td></tr>
{{- end}}
</table>
{{- end}}{{end}}
{{- if .Labelled}}

<section id="labels">
<h2>Labels</h2>
<p>The labelled records' answers against the labels expected: a row per label expected, a column per label answered.</p>
{{- range .Labelled}}
<h3>{{.Name}}: {{.Exact}} of {{.Records}} exactly right</h3>
{{- if .Rows}}
<table class="matrix" data-group="{{.Group}}">
<tr><th>expected \ answered</th>{{range .Labels.Labels}}<th>{{.}}</th>{{end}}<th>failed</th></tr>
{{- range .Rows}}
<tr data-expected="{{.Label}}"><th>{{.Label}}</th>{{range .Cells}}<td class="n">{{.}}</td>{{end}}</tr>
{{- end}}
</table>
{{- else}}
<p>{{len .Labels.Labels}} labels: the matrix is in -json.</p>
{{- end}}
<table class="per-label" data-group="{{.Group}}">
<tr><th>label</th><th>precision</th><th>recall</th><th>true +</th><th>false +</th><th>false −</th></tr>
{{- range .PerLabel}}
<tr data-label="{{.Label}}"><td>{{.Label}}</td><td class="n" data-score="precision">{{ratio .Precision}}</td><td class="n" data-score="recall">{{ratio .Recall}}</td><td class="n">{{.TruePositives}}</td><td class="n">{{.FalsePositives}}</td><td class="n">{{.FalseNegatives}}</td></tr>
{{- end}}
</table>
{{- end}}
</section>
{{- end}}
{{- if .Failing}}

<section id="cases">
<h2>Failing cases</h2>
<p id="cases-shown">{{if gt .Failing (len .Cases)}}The first {{len .Cases}} of {{.Failing}} failing cases, in the dataset's order (-json holds them all){{else}}{{.Failing}} failing cases, in the dataset's order{{end}}; a case opens to its output and issues.</p>
{{- range .Filters}}{{$name := .Name}}{{range $i, $o := .Options}}
<input type="radio" name="f-{{$name}}" id="{{$o.ID}}"{{if eq $i 0}} checked{{end}}>
{{- end}}{{end}}
<div class="filters">
{{- range .Filters}}
<p data-filter="{{.Name}}">{{.Name}}: {{range .Options}}<label for="{{.ID}}">{{.Label}}</label>{{end}}</p>
{{- end}}
</div>
<div class="cases">
{{- range .Cases}}
<details class="case {{.Classes}}" data-line="{{.Line}}" data-id="{{.ID}}" data-group="{{.Group}}" data-stage="{{.Stage}}">
<summary>{{.Name}} · {{groupLabel .Group}} · {{.Stage}}{{if .Issues}} at <code>{{pointer .Pointer}}</code>{{end}}{{if .Repaired}} · mended by {{join .Repaired}}{{end}}</summary>
<div class="case-body">
<div><h4>output</h4><pre class="output">{{.Output}}</pre>{{if .Mended}}<h4>mended</h4><pre class="mended">{{.Mended}}</pre>{{end}}</div>
<div><h4>issues</h4><ul class="issues">{{range .Issues}}<li><code>{{pointer .Path}}</code> {{.Message}}</li>{{end}}</ul></div>
</div>
</details>
{{- end}}
</div>
</section>
{{- end}}
</body>
</html>
`))
