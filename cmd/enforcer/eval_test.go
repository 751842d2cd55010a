package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/eval"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// evalDataset is three records of two models: a pass, a fenced answer
// the fence repair mends, and one missing its city.
func evalDataset(t *testing.T) string {
	t.Helper()
	lines := []string{
		fmt.Sprintf(`{"model":"a","schema":%s,"output":%q}`, citySchema, `{"city":"Oslo"}`),
		fmt.Sprintf(`{"model":"a","schema":%s,"output":%q}`, citySchema, "```json\n{\"city\":\"Rome\"}\n```"),
		fmt.Sprintf(`{"model":"b","schema":%s,"output":%q}`, citySchema, `{"days":2}`),
	}
	return write(t, "data.jsonl", strings.Join(lines, "\n")+"\n")
}

func evalJSON(t *testing.T, args ...string) *eval.Report {
	t.Helper()
	code, out, errs := runCmd(t.Context(), "", append([]string{"eval", "-json"}, args...)...)
	if code != exitOK {
		t.Fatalf("eval -json %v: status %d, stderr %q", args, code, errs)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval -json printed %q: %v", out, err)
	}
	return &rep
}

func TestEvalPrintsTheFiguresByModel(t *testing.T) {
	data := evalDataset(t)
	code, out, errs := runCmd(t.Context(), "", "eval", "-repair", "fence", data)
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	for _, want := range []string{"a      2        1 (50.0%)   2 (100.0%)", "b      1        0 (0.0%)    0 (0.0%)", "all    3        1 (33.3%)   2 (66.7%)", "repairs: fence", "b failed at: schema-validate 1; most at #/city (1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	md := func() string { _, out, _ := runCmd(t.Context(), "", "eval", "-md", data); return out }()
	if !strings.Contains(md, "| a | 2 | 1 (50.0%) | 1 (50.0%) | json-parse 1 |") || !strings.Contains(md, "| **all** | 3 |") {
		t.Errorf("-md without repairs:\n%s", md)
	}
	rep := evalJSON(t, "-repair", "all", data)
	if rep.Records != 3 || len(rep.Groups) != 2 || rep.Groups[0].PassedAfterRepair != 2 || rep.Groups[1].Pointers[0].Key != "/city" {
		t.Errorf("-json = %+v", rep)
	}
}

func TestEvalFailUnderExitsOneNamingTheGroups(t *testing.T) {
	data := evalDataset(t)
	code, out, _ := runCmd(t.Context(), "", "eval", "-repair", "all", "-fail-under", "after-repair=0.9", data)
	if code != exitFail || !strings.Contains(out, "FAIL: after-repair under 90.0%: b (0.0%)") {
		t.Errorf("gate at 0.9: status %d, output:\n%s", code, out)
	}
	if code, _, _ := runCmd(t.Context(), "", "eval", "-fail-under", "as-written=0", data); code != exitOK {
		t.Errorf("gate at 0: status %d, want 0", code)
	}
	for _, bad := range []string{"after-repair", "after-repair=2", "sometimes=0.5"} {
		code, out, errs := runCmd(t.Context(), "", "eval", "-fail-under", bad, data)
		wantOneLineError(t, code, out, errs, "-fail-under")
	}
}

func TestEvalCompareExitsOneOnARegression(t *testing.T) {
	data := evalDataset(t)
	save := func(name string, args ...string) string {
		_, out, _ := runCmd(t.Context(), "", append([]string{"eval", "-json"}, append(args, data)...)...)
		return write(t, name, out)
	}
	mended, plain := save("mended.json", "-repair", "all"), save("plain.json")
	code, out, _ := runCmd(t.Context(), "", "eval", "-compare", mended, plain)
	if code != exitFail || !strings.Contains(out, "a      after-repair  100.0%  50.0%  REGRESSED") || !strings.Contains(out, "a: # failing 0 → 1") {
		t.Errorf("compare mended → plain: status %d, output:\n%s", code, out)
	}
	if code, out, _ := runCmd(t.Context(), "", "eval", "-compare", plain, mended); code != exitOK || strings.Contains(out, "REGRESSED") {
		t.Errorf("compare plain → mended: status %d, output:\n%s", code, out)
	}
	if code, _, _ := runCmd(t.Context(), "", "eval", "-compare", "-tolerance", "0.6", mended, plain); code != exitOK {
		t.Errorf("a 50-point fall within a tolerance of 60: status %d, want 0", code)
	}
	code, out, errs := runCmd(t.Context(), "", "eval", "-compare", mended)
	wantOneLineError(t, code, out, errs, "want OLD and NEW")
	code, out, errs = runCmd(t.Context(), "", "eval", "-compare", data, mended)
	wantOneLineError(t, code, out, errs, "is not a report")
}

func TestEvalRefusesBadArgumentsAndDatasets(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval"}, "want one DATASET"},
		{[]string{"eval", "-json", "-md", "x"}, "choose one"},
		{[]string{"eval", "-repair", "magic", "x"}, "-repair"},
		{[]string{"eval", filepath.Join(t.TempDir(), "none.jsonl")}, "no such file"},
		{[]string{"eval", write(t, "bad.jsonl", "{\"schema\":{},\"output\":\"1\"}\nnope\n")}, "line 2: not a record"},
		{[]string{"eval", write(t, "path.jsonl", `{"schema":"../outside.json","output":"1"}`)}, "schema"},
	} {
		code, out, errs := runCmd(t.Context(), "", tc.args...)
		wantOneLineError(t, code, out, errs, tc.want)
	}
}

