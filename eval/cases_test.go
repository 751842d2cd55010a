package eval_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

func TestTheReportHoldsEveryCaseInTheDatasetsOrder(t *testing.T) {
	rep := offline(t, dataset, eval.Options{Repairs: enforce.AllRepairs})
	var lines []int
	var ids []string
	for _, c := range rep.Cases {
		lines, ids = append(lines, c.Line), append(ids, c.ID)
	}
	if want := []int{1, 2, 4, 5}; !slices.Equal(lines, want) || !slices.Equal(ids, []string{"a1", "a2", "b1", "b2"}) {
		t.Fatalf("cases at lines %v with ids %v, want lines %v (the blank line is none) and a1 a2 b1 b2", lines, ids, want)
	}
	a1, a2, b1, b2 := rep.Cases[0], rep.Cases[1], rep.Cases[2], rep.Cases[3]
	if !a1.PassedAsWritten || !a1.PassedAfterRepair || a1.Mended != "" || a1.Repaired != 0 {
		t.Errorf("a1 = %+v, want passed as written, nothing mended", a1)
	}
	if a2.Group != "a" || a2.PassedAsWritten || !a2.PassedAfterRepair || a2.Repaired&enforce.RepairFence == 0 || strings.TrimSpace(a2.Mended) != `{"city":"Rome","tempC":18}` {
		t.Errorf("a2 = %+v, want failed as written, passed once the fence was taken off, the mended text kept", a2)
	}
	if b1.PassedAfterRepair || b1.Stage != enforce.StageSchemaValidate || len(b1.Issues) == 0 || b1.Issues[0].Path != "/tempC" {
		t.Errorf("b1 = %+v, want failed at schema-validate at /tempC", b1)
	}
	if b2.SchemaError == "" || b2.PassedAsWritten || b2.PassedAfterRepair {
		t.Errorf("b2 = %+v, want its schema's error and neither verdict", b2)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Cases []map[string]any `json:"cases"`
	}
	if err := json.Unmarshal(b, &back); err != nil || len(back.Cases) != 4 || back.Cases[1]["line"] != 2.0 || back.Cases[1]["passedAfterRepair"] != true || back.Cases[1]["mended"] == nil {
		t.Errorf("the report's JSON cases = %v (%v), want four, the second at line 2, passed after repair, mended", back.Cases, err)
	}
}

