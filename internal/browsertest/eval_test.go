package browsertest_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

// evalData: model a passes as written, once mended and fails; model b's
// one schema does not compile.
const evalData = `{"model":"a","schema":{"type":"object","required":["n"]},"output":"{\"n\":1}"}
{"model":"a","schema":{"type":"object","required":["n"]},"output":"` + "```json\\n{\\\"n\\\":2}\\n```" + `"}
{"model":"a","schema":{"type":"object","required":["n"]},"output":"{}"}
{"model":"a","schema":{"type":"object","required":["n"]},"output":"{\"n\":3}"}
{"model":"b","schema":{"type":"nope"},"output":"{}"}
`

// barView is what the browser draws of one group's bar.
type barView struct {
	Group    string            `json:"group"`
	Segments []segmentView     `json:"segments"`
	Rates    map[string]string `json:"rates"`
}

type segmentView struct {
	Kind  string  `json:"kind"`
	Count int     `json:"count"`
	Width float64 `json:"width"` // on screen, in CSS pixels
}

const readBars = `[...document.querySelectorAll('#rates tr[data-group]')].map(tr => ({
	group: tr.dataset.group,
	segments: [...tr.querySelectorAll('rect')].map(r => ({kind: r.dataset.kind, count: +r.dataset.count, width: r.getBoundingClientRect().width})),
	rates: Object.fromEntries([...tr.querySelectorAll('[data-rate]')].map(td => [td.dataset.rate, td.textContent])),
}))`

// The eval page renders its charts in a real browser, fetches nothing but
// itself, and shows the report's numbers: each bar's segments are the
// report's counts, drawn in proportion.
func TestTheEvalPageDrawsTheReportsNumbers(t *testing.T) {
	rep, err := eval.Offline(t.Context(), strings.NewReader(evalData), eval.Options{Repairs: enforce.AllRepairs})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := eval.WriteHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page.Bytes())
	}))
	defer srv.Close()

	bctx, cancelBrowser := startBrowser(t)
	defer cancelBrowser()
	var mu sync.Mutex
	var requested []string
	if err := chromedp.Listen(bctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requested = append(requested, e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute) // a failure bound, not a sleep
	defer cancel()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible("#rates")); err != nil {
		t.Fatal(err)
	}
	bars, err := chromedp.Run(ctx, chromedp.Evaluate[[]barView](readBars))
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) != len(rep.Groups) {
		t.Fatalf("the page draws %d bars, the report has %d groups", len(bars), len(rep.Groups))
	}
	a := bars[0]
	want := []segmentView{{Kind: "as-written", Count: 2}, {Kind: "repaired", Count: 1}, {Kind: "failed", Count: 1}}
	if a.Group != "a" || len(a.Segments) != len(want) {
		t.Fatalf("group a's bar = %+v, want segments %+v", a, want)
	}
	for i, w := range want {
		s := a.Segments[i]
		if s.Kind != w.Kind || s.Count != w.Count {
			t.Errorf("segment %d = %+v, want %s %d", i, s, w.Kind, w.Count)
		}
		// Drawn in proportion: 2:1:1 of the bar.
		if ratio := s.Width / a.Segments[2].Width; s.Width <= 0 || ratio < float64(w.Count)-0.05 || ratio > float64(w.Count)+0.05 {
			t.Errorf("segment %s is %.1f px wide, %.2f× the failed one's, want %d×", s.Kind, s.Width, ratio, w.Count)
		}
	}
	g := rep.Groups[0]
	if got := a.Rates["as-written"]; got != "2 (50.0%)" || g.PassedAsWritten != 2 {
		t.Errorf("group a's as-written cell = %q, report %d", got, g.PassedAsWritten)
	}
	if got := a.Rates["after-repair"]; got != "3 (75.0%)" || g.PassedAfterRepair != 3 {
		t.Errorf("group a's after-repair cell = %q, report %d", got, g.PassedAfterRepair)
	}
	if b := bars[1]; b.Group != "b" || len(b.Segments) != 1 || b.Segments[0].Kind != "schema-error" || b.Segments[0].Count != rep.Groups[1].SchemaErrors {
		t.Errorf("group b's bar = %+v, want one schema-error segment of %d", b, rep.Groups[1].SchemaErrors)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(requested) != 1 || requested[0] != srv.URL+"/" {
		t.Errorf("the page requested %q, want only itself", requested)
	}
}
