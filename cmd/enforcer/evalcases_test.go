package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/eval"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

func TestEvalJSONHoldsEveryCaseInTheDatasetsOrder(t *testing.T) {
	rep := evalJSON(t, "-repair", "fence", evalDataset(t))
	if len(rep.Cases) != 3 {
		t.Fatalf("cases = %+v, want 3", rep.Cases)
	}
	for i, c := range rep.Cases {
		if c.Line != i+1 {
			t.Errorf("case %d at line %d, want %d", i, c.Line, i+1)
		}
	}
	if c := rep.Cases[1]; c.Group != "a" || c.PassedAsWritten || !c.PassedAfterRepair || strings.TrimSpace(c.Mended) != `{"city":"Rome"}` {
		t.Errorf("the fenced answer's case = %+v, want mended by the fence repair", c)
	}
	if c := rep.Cases[2]; c.PassedAfterRepair || c.Stage != "schema-validate" || len(c.Issues) == 0 || c.Issues[0].Path != "/city" {
		t.Errorf("b's case = %+v, want failed at #/city", c)
	}
}

func TestEvalCompareListsTheCasesThatMoved(t *testing.T) {
	data := evalDataset(t)
	save := func(name string, args ...string) string {
		_, out, _ := runCmd(t.Context(), "", append([]string{"eval", "-json"}, append(args, data)...)...)
		return write(t, name, out)
	}
	mended, plain := save("mended.json", "-repair", "all"), save("plain.json")
	code, out, _ := runCmd(t.Context(), "", "eval", "-compare", mended, plain)
	for _, want := range []string{"cases: 1 newly failing, 0 newly passing, 0 changed issue\n", "newly failing: line 2 (a): json-parse at #: "} {
		if code != exitFail || !strings.Contains(out, want) {
			t.Errorf("compare mended → plain: status %d, output lacks %q:\n%s", code, want, out)
		}
	}
	_, out, _ = runCmd(t.Context(), "", "eval", "-compare", plain, mended)
	if !strings.Contains(out, "cases: 0 newly failing, 1 newly passing, 0 changed issue\n") || !strings.Contains(out, "newly passing: line 2 (a)\n") {
		t.Errorf("compare plain → mended:\n%s", out)
	}
	// With -html, NEW's page opens with the case that moved.
	page := filepath.Join(t.TempDir(), "compare.html")
	if code, _, errs := runCmd(t.Context(), "", "eval", "-compare", "-html", page, mended, plain); code != exitFail || errs != "" {
		t.Errorf("compare -html: status %d, stderr %q", code, errs)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), `<p id="compare-summary">1 newly failing, 0 newly passing, 0 failing at another issue;`) ||
		!strings.Contains(string(b), `<details class="moved" data-move="newly-failing" data-id="" data-line="2" data-group="a">`) {
		t.Errorf("the compare page (%v) does not list the newly failing case:\n%s", err, b)
	}
	// Another dataset without ids: no line is matched, and the command says why.
	other := write(t, "other.jsonl", `{"model":"a","schema":{},"output":"1"}`+"\n")
	_, o, _ := runCmd(t.Context(), "", "eval", "-json", other)
	_, out, _ = runCmd(t.Context(), "", "eval", "-compare", plain, write(t, "other.json", o))
	if !strings.Contains(out, "4 cases without a match (a record without an id is matched by line only in one dataset)") {
		t.Errorf("compare two datasets without ids:\n%s", out)
	}
}

