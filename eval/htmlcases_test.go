package eval_test

import (
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

// The page lists the failing cases, each with its output and issues, the
// output as text: a hostile answer is escaped, never markup.
func TestThePageListsTheFailingCasesWithTheirOutputAsText(t *testing.T) {
	hostile := `{"id":"evil","model":"b","schema":` + cityJSON + `,"output":"<script>alert(1)</script><b>bold</b>"}`
	rep := offline(t, dataset+"\n"+hostile, eval.Options{Repairs: enforce.AllRepairs})
	if c := rep.Cases[4]; c.Output != "<script>alert(1)</script><b>bold</b>" || rep.Cases[0].Output != "" {
		t.Errorf("case outputs = %q and %q, want the failing one's kept, the passing one's not", c.Output, rep.Cases[0].Output)
	}
	html := page(t, rep)
	_, cases, ok := strings.Cut(html, `<section id="cases">`)
	if !ok {
		t.Fatalf("the page has no cases section:\n%s", html)
	}
	if n := strings.Count(cases, `<details class="case`); n != 2 {
		t.Errorf("%d cases listed, want the 2 failing (b1 and evil; b2's schema is counted apart)", n)
	}
	if strings.Contains(html, "<script") || strings.Contains(html, "<b>bold") || !strings.Contains(cases, "&lt;script&gt;alert(1)&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;") {
		t.Errorf("the hostile output is not shown as text:\n%s", cases)
	}
	for _, want := range []string{`data-id="b1"`, `data-stage="schema-validate"`, `<code>#/tempC</code>`, `<label for="f-group-`} {
		if !strings.Contains(cases, want) {
			t.Errorf("the cases lack %q:\n%s", want, cases)
		}
	}
}

// A live run that ended in a provider's error failed at no stage: its
// filter reads "-", as the group "" does, never an empty label.
func TestThePageNamesAnEmptyFilterValue(t *testing.T) {
	rep, err := eval.Live(t.Context(), strings.NewReader(liveDataset("down")), eval.LiveOptions{Model: scripted("m")})
	if err != nil {
		t.Fatal(err)
	}
	if html := page(t, rep); !strings.Contains(html, `<label for="f-stage-0">-</label>`) || strings.Contains(html, `"></label>`) {
		t.Errorf("the stage filter of a provider's error:\n%s", html)
	}
}
