package oracle_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	googleschema "github.com/google/jsonschema-go/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/xeipuuv/gojsonschema"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/proc"
)

// judge is one validator's verdict on an answer as a caller holds it, a
// string from the model: each reads the bytes itself, as it would in use.
type judge struct {
	name string
	ok   func(answer string) bool
}

// judges compiles the order contract enforce's benchmarks judge
// (enforce/testdata/bench) with enforce and with each Go validator it is
// compared to in docs/compare.md.
func judges(t testing.TB) (js []judge, answer string) {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", "enforce", "testdata", "bench", name))
		if err != nil {
			t.Fatal(err)
		}
		return bytes.TrimSuffix(b, []byte("\n"))
	}
	schema, answer := read("order.schema.json"), string(read("order.answer.json"))

	es, err := enforce.CompileSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(schema))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		t.Fatal(err)
	}
	ss, err := c.Compile(schemaURL)
	if err != nil {
		t.Fatal(err)
	}
	var g googleschema.Schema
	if err := json.Unmarshal(schema, &g); err != nil {
		t.Fatal(err)
	}
	gr, err := g.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return []judge{
		{"enforce", func(a string) bool { return es.Check(a) == nil }},
		{"gojsonschema", func(a string) bool {
			res, err := gs.Validate(gojsonschema.NewStringLoader(a))
			return err == nil && res.Valid()
		}},
		{"santhosh-tekuri", func(a string) bool {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(a))
			if err != nil {
				return false
			}
			return ss.Validate(v) == nil
		}},
		{"google", func(a string) bool {
			var v any
			if err := json.Unmarshal([]byte(a), &v); err != nil {
				return false
			}
			return gr.Validate(v) == nil
		}},
	}, answer
}

// TestJudgesAgreeOnTheOrderAnswer: every validator the side-by-side
// benchmark times passes the order answer and fails it with a quantity
// of 0 and with a total below 0, so that it times the same verdicts.
func TestJudgesAgreeOnTheOrderAnswer(t *testing.T) {
	js, answer := judges(t)
	bad := map[string]string{
		"a quantity of 0":   strings.Replace(answer, `"qty": 1`, `"qty": 0`, 1),
		"a total below 0":   strings.Replace(answer, `"total": `, `"total": -`, 1),
		"an unknown member": strings.Replace(answer, `"total": `, `"note": "x", "total": `, 1),
	}
	for _, j := range js {
		if !j.ok(answer) {
			t.Errorf("%s fails the order answer", j.name)
		}
		for what, a := range bad {
			if j.ok(a) {
				t.Errorf("%s passes the order answer with %s", j.name, what)
			}
		}
	}
}

// BenchmarkJudgeSideBySide1KiB judges the passing order answer with
// enforce and with each other Go validator in every iteration, and
// reports each one's time and its ratio to enforce's: interleaved, so
// that a busy machine slows them alike.
func BenchmarkJudgeSideBySide1KiB(b *testing.B) {
	js, answer := judges(b)
	spent := make([]time.Duration, len(js))
	for b.Loop() {
		for i, j := range js {
			t0 := time.Now()
			if !j.ok(answer) {
				b.Fatalf("%s fails the answer", j.name)
			}
			spent[i] += time.Since(t0)
		}
	}
	for i, j := range js {
		b.ReportMetric(float64(spent[i].Nanoseconds())/float64(b.N), j.name+"-ns/op")
		if i > 0 {
			b.ReportMetric(float64(spent[i])/float64(spent[0]), j.name+"/enforce")
		}
	}
}

// BenchmarkJudge1KiB judges the passing order answer with each validator
// alone, for each one's allocations and its processor time (cpu-ns/op:
// the process's, so that its own garbage collection counts; on a machine
// shared with other work it moves far less than wall time).
func BenchmarkJudge1KiB(b *testing.B) {
	js, answer := judges(b)
	for _, j := range js {
		b.Run(j.name, func(b *testing.B) {
			b.ReportAllocs()
			start := proc.CPUTime()
			for b.Loop() {
				if !j.ok(answer) {
					b.Fatalf("%s fails the answer", j.name)
				}
			}
			b.ReportMetric(float64((proc.CPUTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkJudgeSideBySideFailing1KiB is BenchmarkJudgeSideBySide1KiB on
// the order answer failing at every item (each quantity 0): each
// validator writes every issue it reports (google/jsonschema-go its
// first alone).
func BenchmarkJudgeSideBySideFailing1KiB(b *testing.B) {
	js, answer := judges(b)
	failing := strings.ReplaceAll(answer, `"qty": 1`, `"qty": 0`)
	spent := make([]time.Duration, len(js))
	for b.Loop() {
		for i, j := range js {
			t0 := time.Now()
			if j.ok(failing) {
				b.Fatalf("%s passes the failing answer", j.name)
			}
			spent[i] += time.Since(t0)
		}
	}
	for i, j := range js {
		b.ReportMetric(float64(spent[i].Nanoseconds())/float64(b.N), j.name+"-ns/op")
		if i > 0 {
			b.ReportMetric(float64(spent[0])/float64(spent[i]), "enforce/"+j.name)
		}
	}
}

// BenchmarkCompileSideBySide compiles the order contract from its bytes
// with enforce and with each other Go validator in every iteration, and
// reports each one's time and enforce's ratio to it: a compile anew,
// not one of bytes enforce compiled before.
func BenchmarkCompileSideBySide(b *testing.B) {
	schema, err := os.ReadFile(filepath.Join("..", "..", "enforce", "testdata", "bench", "order.schema.json"))
	if err != nil {
		b.Fatal(err)
	}
	compilers := []struct {
		name    string
		compile func() error
	}{
		{"enforce", func() error { _, err := enforce.CompileSchema(schema); return err }},
		{"gojsonschema", func() error { _, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(schema)); return err }},
		{"santhosh-tekuri", func() error {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
			if err != nil {
				return err
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft7)
			c.AssertFormat()
			if err := c.AddResource(schemaURL, doc); err != nil {
				return err
			}
			_, err = c.Compile(schemaURL)
			return err
		}},
		{"google", func() error {
			var g googleschema.Schema
			if err := json.Unmarshal(schema, &g); err != nil {
				return err
			}
			_, err := g.Resolve(nil)
			return err
		}},
	}
	spent := make([]time.Duration, len(compilers))
	// Each iteration's bytes differ (the schema after 0 to 999 spaces),
	// so that enforce's cache of schemas by their bytes never answers.
	padded := make([][]byte, 1000)
	for i := range padded {
		padded[i] = append(bytes.Repeat([]byte(" "), i), schema...)
	}
	n := 0
	for b.Loop() {
		schema = padded[n%len(padded)]
		n++
		for i, c := range compilers {
			t0 := time.Now()
			if err := c.compile(); err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
			spent[i] += time.Since(t0)
		}
	}
	for i, c := range compilers {
		b.ReportMetric(float64(spent[i].Nanoseconds())/float64(b.N), c.name+"-ns/op")
		if i > 0 {
			b.ReportMetric(float64(spent[0])/float64(spent[i]), "enforce/"+c.name)
		}
	}
}