func TestEvalReadsASchemaFileBesideTheDataset(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "city.json"), []byte(citySchema), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data.jsonl")
	if err := os.WriteFile(data, []byte(`{"model":"m","schema":"city.json","output":"{\"city\":\"Oslo\"}"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := evalJSON(t, data); rep.Groups[0].PassedAsWritten != 1 {
		t.Errorf("a record naming its schema file: %+v, want it passed", rep.Groups[0])
	}
}

// Record by record over the real model outputs (every tenth), eval's
// verdict is check's, as written and with every repair.
func TestEvalIsCheckRecordByRecordOnRealOutputs(t *testing.T) {
	recs := corpus.ModelOutputs(t)
	dir := t.TempDir()
	for i := 0; i < len(recs); i += 10 {
		r := recs[i]
		schema := filepath.Join(dir, "schema.json")
		answer := filepath.Join(dir, "answer.txt")
		line, _ := json.Marshal(map[string]any{"model": r.Model, "schema": r.Schema, "output": r.Output})
		data := filepath.Join(dir, "one.jsonl")
		for name, b := range map[string][]byte{schema: r.Schema, answer: []byte(r.Output), data: line} {
			if err := os.WriteFile(name, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, repair := range []string{"", "all"} {
			checkCode, _, _ := runCmd(t.Context(), "", "check", "-repair", repair, schema, answer)
			g := evalJSON(t, "-repair", repair, data).Groups[0]
			passed := g.PassedAsWritten
			if repair != "" {
				passed = g.PassedAfterRepair
			}
			if (checkCode == exitOK) != (passed == 1) || g.SchemaErrors != 0 {
				t.Errorf("record %d (%s), -repair %q: check exits %d, eval counts %d passed", i, r.Source, repair, checkCode, passed)
			}
		}
	}
}

// The eval guide's table of the real model outputs is what the command
// prints for them.
func TestTheEvalGuideShowsWhatEvalPrints(t *testing.T) {
	path := corpus.ModelOutputsFile(t)
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "eval.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(guide), "<!-- eval-table -->\n```\n")
	block, _, ok2 := strings.Cut(block, "```\n")
	if !ok || !ok2 {
		t.Fatal("docs/eval.md has no block after <!-- eval-table -->")
	}
	code, out, errs := runCmd(t.Context(), "", "eval", "-repair", "all", path)
	if code != exitOK {
		t.Fatalf("eval: status %d, %s", code, errs)
	}
	if out != block {
		t.Errorf("docs/eval.md shows\n%s\nenforcer eval -repair all prints\n%s", block, out)
	}
}

func TestEvalWritesTheHTMLPage(t *testing.T) {
	data := evalDataset(t)
	page := filepath.Join(t.TempDir(), "eval.html")
	code, out, errs := runCmd(t.Context(), "", "eval", "-repair", "all", "-html", page, data)
	if code != exitOK || errs != "" || !strings.Contains(out, "repairs: ") {
		t.Fatalf("status %d, stderr %q, stdout %q", code, errs, out)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `<tr data-group="a">`) || !strings.Contains(string(b), `data-rate="after-repair">2 (100.0%)`) {
		t.Errorf("the page lacks group a's row:\n%s", b)
	}
	code, out, errs = runCmd(t.Context(), "", "eval", "-html", filepath.Join(t.TempDir(), "no", "such", "dir.html"), data)
	wantOneLineError(t, code, out, errs, "-html")
}

// A choice dataset's -md holds each group's confusion matrix and
// per-label scores; the table says how many were exactly right.
func TestEvalShowsAChoiceDatasetsConfusionMatrix(t *testing.T) {
	const schema = `{"enum":["neg","pos"]}`
	data := write(t, "choice.jsonl", `{"model":"c","schema":`+schema+`,"output":"\"pos\"","expected":"pos"}
{"model":"c","schema":`+schema+`,"output":"\"pos\"","expected":"neg"}
{"model":"c","schema":`+schema+`,"output":"neg","expected":"neg"}
`)
	code, out, errs := runCmd(t.Context(), "", "eval", "-md", data)
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	for _, want := range []string{
		"**c**: 1 of 3 labelled records exactly right",
		"| expected \\ answered | neg | pos | failed |",
		"| neg | 0 | 1 | 1 |",
		"| pos | 0 | 1 | 0 |",
		"| neg | - | 0.000 | 0 | 0 | 2 |",
		"| pos | 0.500 | 1.000 | 1 | 1 | 0 |",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("-md lacks the line %q:\n%s", want, out)
		}
	}
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "eval.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(guide), "<!-- eval-labels -->\n```\n")
	block, _, ok2 := strings.Cut(block, "```\n")
	if _, printed, _ := strings.Cut(out, "\n\n"); !ok || !ok2 || block != printed {
		t.Errorf("docs/eval.md shows, after <!-- eval-labels -->,\n%s\nenforcer eval -md prints after its table\n%s", block, printed)
	}
	_, out, _ = runCmd(t.Context(), "", "eval", data)
	if !strings.Contains(out, "c labels: 1 of 3 exactly right") {
		t.Errorf("the table does not count the labelled records:\n%s", out)
	}
}
