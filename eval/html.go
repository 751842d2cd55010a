package eval

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
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

// A segment is one part of a group's bar.
type segment struct {
	Kind  string // as-written, repaired, retried, failed, schema-error
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
}

// The segments' kinds, in the order a bar draws them.
var kinds = []segment{
	{Kind: "as-written", Label: "passed as written"},
	{Kind: "repaired", Label: "passed once mended"},
	{Kind: "retried", Label: "passed after a retry"},
	{Kind: "failed", Label: "failed"},
	{Kind: "schema-error", Label: "schema did not compile"},
}

func pageData(rep *Report) pageView {
	v := pageView{Report: rep}
	for _, g := range rep.Groups {
		if g.Runs > 0 {
			v.Live = true
		}
	}
	for _, k := range kinds {
		if k.Kind != "retried" || v.Live {
			v.Kinds = append(v.Kinds, k)
		}
	}
	for _, g := range rep.Groups {
		r := groupRow{Group: g, Name: groupLabel(g.Group)}
		var counts []int
		if g.Runs > 0 {
			r.Judged = g.Runs
			counts = []int{g.PassedAsWritten, g.PassedFirstTry - g.PassedAsWritten, g.PassedAfterRetry - g.PassedFirstTry, g.Runs - g.PassedAfterRetry, 0}
			if g.PassedAfterRetry > 0 {
				r.PerPass = strconv.FormatFloat(float64(g.Tokens)/float64(g.PassedAfterRetry), 'f', 0, 64)
				if g.Money > 0 {
					r.MoneyPer = strconv.FormatFloat(g.Money/float64(g.PassedAfterRetry), 'f', 6, 64)
				}
			}
		} else {
			r.Judged = g.Records - g.SchemaErrors
			counts = []int{g.PassedAsWritten, g.PassedAfterRepair - g.PassedAsWritten, 0, r.Judged - g.PassedAfterRepair, g.SchemaErrors}
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
	}
	return v
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
	"sprintf": fmt.Sprintf,
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
.schema-error { fill: #9e9e9e; background: #9e9e9e; } .count { fill: #5c6bc0; }
.legend span.swatch { display: inline-block; width: .9em; height: .9em; margin: 0 .3em 0 1em; vertical-align: -.1em; }
</style>
</head>
<body>
<h1>enforcer eval</h1>
<p id="summary">{{.Report.Records}} records in {{len .Rows}} groups; repairs: {{repairs .Report}}.</p>

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
</body>
</html>
`))
