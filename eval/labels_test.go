package eval_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/eval"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// scores is a Labels' PerLabel as label: tp fp fn precision recall,
// "-" for an undefined ratio.
func scores(l *eval.Labels) []string {
	var out []string
	r := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f", *p)
	}
	for _, s := range l.PerLabel {
		out = append(out, fmt.Sprintf("%s: %d %d %d %s %s", s.Label, s.TruePositives, s.FalsePositives, s.FalseNegatives, r(s.Precision), r(s.Recall)))
	}
	return out
}

// A choice dataset's group has a confusion matrix, expected label by
// answered label (a failed answer in a column of its own), and each
// label's precision and recall; a multi-label one, each label's.
func TestLabelledRecordsGetAConfusionMatrixAndPerLabelScores(t *testing.T) {
	const choice = `{"enum":["neg","neutral","pos"]}`
	const multi = `{"type":"array","items":{"enum":["billing","bug","urgent"]},"uniqueItems":true}`
	rec := func(model, schema, output, expected string) string {
		b, _ := json.Marshal(output)
		line := `{"model":"` + model + `","schema":` + schema + `,"output":` + string(b)
		if expected != "" {
			line += `,"expected":` + expected
		}
		return line + "}"
	}
	data := strings.Join([]string{
		rec("c", choice, `"pos"`, `"pos"`),
		rec("c", choice, `"neg"`, `"pos"`),
		rec("c", choice, `"neg"`, `"neg"`),
		rec("c", choice, `"pos"`, `"neutral"`),
		rec("c", choice, `no label`, `"neg"`),
		rec("c", choice, `"pos"`, ``), // no expected value: not counted
		rec("m", multi, `["billing"]`, `["billing","urgent"]`),
		rec("m", multi, `["bug","urgent"]`, `["bug"]`),
		rec("m", multi, `["billing"]`, `["billing"]`),
		rec("x", cityJSON, `{"city":"Oslo","tempC":3}`, `{"city":"Oslo"}`), // no labels
	}, "\n")
	rep := offline(t, data, eval.Options{})
	c, m, x := rep.Groups[0].Labels, rep.Groups[1].Labels, rep.Groups[2].Labels
	if c == nil || m == nil || x != nil {
		t.Fatalf("labels = %+v, %+v, %+v; want the choice and multi-label groups' only", c, m, x)
	}
	if c.Records != 5 || c.Exact != 2 || !slices.Equal(c.Labels, []string{"neg", "neutral", "pos"}) {
		t.Errorf("choice: %d records, %d exact, labels %q; want 5, 2, neg neutral pos", c.Records, c.Exact, c.Labels)
	}
	// Rows expected, columns answered: neg, neutral, pos, failed.
	if want := [][]int{{1, 0, 0, 1}, {0, 0, 1, 0}, {1, 0, 1, 0}}; !reflect.DeepEqual(c.Matrix, want) {
		t.Errorf("choice matrix = %v, want %v", c.Matrix, want)
	}
	if got, want := scores(c), []string{"neg: 1 1 1 0.50 0.50", "neutral: 0 0 1 - 0.00", "pos: 1 1 1 0.50 0.50"}; !slices.Equal(got, want) {
		t.Errorf("choice scores = %q, want %q", got, want)
	}
	if m.Records != 3 || m.Exact != 1 {
		t.Errorf("multi-label: %d records, %d exact; want 3, 1", m.Records, m.Exact)
	}
	if got, want := scores(m), []string{"billing: 2 0 0 1.00 1.00", "bug: 1 0 0 1.00 1.00", "urgent: 0 1 1 0.00 0.00"}; !slices.Equal(got, want) {
		t.Errorf("multi-label scores = %q, want %q", got, want)
	}
	b, err := json.Marshal(rep.Groups[0])
	if err != nil || !strings.Contains(string(b), `"precision":null`) || !strings.Contains(string(b), `"matrix":[[1,0,0,1],`) {
		t.Errorf("the group's JSON = %s (%v), want the matrix and a null precision", b, err)
	}
}

