package oracle_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// junitData: group a passes once as written and once mended; group b
// fails at the schema, has a schema that does not compile, a hostile
// output and a check that fails.
const junitData = `{"id":"a1","model":"a","schema":{"type":"object","required":["n"]},"output":"{\"n\":1}"}
{"id":"a2","model":"a","schema":{"type":"object","required":["n"]},"output":"` + "```json\\n{\\\"n\\\":2}\\n```" + `"}
{"id":"b1","model":"b","schema":{"type":"object","properties":{"n":{"type":"integer"}}},"output":"{\"n\":\"x\"}"}
{"id":"b2","model":"b","schema":{"type":"nope"},"output":"{}"}
{"id":"b3 <\"&>","model":"b","schema":{"type":"object"},"output":"</failure><x>\u0001"}
{"id":"b4","model":"b","schema":{"type":"object"},"output":"{\"n\":\"hello\"}","checks":[{"at":"/n","contains":"bye"}]}
`

// ingest writes rep as JUnit XML and reads it back with a JUnit consumer
// that is not ours (github.com/joshdk/go-junit, as CI dashboards use).
func ingest(t *testing.T, rep *eval.Report) []junit.Suite {
	t.Helper()
	var buf bytes.Buffer
	if err := eval.WriteJUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.Ingest(buf.Bytes())
	if err != nil {
		t.Fatalf("a JUnit consumer does not read the file: %v\n%s", err, buf.String())
	}
	return suites
}

// A third-party JUnit consumer reads the -junit file as eval means it: a
// suite per group, a test per record, failures and errors where the
// report has them, each failure's message naming its stage or check.
func TestAJUnitConsumerReadsTheEvalsCases(t *testing.T) {
	rep, err := eval.Offline(t.Context(), strings.NewReader(junitData), eval.Options{Repairs: enforce.AllRepairs})
	if err != nil {
		t.Fatal(err)
	}
	suites := ingest(t, rep)
	if len(suites) != 2 || suites[0].Name != "a" || suites[1].Name != "b" {
		t.Fatalf("suites = %+v, want a and b", suites)
	}
	a, b := suites[0], suites[1]
	if got, want := a.Totals, (junit.Totals{Tests: 2, Passed: 2}); got != want {
		t.Errorf("suite a's totals = %+v, want %+v", got, want)
	}
	if got, want := b.Totals, (junit.Totals{Tests: 4, Failed: 3, Error: 1}); got != want {
		t.Errorf("suite b's totals = %+v, want %+v", got, want)
	}
	want := []struct {
		name, classname string
		status          junit.Status
		message         string // its prefix
	}{
		{"b1", "b", junit.StatusFailed, "schema-validate at #/n: "},
		{"b2", "b", junit.StatusError, "the schema did not compile: "},
		{`b3 <"&>`, "b", junit.StatusFailed, "json-parse at #"},
		{"b4", "b", junit.StatusFailed, `check 0: #/n does not contain "bye"`},
	}
	if len(b.Tests) != len(want) {
		t.Fatalf("suite b's tests = %+v, want %d", b.Tests, len(want))
	}
	for i, w := range want {
		got := b.Tests[i]
		if got.Name != w.name || got.Classname != w.classname || got.Status != w.status || !strings.HasPrefix(got.Message, w.message) {
			t.Errorf("test %d = %q %q %s %q, want %q %q %s %q…", i, got.Name, got.Classname, got.Status, got.Message, w.name, w.classname, w.status, w.message)
		}
	}
}

// Over the real model outputs corpus, the consumer counts the tests,
// failures and errors the report counts, group by group.
func TestAJUnitConsumerCountsTheRealModelOutputs(t *testing.T) {
	f, err := os.Open(corpus.ModelOutputsFile(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := eval.Offline(t.Context(), f, eval.Options{Repairs: enforce.RepairFence})
	if err != nil {
		t.Fatal(err)
	}
	suites := ingest(t, rep)
	if len(suites) != len(rep.Groups) {
		t.Fatalf("%d suites, want one per group (%d)", len(suites), len(rep.Groups))
	}
	tests := 0
	for i, g := range rep.Groups {
		judged := g.Records - g.SchemaErrors
		want := junit.Totals{Tests: g.Records, Passed: g.PassedAfterRepair, Failed: judged - g.PassedAfterRepair, Error: g.SchemaErrors}
		if got := suites[i].Totals; got != want {
			t.Errorf("suite %q: %+v, want %+v", suites[i].Name, got, want)
		}
		tests += suites[i].Totals.Tests
	}
	if tests != rep.Records || tests == 0 {
		t.Errorf("%d tests, want %d (a record each)", tests, rep.Records)
	}
}
