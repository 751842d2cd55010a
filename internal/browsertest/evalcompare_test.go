package browsertest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

// The page of a comparison, in a browser: its cases that moved open to
// their output, a hostile one shown as text, and its labelled group's
// confusion matrix reads back as the report's.
func TestTheComparePageOpensItsMovedCases(t *testing.T) {
	rec := func(id, out string) string {
		b, _ := json.Marshal(out)
		return `{"id":"` + id + `","model":"a","schema":{"type":"object","required":["n"]},"output":` + string(b) + `}`
	}
	choice := `{"id":"c1","model":"c","schema":{"enum":["neg","pos"]},"output":"\"pos\"","expected":"neg"}`
	old, err := eval.Offline(t.Context(), strings.NewReader(rec("x", `{"n":1}`)+"\n"+choice), eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	new, err := eval.Offline(t.Context(), strings.NewReader(rec("x", hostileOutput)+"\n"+choice), eval.Options{Repairs: enforce.AllRepairs})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := eval.WriteCompareHTML(&page, new, eval.Compare(old, new, 0.01)); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page.Bytes())
	}))
	defer srv.Close()
	bctx, cancelBrowser := startBrowser(t)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute) // a failure bound, not a sleep
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible("#compare")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`details.moved[data-id="x"] summary`))); err != nil {
		t.Fatal(err)
	}
	type seen struct {
		Summary string  `json:"summary"`
		Open    bool    `json:"open"`
		Output  string  `json:"output"`
		Shown   bool    `json:"shown"`
		Before  string  `json:"before"`
		Pwned   bool    `json:"pwned"`
		Matrix  [][]int `json:"matrix"`
	}
	got := evaluate[seen](t, ctx, `(() => { const d = document.querySelector('details.moved[data-id="x"]'), pre = d.querySelector('pre.output');
		return {summary: document.querySelector('#compare-summary').textContent, open: d.open, output: pre.textContent,
			shown: pre.getClientRects().length > 0, before: d.querySelector('.old-issue').textContent, pwned: window.pwned !== undefined,
			matrix: [...document.querySelectorAll('table.matrix tr[data-expected]')].map(tr => [...tr.querySelectorAll('td')].map(td => +td.textContent))}; })()`)
	if !strings.HasPrefix(got.Summary, "1 newly failing, 0 newly passing") || !got.Open || !got.Shown || got.Output != hostileOutput || got.Before != "passed" || got.Pwned {
		t.Errorf("the opened case = %+v, want the newly failing case open, its output shown as the text %q", got, hostileOutput)
	}
	if want := [][]int{{0, 1, 0}, {0, 0, 0}}; fmt.Sprint(got.Matrix) != fmt.Sprint(want) {
		t.Errorf("the matrix reads %v, want %v", got.Matrix, want)
	}
}