func TestEvalWritesJUnitXMLThatParsesBack(t *testing.T) {
	file := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errs := runCmd(t.Context(), "", "eval", "-repair", "all", "-junit", file, evalDataset(t))
	if code != exitOK || errs != "" || !strings.Contains(out, "repairs: ") {
		t.Fatalf("status %d, stderr %q, stdout %q", code, errs, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	if len(got.Suites) != 2 || got.Suites[1].Name != "b" || got.Suites[1].Tests != 1 || got.Suites[1].Failures != 1 {
		t.Fatalf("suites = %+v, want a, and b with its one failing test", got.Suites)
	}
	if c := got.Suites[1].Cases[0]; c.Name != "line 3" || c.Classname != "b" || c.Failure == nil || !strings.HasPrefix(c.Failure.Message, "schema-validate at #/city: ") {
		t.Errorf("b's case = %+v, want line 3 failing at schema-validate, #/city", c)
	}
	code, out, errs = runCmd(t.Context(), "", "eval", "-junit", filepath.Join(t.TempDir(), "no", "such", "dir.xml"), evalDataset(t))
	wantOneLineError(t, code, out, errs, "-junit")
}

func TestEvalFailUnderABareShareGatesTheOverallAsWrittenRate(t *testing.T) {
	data := evalDataset(t) // 1 of 3 pass as written
	code, out, _ := runCmd(t.Context(), "", "eval", "-repair", "all", "-fail-under", "0.9", data)
	if code != exitFail || !strings.Contains(out, "FAIL: as-written under 90.0%: all (33.3%)\n") {
		t.Errorf("-fail-under 0.9: status %d, output:\n%s", code, out)
	}
	if code, out, _ := runCmd(t.Context(), "", "eval", "-fail-under", "0.3", data); code != exitOK {
		t.Errorf("-fail-under 0.3: status %d, want 0:\n%s", code, out)
	}
	for _, bad := range []string{"1.5", "-0.1", "ninety"} {
		code, out, errs := runCmd(t.Context(), "", "eval", "-fail-under", bad, data)
		wantOneLineError(t, code, out, errs, "-fail-under")
	}
}

func TestEvalSaysASchemaPathLeavesTheDatasetsFolder(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "outside.json")
	if err := os.WriteFile(abs, []byte(citySchema), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../outside.json", abs} {
		data := write(t, "path.jsonl", `{"schema":"`+filepath.ToSlash(p)+`","output":"1"}`)
		code, out, errs := runCmd(t.Context(), "", "eval", data)
		wantOneLineError(t, code, out, errs, "leaves the dataset's folder, which is refused on purpose")
	}
}

func TestEvalRefusesANegativePriceBeforeAnyRequest(t *testing.T) {
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests++ }))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", liveKey)
	data := write(t, "prompts.jsonl", `{"schema":{},"prompt":"x"}`)
	prices := write(t, "prices.json", `{"m": {"input": 1, "output": 2}, "cheap": {"input": 0.1, "cachedInput": -0.05}}`)
	code, out, errs := runCmd(t.Context(), "", "eval", "-model", "m", "-base-url", srv.URL+"/v1/", "-prices", prices, data)
	wantOneLineError(t, code, out, errs, `-prices: "cheap": cachedInput is -0.05`)
	if requests != 0 {
		t.Errorf("%d requests sent, want none", requests)
	}
}

// The real model outputs, ids from their source, judged as written and
// with every repair: the comparison lists, case by case, the answers the
// repairs mended, and none they broke; by line, as one dataset, the same.
func TestEvalCompareCaseByCaseOnRealOutputs(t *testing.T) {
	var lines []string
	for _, r := range corpus.ModelOutputs(t) {
		b, err := json.Marshal(map[string]any{"id": r.Source, "model": r.Model, "schema": r.Schema, "output": r.Output})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	withIDs := write(t, "ids.jsonl", strings.Join(lines, "\n")+"\n")
	save := func(name, data string, args ...string) (string, *eval.Report) {
		rep := evalJSON(t, append(args, data)...)
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return write(t, name, string(b)), rep
	}
	plainFile, plain := save("plain.json", withIDs)
	mendedFile, mended := save("mended.json", withIDs, "-repair", "all")
	sum := func(rep *eval.Report, f func(eval.Group) int) (n int) {
		for _, g := range rep.Groups {
			n += f(g)
		}
		return n
	}
	mendedN := sum(mended, func(g eval.Group) int { return g.PassedAfterRepair }) - sum(plain, func(g eval.Group) int { return g.PassedAsWritten })
	code, out, _ := runCmd(t.Context(), "", "eval", "-compare", plainFile, mendedFile)
	head := fmt.Sprintf("cases: 0 newly failing, %d newly passing, ", mendedN)
	if code != exitOK || !strings.Contains(out, head) || strings.Count(out, "\nnewly passing: ") != mendedN || strings.Contains(out, "without a match") {
		t.Errorf("as written → every repair: status %d, want %q and %d listed:\n%.2000s", code, head, mendedN, out)
	}
	code, out, _ = runCmd(t.Context(), "", "eval", "-compare", mendedFile, plainFile)
	if code != exitFail || !strings.Contains(out, fmt.Sprintf("cases: %d newly failing, 0 newly passing, ", mendedN)) {
		t.Errorf("every repair → as written: status %d:\n%.2000s", code, out)
	}
	// Without ids, one dataset: matched by line, the same cases move.
	data := corpus.ModelOutputsFile(t)
	byLinePlain, _ := save("lplain.json", data)
	byLineMended, _ := save("lmended.json", data, "-repair", "all")
	if _, out, _ := runCmd(t.Context(), "", "eval", "-compare", byLinePlain, byLineMended); !strings.Contains(out, head) {
		t.Errorf("by line: want %q:\n%.2000s", head, out)
	}
}

// The eval guide's lines of a comparison are lines the command prints
// for the real model outputs, mended by fence and syntax, then by every
// repair.
func TestTheEvalGuideShowsWhatCompareLists(t *testing.T) {
	data := corpus.ModelOutputsFile(t)
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "eval.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(guide), "<!-- eval-compare -->\n```\n")
	block, _, ok2 := strings.Cut(block, "```\n")
	if !ok || !ok2 {
		t.Fatal("docs/eval.md has no block after <!-- eval-compare -->")
	}
	var reports []string
	for _, repair := range []string{"fence,syntax", "all"} {
		code, out, errs := runCmd(t.Context(), "", "eval", "-json", "-repair", repair, data)
		if code != exitOK {
			t.Fatalf("eval -repair %s: status %d, %s", repair, code, errs)
		}
		reports = append(reports, write(t, "r"+strings.ReplaceAll(repair, ",", "")+".json", out))
	}
	_, out, _ := runCmd(t.Context(), "", "eval", "-compare", reports[0], reports[1])
	printed := map[string]bool{}
	for line := range strings.Lines(out) {
		printed[line] = true
	}
	for line := range strings.Lines(block) {
		if !printed[line] {
			t.Errorf("docs/eval.md shows %q; enforcer eval -compare does not print it", line)
		}
	}
}

// A signal (the context's end) starts no more runs: the run in flight
// ends and is reported, and the report says it is partial.
func TestEvalLiveStoppedReportsTheRunsThatEndedAsPartial(t *testing.T) {
	getenv = func(string) string { return liveKey }
	t.Cleanup(func() { getenv = osGetenv })
	ctx, interrupt := context.WithCancel(t.Context())
	defer interrupt()
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		interrupt() // the signal comes while this run is in flight
		w.Header().Set("Content-Type", "text/event-stream")
		liveServers["openai"](w, `{"city":"Oslo","days":3}`)
	}))
	defer srv.Close()
	data := write(t, "prompts.jsonl", strings.Repeat(fmt.Sprintf(`{"schema":%s,"prompt":"oslo"}`+"\n", citySchema), 3))
	code, out, errs := runCmd(ctx, "", "eval", "-model", "m", "-base-url", srv.URL+"/v1/", data)
	if code != exitFail || errs != "" || requests != 1 {
		t.Fatalf("status %d, stderr %q, %d requests; want 1, nothing, 1", code, errs, requests)
	}
	if lines := strings.Split(out, "\n"); len(lines) < 3 || !strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "m 1 1 (100.0%) 1 (100.0%) 0 0") ||
		!strings.Contains(out, "PARTIAL: stopped by a signal; the figures are of the 1 run that ended\n") {
		t.Errorf("the report of a stopped eval:\n%s", out)
	}
	_, out, _ = runCmd(ctx, "", "eval", "-json", "-model", "m", "-base-url", srv.URL+"/v1/", data)
	if !strings.Contains(out, `"partial": true`) {
		t.Errorf("-json of a stopped eval lacks \"partial\": true:\n%s", out)
	}
}

