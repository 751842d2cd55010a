package eval_test

import (
	"encoding/json"
	"html"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

// The page of a comparison opens with what moved: the rates that moved,
// marked when they regressed, and the cases newly failing, newly passing
// and failing at another issue, each with its issue before and now and
// its output as text.
func TestTheComparePageListsTheCasesThatMoved(t *testing.T) {
	const hostile = `<script>window.pwned=1</script>`
	rec := func(id, out string) string {
		b, _ := json.Marshal(out)
		return `{"id":"` + id + `","model":"a","schema":` + cityJSON + `,"output":` + string(b) + `}`
	}
	old := offline(t, strings.Join([]string{
		rec("steady", `{"city":"Oslo","tempC":3}`),
		rec("broke", `{"city":"Oslo","tempC":3}`),
		rec("mended", "```json\n{\"city\":\"Oslo\",\"tempC\":3}\n```"),
		rec("moved", `{"city":"Oslo"}`),
	}, "\n"), eval.Options{})
	new := offline(t, strings.Join([]string{
		rec("steady", `{"city":"Oslo","tempC":3}`),
		rec("broke", hostile),
		rec("mended", "```json\n{\"city\":\"Oslo\",\"tempC\":3}\n```"),
		rec("moved", `{"city":7,"tempC":3}`),
	}, "\n"), eval.Options{Repairs: enforce.RepairFence})
	d := eval.Compare(old, new, 0.01)
	var b strings.Builder
	if err := eval.WriteCompareHTML(&b, new, d); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<p id="compare-summary">1 newly failing, 1 newly passing, 1 failing at another issue; 1 rates regressed.</p>`,
		`<tr data-group="a" data-rate="as-written" class="regressed"><td>a</td><td>as-written</td><td class="n">50.0%</td><td class="n">25.0%</td><td>regressed</td></tr>`,
		`<h3 data-move="newly-failing">Newly failing: 1</h3>`,
		`<details class="moved" data-move="newly-failing" data-id="broke" data-line="2" data-group="a">`,
		`<pre class="output">` + html.EscapeString(hostile) + `</pre>`,
		`<p class="old-issue">passed</p>`,
		`<details class="moved" data-move="newly-passing" data-id="mended" data-line="3" data-group="a">`,
		`<details class="moved" data-move="changed-issue" data-id="moved" data-line="4" data-group="a">`,
		`<p class="old-issue">schema-validate at #/tempC: `,
		`<p class="new-issue">schema-validate at #/city: `,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the compare page lacks %s", want)
		}
	}
	if strings.Contains(page, hostile) || strings.Count(page, `<details class="moved"`) != 3 || strings.Count(page, `<tr data-group="a" data-rate=`) != 1 {
		t.Errorf("the page shows an output as markup, lists other than 3 moved cases, or other than the one rate that moved")
	}
	b.Reset()
	if err := eval.WriteHTML(&b, new); err != nil || strings.Contains(b.String(), `id="compare"`) {
		t.Errorf("a report's own page shows a comparison (%v)", err)
	}
}
