package browsertest_test

import (
	"bytes"
	"context"
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

// hostileOutput is an answer that would be markup, and a script, if the
// page showed it as anything but text.
const hostileOutput = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`

// serveEvalPage serves rep's page and opens it in a browser; it returns
// the browser's context and the page's size.
func serveEvalPage(t *testing.T, rep *eval.Report) (context.Context, int) {
	t.Helper()
	var page bytes.Buffer
	if err := eval.WriteHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page.Bytes())
	}))
	t.Cleanup(srv.Close)
	bctx, cancelBrowser := startBrowser(t)
	t.Cleanup(cancelBrowser)
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute) // a failure bound, not a sleep
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible("#rates")); err != nil {
		t.Fatal(err)
	}
	return ctx, page.Len()
}

const visibleCases = `[...document.querySelectorAll('details.case')].filter(d => d.getClientRects().length > 0).map(d => d.dataset.id)`

func evaluate[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// clickFilter clicks the label of a filter's option, as a person would.
func clickFilter(t *testing.T, ctx context.Context, filter, label string) {
	t.Helper()
	id := evaluate[string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll('[data-filter=%q] label')].find(l => l.textContent === %q)?.htmlFor ?? ""`, filter, label))
	if id == "" {
		t.Fatalf("no %s filter %q", filter, label)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`label[for="`+id+`"]`))); err != nil {
		t.Fatal(err)
	}
}

// The page's failing cases filter by group and stage with no script,
// open to their output, and show a hostile output as text.
func TestTheEvalPageFiltersAndOpensTheFailingCases(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	line := func(id, model, output string) string {
		return fmt.Sprintf(`{"id":%q,"model":%q,"schema":%s,"output":%q}`, id, model, schema, output)
	}
	data := strings.Join([]string{
		line("ok", "a", `{"n":1}`),
		line("a-missing", "a", `{}`),
		line("a-prose", "a", `not json`),
		line("c-type", "c", `{"n":"one"}`),
		line("c-evil", "c", hostileOutput),
	}, "\n")
	rep, err := eval.Offline(t.Context(), strings.NewReader(data), eval.Options{Repairs: enforce.AllRepairs})
	if err != nil {
		t.Fatal(err)
	}
	ctx, _ := serveEvalPage(t, rep)
	if got := evaluate[[]string](t, ctx, visibleCases); strings.Join(got, " ") != "a-missing a-prose c-type c-evil" {
		t.Fatalf("the page shows cases %v, want the four failing", got)
	}
	clickFilter(t, ctx, "group", "c")
	if got := evaluate[[]string](t, ctx, visibleCases); strings.Join(got, " ") != "c-type c-evil" {
		t.Errorf("group c: the page shows %v", got)
	}
	clickFilter(t, ctx, "stage", "json-parse")
	if got := evaluate[[]string](t, ctx, visibleCases); strings.Join(got, " ") != "c-evil" {
		t.Errorf("group c at json-parse: the page shows %v", got)
	}
	clickFilter(t, ctx, "group", "all")
	if got := evaluate[[]string](t, ctx, visibleCases); strings.Join(got, " ") != "a-prose c-evil" {
		t.Errorf("any group at json-parse: the page shows %v", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`details[data-id="c-evil"] summary`))); err != nil {
		t.Fatal(err)
	}
	type opened struct {
		Open   bool   `json:"open"`
		Output string `json:"output"`
		Shown  bool   `json:"shown"`
		Issue  string `json:"issue"`
		Pwned  bool   `json:"pwned"`
		Markup int    `json:"markup"`
	}
	got := evaluate[opened](t, ctx, `(() => { const d = document.querySelector('details[data-id="c-evil"]'), pre = d.querySelector('pre.output');
		return {open: d.open, output: pre.textContent, shown: pre.getClientRects().length > 0, issue: d.querySelector('.issues li')?.textContent ?? "",
			pwned: window.pwned !== undefined, markup: document.querySelectorAll('#cases img, #cases script').length}; })()`)
	if !got.Open || !got.Shown || got.Output != hostileOutput || got.Pwned || got.Markup != 0 || !strings.HasPrefix(got.Issue, "#") {
		t.Errorf("the opened hostile case = %+v, want open, its output shown as the text %q beside its issue, no markup made of it", got, hostileOutput)
	}
}

// A report of 100,000 records, half failing, stays one page a browser
// paints at once: it lists the first 1,000 failing cases and says so.
func TestTheEvalPageOfAHundredThousandRecordsStaysUsable(t *testing.T) {
	var data strings.Builder
	for i := range 100_000 {
		out := `{"n":1}`
		if i%2 == 1 {
			out = fmt.Sprintf(`{"n":"%d"}`, i)
		}
		fmt.Fprintf(&data, `{"model":"m%d","schema":{"type":"object","properties":{"n":{"type":"integer"}}},"output":%q}`+"\n", i%7, out)
	}
	rep, err := eval.Offline(t.Context(), strings.NewReader(data.String()), eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, size := serveEvalPage(t, rep)
	paint := evaluate[float64](t, ctx, `performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1`)
	shown := evaluate[string](t, ctx, `document.querySelector('#cases-shown').textContent`)
	n := evaluate[int](t, ctx, `document.querySelectorAll('details.case').length`)
	t.Logf("100,000 records: a page of %d bytes, first contentful paint at %.0f ms", size, paint)
	if size > 2<<20 || n != 1000 || !strings.HasPrefix(shown, "The first 1000 of 50000 failing cases") || paint < 0 {
		t.Errorf("page of %d bytes listing %d cases (%q), painted at %.0f ms; want at most 2 MiB, 1000 listed of 50000, painted", size, n, shown, paint)
	}
}