func TestEvalProgressCountsPassedAndFailedRuns(t *testing.T) {
	var b strings.Builder
	draw := drawProgress(&b)
	draw(eval.RunVerdict{PassedAfterRetry: true}, 1, 3)
	draw(eval.RunVerdict{Exhausted: true}, 2, 3)
	draw(eval.RunVerdict{Error: "503"}, 3, 3)
	want := "\rruns 1/3 [==========                    ] 1 passed, 0 failed" +
		"\rruns 2/3 [====================          ] 1 passed, 1 failed" +
		"\rruns 3/3 [==============================] 1 passed, 2 failed\n"
	if b.String() != want {
		t.Errorf("the bar drew %q, want %q", b.String(), want)
	}
}

func TestEvalPrintsEachGroupsChecks(t *testing.T) {
	checks := `[{"at":"/city","regex":"^[A-Z]"},{"at":"/city","notContains":"x"}]`
	data := write(t, "checks.jsonl", fmt.Sprintf(`{"model":"a","schema":%s,"output":"{\"city\":\"Oslo\"}","checks":%s}
{"model":"a","schema":%s,"output":"{\"city\":\"oslo\"}","checks":%s}
`, citySchema, checks, citySchema, checks))
	code, out, _ := runCmd(t.Context(), "", "eval", data)
	if code != exitOK || !strings.Contains(out, "a checks: 3 of 4 passed\n") {
		t.Errorf("status %d, output:\n%s", code, out)
	}
	if rep := evalJSON(t, data); rep.Groups[0].ChecksRun != 4 || rep.Cases[1].Checks == nil || rep.Cases[1].Checks.Failed[0].Check != 0 {
		t.Errorf("-json: %+v, cases %+v", rep.Groups[0], rep.Cases)
	}
	bad := write(t, "bad.jsonl", fmt.Sprintf(`{"schema":%s,"output":"{}","checks":[{"at":"/city","regex":"("}]}`, citySchema))
	code, out, errs := runCmd(t.Context(), "", "eval", bad)
	wantOneLineError(t, code, out, errs, "line 1: check 0: a check cannot run")
}
