package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

const cityJSON = `{"type":"object","properties":{"city":{"type":"string"},"tempC":{"type":"number"}},"required":["city","tempC"]}`

// A small dataset: two models; one answer passing, one fenced (the fence
// repair mends it), one missing a member, one with a schema that does not
// compile.
var dataset = strings.Join([]string{
	`{"id":"a1","model":"a","schema":` + cityJSON + `,"output":"{\"city\":\"Oslo\",\"tempC\":3}"}`,
	`{"id":"a2","model":"a","schema":` + cityJSON + `,"output":"` + "```json\\n{\\\"city\\\":\\\"Rome\\\",\\\"tempC\\\":18}\\n```" + `"}`,
	``,
	`{"id":"b1","model":"b","schema":` + cityJSON + `,"output":"{\"city\":\"Lima\"}"}`,
	`{"id":"b2","model":"b","schema":{"type":"nope"},"output":"{}"}`,
}, "\n")

func offline(t *testing.T, data string, opts eval.Options) *eval.Report {
	t.Helper()
	rep, err := eval.Offline(t.Context(), strings.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func group(t *testing.T, rep *eval.Report, name string) eval.Group {
	t.Helper()
	for _, g := range rep.Groups {
		if g.Group == name {
			return g
		}
	}
	t.Fatalf("no group %q in %+v", name, rep.Groups)
	return eval.Group{}
}

func TestOfflineCountsWhatPassedAsWrittenAndWhatARepairMended(t *testing.T) {
	plain := offline(t, dataset, eval.Options{})
	if plain.Records != 4 || len(plain.Groups) != 2 {
		t.Fatalf("records %d, groups %d; want 4 records (the blank line is none) in 2 groups", plain.Records, len(plain.Groups))
	}
	a := group(t, plain, "a")
	if a.PassedAsWritten != 1 || a.PassedAfterRepair != 1 || a.Failed[enforce.StageJSONParse] != 1 {
		t.Errorf("group a without repairs = %+v, want 1 passed as written and after repair (none chosen), 1 failed at json-parse", a)
	}
	mended := offline(t, dataset, eval.Options{Repairs: enforce.AllRepairs})
	a = group(t, mended, "a")
	if a.PassedAsWritten != 1 || a.PassedAfterRepair != 2 || a.Repaired["fence"] != 1 || len(a.Failed) != 0 {
		t.Errorf("group a with every repair = %+v, want 1 as written, 2 after repair, the fence repair counted once, none failed", a)
	}
	b := group(t, mended, "b")
	if b.Records != 2 || b.SchemaErrors != 1 || b.PassedAfterRepair != 0 || b.Failed[enforce.StageSchemaValidate] != 1 {
		t.Errorf("group b = %+v, want 2 records, 1 schema error, 1 failed at schema-validate", b)
	}
	if len(b.Pointers) != 1 || b.Pointers[0] != (eval.Count{Key: "/tempC", Count: 1}) {
		t.Errorf("group b's pointers = %v, want /tempC once", b.Pointers)
	}
	if r, _ := b.Rate(eval.AfterRepair); r != 0 {
		t.Errorf("group b's after-repair rate = %v, want 0 (its one judged record failed)", r)
	}
	if r, _ := a.Rate(eval.AsWritten); r != 0.5 {
		t.Errorf("group a's as-written rate = %v, want 0.5", r)
	}
}

func TestOfflineGroupsByTheFieldNamed(t *testing.T) {
	data := `{"task":"x","model":"a","schema":{},"output":"1"}
{"task":{"n":1},"model":"a","schema":{},"output":"1"}
{"model":"a","schema":{},"output":"1"}`
	rep := offline(t, data, eval.Options{By: "task"})
	var names []string
	for _, g := range rep.Groups {
		names = append(names, g.Group)
	}
	if got := strings.Join(names, "|"); got != `|x|{"n":1}` {
		t.Errorf("groups by task = %q, want the missing field, the string and the JSON text", got)
	}
}

func TestOfflineReadsSchemasByPath(t *testing.T) {
	fsys := fstest.MapFS{"schemas/city.json": {Data: []byte(cityJSON)}}
	data := `{"model":"a","schema":"schemas/city.json","output":"{\"city\":\"Oslo\",\"tempC\":3}"}`
	if g := group(t, offline(t, data, eval.Options{Schemas: fsys}), "a"); g.PassedAsWritten != 1 {
		t.Errorf("a record whose schema is a file: %+v, want it passed", g)
	}
	_, err := eval.Offline(t.Context(), strings.NewReader(data), eval.Options{})
	if err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a schema path with no folder = %v, want an error naming line 1", err)
	}
}

func TestOfflineComparesExpectedValuesLeafByLeaf(t *testing.T) {
	data := `{"model":"a","schema":{},"output":"{\"city\":\"Oslo\",\"tempC\":3.0,\"tags\":[\"x\"]}","expected":{"city":"Oslo","tempC":3,"tags":["y"],"wind":null}}
{"model":"a","schema":{"type":"object"},"output":"not json","expected":{"city":"Oslo"}}`
	var vs []eval.Verdict
	rep := offline(t, data, eval.Options{Verdict: func(v eval.Verdict) { vs = append(vs, v) }})
	f := vs[0].Fields
	if f == nil || f.Compared != 4 || f.Matched != 2 || strings.Join(f.Wrong, ",") != "/tags/0,/wind" {
		t.Errorf("fields of the first record = %+v, want 4 compared, city and tempC (3.0 is 3) matched, /tags/0 and /wind wrong", f)
	}
	if f := vs[1].Fields; f == nil || f.Matched != 0 || f.Compared != 1 {
		t.Errorf("fields of a failing answer = %+v, want its one leaf compared and not matched", f)
	}
	g := group(t, rep, "a")
	if g.FieldsCompared != 5 || g.FieldsMatched != 2 || len(g.FieldsWrong) != 3 {
		t.Errorf("group fields = %d compared, %d matched, wrong %v; want 5, 2 and three pointers", g.FieldsCompared, g.FieldsMatched, g.FieldsWrong)
	}
}

func TestOfflineNamesTheLineThatIsNotARecord(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"schema":{},"output":"1"}` + "\nnot json", "line 2: not a record"},
		{`{"output":"1"}`, `line 1: the record has no "schema"`},
		{`{"schema":{}}`, `line 1: the record has no "output"`},
	} {
		_, err := eval.Offline(t.Context(), strings.NewReader(tc.data), eval.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Offline(%q) = %v, want an error with %q", tc.data, err, tc.want)
		}
	}
}

func TestOfflineRefusesALineOverItsBound(t *testing.T) {
	long := `{"schema":{},"output":"` + strings.Repeat("x", eval.MaxRecordBytes) + `"}`
	_, err := eval.Offline(t.Context(), strings.NewReader(long), eval.Options{})
	if !errors.Is(err, eval.ErrLineTooLong) {
		t.Errorf("a line over MaxRecordBytes: %v, want ErrLineTooLong", err)
	}
}

func TestOfflineStopsWhenItsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("stop")
	n := 0
	_, err := eval.Offline(ctx, strings.NewReader(strings.Repeat(`{"schema":{},"output":"1"}`+"\n", 10)), eval.Options{
		Verdict: func(eval.Verdict) {
			if n++; n == 3 {
				cancel(stop)
			}
		},
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("Offline after cancel: %v after %d records, want the cause after 3", err, n)
	}
}

// Over the real model outputs, each record's verdicts are the library's:
// Check as written, and Check with every repair.
func TestOfflineOnRealModelOutputsIsCheckRecordByRecord(t *testing.T) {
	path := corpus.ModelOutputsFile(t)
	recs := corpus.ModelOutputs(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	i := 0
	rep, err := eval.Offline(t.Context(), f, eval.Options{Repairs: enforce.AllRepairs, Verdict: func(v eval.Verdict) {
		r := recs[i]
		i++
		s, err := enforce.CompileSchema(r.Schema)
		if err != nil {
			if v.SchemaError == "" {
				t.Errorf("line %d: the schema does not compile (%v) but eval judged it", v.Line, err)
			}
			return
		}
		written := s.Check(r.Output) == nil
		mended := s.WithRepairs(enforce.AllRepairs).Check(r.Output) == nil
		if v.PassedAsWritten != written || v.PassedAfterRepair != mended || v.Group != r.Model {
			t.Errorf("line %d: eval %v/%v in %q, Check %v/%v in %q", v.Line, v.PassedAsWritten, v.PassedAfterRepair, v.Group, written, mended, r.Model)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if i != len(recs) || rep.Records != len(recs) {
		t.Fatalf("eval judged %d records (%d verdicts), the corpus holds %d", rep.Records, i, len(recs))
	}
	var written, mended int
	for _, g := range rep.Groups {
		written += g.PassedAsWritten
		mended += g.PassedAfterRepair
		t.Logf("%-28s %5d records  %5d as written  %5d after repair", g.Group, g.Records, g.PassedAsWritten, g.PassedAfterRepair)
	}
	t.Logf("all: %d records, %d as written, %d after repair", rep.Records, written, mended)
}

// A run saved as JSON (as agenttest.Replay reads it) is a record: its
// first answer is judged as the model wrote it.
func TestOfflineJudgesTheFirstAnswerOfASavedRun(t *testing.T) {
	m := agenttest.NewModel(t,
		agenttest.Reply("```json\n{\"city\":\"Oslo\",\"tempC\":3}\n```"), // fenced: fails as written
		agenttest.Reply(`{"city":"Oslo","tempC":3}`),
	)
	s, err := enforce.CompileSchema([]byte(cityJSON))
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := agent.RunTyped[struct {
		City  string  `json:"city"`
		TempC float64 `json:"tempC"`
	}](t.Context(), agent.New(m, agent.WithOutputSchema(s), agent.WithOutputRetries(1)), "weather?")
	if err != nil {
		t.Fatal(err)
	}
	saved, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	data := `{"model":"m","schema":` + cityJSON + `,"result":` + string(saved) + "}\n" + `{"schema":{},"result":{"messages":[]}}`
	_, err = eval.Offline(t.Context(), strings.NewReader(data), eval.Options{})
	if err == nil || !strings.Contains(err.Error(), `line 2: "result" has no rows`) {
		t.Errorf("a saved run without rows: %v, want line 2 refused", err)
	}
	rep := offline(t, strings.SplitN(data, "\n", 2)[0], eval.Options{Repairs: enforce.AllRepairs})
	if g := group(t, rep, "m"); g.Records != 1 || g.PassedAsWritten != 0 || g.PassedAfterRepair != 1 || g.Repaired["fence"] != 1 {
		t.Errorf("the saved run's record = %+v, want its first (fenced) answer failing as written and mended by the fence repair", g)
	}
}