// A choice dataset built from JSONSchemaBench's real string enums, one
// group a set: a classifier right on two records of three, wrong (the
// next label) on the third, and broken on every seventh. Each group's
// matrix and scores are those counted here, record by record.
func TestTheConfusionMatrixOfRealEnums(t *testing.T) {
	const maxSets, maxLabels = 300, 6
	var lines []string
	type cell struct{ set, want, got string } // got "" for a broken answer
	counted := map[cell]int{}
	seen := map[string]bool{}
	sets := 0
	for _, f := range corpus.Bench(t, nil) {
		var tree any
		if json.Unmarshal(f.Schema, &tree) != nil {
			continue
		}
		for _, labels := range corpus.StringEnums(tree) {
			if len(labels) < 2 {
				continue
			}
			key := strings.Join(labels, "\x00")
			if seen[key] || sets == maxSets {
				continue
			}
			seen[key] = true
			set := fmt.Sprint(sets)
			sets++
			schema, _ := json.Marshal(map[string]any{"type": "string", "enum": labels})
			for i, want := range labels[:min(len(labels), maxLabels)] {
				got := want
				if i%3 == 2 {
					got = labels[(i+1)%len(labels)]
				}
				out, _ := json.Marshal(got)
				if len(lines)%7 == 6 {
					out, got = []byte("not a label"), ""
				}
				exp, _ := json.Marshal(want)
				line, _ := json.Marshal(map[string]any{"set": set, "schema": json.RawMessage(schema), "output": string(out), "expected": json.RawMessage(exp)})
				lines = append(lines, string(line))
				counted[cell{set, want, got}]++
			}
		}
	}
	if sets < 50 {
		t.Fatalf("only %d string enums in JSONSchemaBench", sets)
	}
	rep := offline(t, strings.Join(lines, "\n"), eval.Options{By: "set"})
	if len(rep.Groups) != sets {
		t.Fatalf("%d groups, want one per set (%d)", len(rep.Groups), sets)
	}
	records, checked := 0, 0
	for _, g := range rep.Groups {
		l := g.Labels
		if l == nil {
			t.Fatalf("group %s has no labels", g.Group)
		}
		records += l.Records
		tp, fp, fn := map[string]int{}, map[string]int{}, map[string]int{}
		for i, want := range l.Labels {
			for j, got := range append(slices.Clone(l.Labels), "") {
				n := counted[cell{g.Group, want, got}]
				if l.Matrix[i][j] != n {
					t.Errorf("set %s: matrix[%q][%q] = %d, want %d", g.Group, want, got, l.Matrix[i][j], n)
				}
				checked++
				switch {
				case got == want:
					tp[want] += n
				case got != "":
					fp[got] += n
					fn[want] += n
				default:
					fn[want] += n
				}
			}
		}
		for _, s := range l.PerLabel {
			if s.TruePositives != tp[s.Label] || s.FalsePositives != fp[s.Label] || s.FalseNegatives != fn[s.Label] {
				t.Errorf("set %s, label %q: %+v, want %d %d %d", g.Group, s.Label, s, tp[s.Label], fp[s.Label], fn[s.Label])
			}
		}
	}
	if records != len(lines) {
		t.Errorf("%d labelled records, want %d", records, len(lines))
	}
	t.Logf("%d real string enums, %d records, %d matrix cells checked", sets, records, checked)
}

// The page shows each labelled group's matrix and per-label scores,
// labels as text.
func TestThePageShowsTheConfusionMatrix(t *testing.T) {
	const schema = `{"enum":["<b>bold</b>","plain"]}`
	data := strings.Join([]string{
		`{"model":"c","schema":` + schema + `,"output":"\"plain\"","expected":"plain"}`,
		`{"model":"c","schema":` + schema + `,"output":"\"plain\"","expected":"<b>bold</b>"}`,
		`{"model":"c","schema":` + schema + `,"output":"oops","expected":"plain"}`,
	}, "\n")
	var b strings.Builder
	if err := eval.WriteHTML(&b, offline(t, data, eval.Options{})); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<h3>c: 1 of 3 exactly right</h3>`,
		`<tr data-expected="&lt;b&gt;bold&lt;/b&gt;"><th>&lt;b&gt;bold&lt;/b&gt;</th><td class="n">0</td><td class="n">1</td><td class="n">0</td></tr>`,
		`<tr data-expected="plain"><th>plain</th><td class="n">0</td><td class="n">1</td><td class="n">1</td></tr>`,
		`<tr data-label="plain"><td>plain</td><td class="n" data-score="precision">0.500</td><td class="n" data-score="recall">0.500</td>`,
		`<tr data-label="&lt;b&gt;bold&lt;/b&gt;"><td>&lt;b&gt;bold&lt;/b&gt;</td><td class="n" data-score="precision">-</td><td class="n" data-score="recall">0.000</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(page, "<b>bold") {
		t.Error("a label is shown as markup")
	}
}