func TestLiveCasesHoldEachRunsRowsTokensMoneyAndLatency(t *testing.T) {
	tick := time.Unix(0, 0)
	clock := func() time.Time { tick = tick.Add(10 * time.Millisecond); return tick }
	rep, err := eval.Live(t.Context(), strings.NewReader(liveDataset("oslo", "lima")), eval.LiveOptions{
		Model: scripted("m"),
		Agent: []agent.Option{agent.WithOutputRetries(1), agent.WithPrices(map[string]agent.Price{"m": {Input: 1, Output: 2}})},
		Runs:  2,
		Now:   clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 2 || rep.Cases[0].ID != "oslo" || rep.Cases[1].ID != "lima" || rep.Cases[1].Line != 2 {
		t.Fatalf("cases = %+v, want oslo then lima", rep.Cases)
	}
	lima := rep.Cases[1]
	if len(lima.Runs) != 2 || lima.Runs[0].Run != 1 || lima.Runs[1].Run != 2 {
		t.Fatalf("lima's runs = %+v, want its two runs in order", lima.Runs)
	}
	r := lima.Runs[0]
	if len(r.Rows) != 2 || r.Rows[0].Outcome == enforce.OutcomePassed || r.Rows[1].Outcome != enforce.OutcomePassed || r.Usage.InputTokens != 20 || r.Money == 0 || r.Latency != 10*time.Millisecond {
		t.Errorf("lima's first run = %+v, want two rows (failed, then passed), 20 input tokens, its money and 10 ms", r)
	}
	if lima.PassedAsWritten || lima.Stage != enforce.StageSchemaValidate || len(lima.Issues) == 0 {
		t.Errorf("lima = %+v, want its first answers failed at schema-validate", lima)
	}
	if oslo := rep.Cases[0]; !oslo.PassedAsWritten || !oslo.PassedAfterRepair || len(oslo.Runs) != 2 {
		t.Errorf("oslo = %+v, want passed in both runs", oslo)
	}
}

// moved is the moves of d's cases, as "move id".
func moved(d eval.Diff) []string {
	var out []string
	for _, c := range d.Cases {
		out = append(out, string(c.Move)+" "+c.New.ID+c.Old.ID)
	}
	return out
}

func TestCompareListsTheCasesThatMoved(t *testing.T) {
	plain := offline(t, dataset, eval.Options{})
	mended := offline(t, dataset, eval.Options{Repairs: enforce.AllRepairs})
	if got, want := moved(eval.Compare(mended, plain, 0.01)), []string{"newly-failing a2a2"}; !slices.Equal(got, want) {
		t.Errorf("mended → plain moved %v, want %v", got, want)
	}
	if got, want := moved(eval.Compare(plain, mended, 0.01)), []string{"newly-passing a2a2"}; !slices.Equal(got, want) {
		t.Errorf("plain → mended moved %v, want %v", got, want)
	}
	// b1 now lacks its city rather than its tempC, and the records are in
	// another order: matched by id.
	other := strings.Join([]string{
		`{"id":"b1","model":"b","schema":` + cityJSON + `,"output":"{\"tempC\":3}"}`,
		`{"id":"a2","model":"a","schema":` + cityJSON + `,"output":"{\"city\":\"Rome\",\"tempC\":18}"}`,
		`{"id":"a1","model":"a","schema":` + cityJSON + `,"output":"{\"city\":\"Oslo\",\"tempC\":3}"}`,
	}, "\n")
	d := eval.Compare(plain, offline(t, other, eval.Options{}), 0.01)
	if got, want := moved(d), []string{"changed-issue b1b1", "newly-passing a2a2"}; !slices.Equal(got, want) {
		t.Errorf("plain → other moved %v, want %v", got, want)
	}
	if d.Unmatched != 1 {
		t.Errorf("unmatched = %d, want 1 (b2, only in the old)", d.Unmatched)
	}
}

func TestCompareMatchesRecordsWithoutIDsByLineOnlyInOneDataset(t *testing.T) {
	noIDs := strings.Join([]string{
		`{"model":"a","schema":` + cityJSON + `,"output":"{\"city\":\"Oslo\",\"tempC\":3}"}`,
		`{"model":"a","schema":` + cityJSON + `,"output":"` + "```json\\n{\\\"city\\\":\\\"Rome\\\",\\\"tempC\\\":18}\\n```" + `"}`,
	}, "\n")
	plain := offline(t, noIDs, eval.Options{})
	mended := offline(t, noIDs, eval.Options{Repairs: enforce.AllRepairs})
	d := eval.Compare(plain, mended, 0.01)
	if len(d.Cases) != 1 || d.Cases[0].Move != eval.NewlyPassing || d.Cases[0].New.Line != 2 || d.Unmatched != 0 {
		t.Errorf("one dataset twice: %+v, want line 2 newly passing, none unmatched", d)
	}
	// Another dataset: lines name other records, so none is matched.
	otherData := noIDs + "\n"
	d = eval.Compare(plain, offline(t, otherData+`{"model":"a","schema":{},"output":"1"}`, eval.Options{Repairs: enforce.AllRepairs}), 0.01)
	if len(d.Cases) != 0 || d.Unmatched != 5 {
		t.Errorf("two datasets: %d cases, %d unmatched; want none matched, 5 unmatched", len(d.Cases), d.Unmatched)
	}
}

func TestOfflineRefusesASchemaPathThatLeavesTheDatasetsFolder(t *testing.T) {
	files := fstest.MapFS{"city.json": {Data: []byte(cityJSON)}}
	for _, p := range []string{"../outside.json", "/etc/outside.json", "sub/../../outside.json"} {
		data := `{"schema":"` + p + `","output":"1"}`
		_, err := eval.Offline(t.Context(), strings.NewReader(data), eval.Options{Schemas: files})
		if !errors.Is(err, eval.ErrSchemaOutside) {
			t.Errorf("schema %q: err = %v, want ErrSchemaOutside", p, err)
		}
	}
	if _, err := eval.Offline(t.Context(), strings.NewReader(`{"schema":"./city.json","output":"1"}`), eval.Options{Schemas: files}); err != nil {
		t.Errorf("a path inside the folder: %v", err)
	}
}
