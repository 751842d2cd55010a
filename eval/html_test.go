package eval_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

func page(t *testing.T, rep *eval.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := eval.WriteHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The page fetches nothing: no script, no link, no URL of any scheme,
// and a policy that would refuse one.
func TestThePageIsSelfContained(t *testing.T) {
	html := page(t, offline(t, dataset, eval.Options{Repairs: enforce.AllRepairs}))
	for _, banned := range []string{"<script", "<link", "http:", "https:", "url(", "<img", "@import"} {
		if strings.Contains(html, banned) {
			t.Errorf("the page holds %q", banned)
		}
	}
	if !strings.Contains(html, `content="default-src 'none'; style-src 'unsafe-inline'"`) {
		t.Error("the page has no policy refusing fetches")
	}
}

// Each group's bar holds a segment per way its records went, whose counts
// are the report's and whose widths sum to the whole bar.
func TestThePageBarsAreTheReportsCounts(t *testing.T) {
	rep := offline(t, dataset, eval.Options{Repairs: enforce.AllRepairs})
	html := page(t, rep)
	rect := regexp.MustCompile(`<rect class="([a-z-]+)" data-kind="[a-z-]+" data-count="(\d+)" x="[0-9.]+" width="([0-9.]+)"`)
	rows := strings.Split(html, `<tr data-group=`)[1:]
	if len(rows) != len(rep.Groups) {
		t.Fatalf("%d rows, want %d", len(rows), len(rep.Groups))
	}
	for i, g := range rep.Groups {
		got := map[string]int{}
		width := 0.0
		for _, m := range rect.FindAllStringSubmatch(rows[i], -1) {
			n, _ := strconv.Atoi(m[2])
			w, _ := strconv.ParseFloat(m[3], 64)
			got[m[1]], width = n, width+w
		}
		want := map[string]int{}
		if g.PassedAsWritten > 0 {
			want["as-written"] = g.PassedAsWritten
		}
		if n := g.PassedAfterRepair - g.PassedAsWritten; n > 0 {
			want["repaired"] = n
		}
		if n := g.Records - g.SchemaErrors - g.PassedAfterRepair; n > 0 {
			want["failed"] = n
		}
		if g.SchemaErrors > 0 {
			want["schema-error"] = g.SchemaErrors
		}
		if len(got) != len(want) || width < 99.99 || width > 100.01 {
			t.Errorf("group %s: segments %v (widths sum %.3f), want %v summing to 100", g.Group, got, width, want)
		}
		for k, n := range want {
			if got[k] != n {
				t.Errorf("group %s: segment %s = %d, want %d", g.Group, k, got[k], n)
			}
		}
	}
}

func TestThePageOfALiveEvalShowsRetriesAndTokens(t *testing.T) {
	rep := &eval.Report{Records: 2, Groups: []eval.Group{{Group: "m", Records: 2, Runs: 4, PassedAsWritten: 1, PassedAfterRepair: 2, PassedFirstTry: 2, PassedAfterRetry: 3, Exhausted: 1, Tokens: 300, Money: 0.003}}}
	html := page(t, rep)
	for _, want := range []string{`data-kind="retried" data-count="1"`, `data-kind="repaired" data-count="1"`, `data-kind="failed" data-count="1"`, `data-rate="after-retry">3 (75.0%)`, `data-figure="tokens-per-pass">100`, `data-figure="money-per-pass">0.001000`} {
		if !strings.Contains(html, want) {
			t.Errorf("the live page lacks %q", want)
		}
	}
}

// A group name or pointer is text on the page, never markup.
func TestThePageEscapesWhatTheDatasetNames(t *testing.T) {
	rep := &eval.Report{Records: 1, Groups: []eval.Group{{Group: `<script>alert(1)</script>`, Records: 1, Failed: map[enforce.Stage]int{"json-parse": 1}, Pointers: []eval.Count{{Key: `/"><b>x`, Count: 1}}}}}
	html := page(t, rep)
	if strings.Contains(html, "<script>") || strings.Contains(html, `"><b>`) {
		t.Errorf("the page holds a name unescaped:\n%s", html)
	}
}
