package oracle_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	googleschema "github.com/google/jsonschema-go/jsonschema"
	kaptinlin "github.com/kaptinlin/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/xeipuuv/gojsonschema"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/corpus"
	"github.com/enforcer-go/enforcer/internal/proc"
)

// judge is one validator's verdict on an answer as a caller holds it, a
// string from the model: each reads the bytes itself, as it would in use.
// A floor (json.Valid, json.Unmarshal into the answer's Go type) reads
// the same bytes and judges no contract: its verdict is not asked.
type judge struct {
	name  string
	ok    func(answer string) bool
	floor bool
}

// orderContract is the order contract enforce's benchmarks judge
// (enforce/testdata/bench) and its passing 1 KiB answer.
func orderContract(t testing.TB) (schema []byte, answer string) {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", "enforce", "testdata", "bench", name))
		if err != nil {
			t.Fatal(err)
		}
		return bytes.TrimSuffix(b, []byte("\n"))
	}
	return read("order.schema.json"), string(read("order.answer.json"))
}

// judges compiles the order contract with enforce and with each Go
// validator it is compared to in docs/compare.md, and returns the
// passing 1 KiB answer.
func judges(t testing.TB) (js []judge, answer string) {
	t.Helper()
	schema, answer := orderContract(t)
	return judgesOf(t, schema), answer
}

// judgesOf compiles schema with enforce and with each other validator,
// the floors after them.
func judgesOf(t testing.TB, schema []byte) []judge {
	t.Helper()
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
	ks, err := kaptinlin.NewCompiler().SetAssertFormat(true).Compile(schema)
	if err != nil {
		t.Fatal(err)
	}
	return []judge{
		{name: "enforce", ok: func(a string) bool { return es.Check(a) == nil }},
		{name: "gojsonschema", ok: func(a string) bool {
			res, err := gs.Validate(gojsonschema.NewStringLoader(a))
			return err == nil && res.Valid()
		}},
		{name: "santhosh-tekuri", ok: func(a string) bool {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(a))
			if err != nil {
				return false
			}
			return ss.Validate(v) == nil
		}},
		{name: "google", ok: func(a string) bool {
			var v any
			if err := json.Unmarshal([]byte(a), &v); err != nil {
				return false
			}
			return gr.Validate(v) == nil
		}},
		{name: "kaptinlin", ok: func(a string) bool { return ks.ValidateJSON([]byte(a)).IsValid() }},
		{name: "json.Valid", floor: true, ok: func(a string) bool { return json.Valid([]byte(a)) }},
		{name: "json.Unmarshal", floor: true, ok: func(a string) bool {
			var o order
			return json.Unmarshal([]byte(a), &o) == nil
		}},
	}
}

// order is the Go type the order answer is for.
type order struct {
	OrderID  string `json:"orderId"`
	Placed   string `json:"placed"`
	Status   string `json:"status"`
	Customer struct {
		Name    string `json:"name"`
		Email   string `json:"email"`
		Address struct {
			Street string `json:"street"`
			City   string `json:"city"`
			Zip    string `json:"zip"`
		} `json:"address"`
	} `json:"customer"`
	Items []struct {
		SKU        string `json:"sku"`
		Qty        int    `json:"qty"`
		PriceCents int    `json:"priceCents"`
		Gift       bool   `json:"gift"`
	} `json:"items"`
	Total int `json:"total"`
}

// orderOf is the order contract allowing n items, and a passing answer
// of about size bytes: the 1 KiB answer's order with more items.
func orderOf(t testing.TB, size int) (schema []byte, answer string) {
	t.Helper()
	schema, small := orderContract(t)
	if size <= len(small)+100 {
		return schema, small
	}
	schema = bytes.Replace(schema, []byte(`"maxItems": 100,`), []byte(`"maxItems": 1000000,`), 1)
	head, _, ok := strings.Cut(small, `"items": [`)
	if !ok {
		t.Fatal("the order answer has no items")
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(`"items": [`)
	total := 0
	for i := 0; b.Len() < size-40; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		qty, price := 1+i%3, 199+150*(i%40)
		total += qty * price
		fmt.Fprintf(&b, `{"sku": "SKU-%d", "qty": %d, "priceCents": %d, "gift": %t}`, 1000+i, qty, price, i%4 == 0)
	}
	fmt.Fprintf(&b, `], "total": %d}`, total)
	return schema, b.String()
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
		if j.floor {
			continue
		}
		for what, a := range bad {
			if j.ok(a) {
				t.Errorf("%s passes the order answer with %s", j.name, what)
			}
		}
	}
}

// BenchmarkJudgeSideBySide judges the order answer, passing and failing
// at every item (each quantity 0: every issue reported; google's first
// alone), of 1 KiB, 64 KiB and 1 MiB, with enforce, each other Go
// validator and the floors in every iteration, and reports each one's
// time and enforce's over it (enforce/<name>): interleaved, so that a
// busy machine slows them alike.
func BenchmarkJudgeSideBySide(b *testing.B) {
	for _, verdict := range []string{"passing", "failing"} {
		for _, size := range []struct {
			name  string
			bytes int
		}{{"1KiB", 1 << 10}, {"64KiB", 64 << 10}, {"1MiB", 1 << 20}} {
			b.Run(verdict+"/"+size.name, func(b *testing.B) {
				schema, answer := orderOf(b, size.bytes)
				if verdict == "failing" {
					answer = strings.NewReplacer(`"qty": 1,`, `"qty": 0,`, `"qty": 2,`, `"qty": 0,`, `"qty": 3,`, `"qty": 0,`).Replace(answer)
				}
				js := judgesOf(b, schema)
				b.SetBytes(int64(len(answer)))
				spent := make([]time.Duration, len(js))
				n := 0
				for b.Loop() {
					n++
					for k := range js {
						i := (k + n) % len(js) // each in turn first, after another's garbage
						j := js[i]
						t0 := time.Now()
						if ok := j.ok(answer); !j.floor && ok != (verdict == "passing") {
							b.Fatalf("%s: %t on the %s answer", j.name, ok, verdict)
						}
						spent[i] += time.Since(t0)
					}
				}
				reportSideBySide(b, js, spent)
			})
		}
	}
}

// reportSideBySide reports each judge's time an iteration and enforce's
// (the first's) over it.
func reportSideBySide(b *testing.B, js []judge, spent []time.Duration) {
	for i, j := range js {
		b.ReportMetric(float64(spent[i].Nanoseconds())/float64(b.N), j.name+"-ns/op")
		if i > 0 {
			b.ReportMetric(float64(spent[0])/float64(spent[i]), "enforce/"+j.name)
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

// compiler is one validator's compile of a schema from its bytes.
type compiler struct {
	name    string
	compile func(schema []byte) error
}

// compilers are enforce's compile and each other Go validator's, none
// reaching outside the schema; a panic is an error.
func compilers() []compiler {
	cs := []compiler{
		{"enforce", func(schema []byte) error { _, err := enforce.CompileSchema(schema); return err }},
		{"gojsonschema", func(schema []byte) error {
			_, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(schema))
			return err
		}},
		{"santhosh-tekuri", func(schema []byte) error {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
			if err != nil {
				return err
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft7)
			c.AssertFormat()
			c.UseLoader(noNetwork{})
			if err := c.AddResource(schemaURL, doc); err != nil {
				return err
			}
			_, err = c.Compile(schemaURL)
			return err
		}},
		{"google", func(schema []byte) error {
			var g googleschema.Schema
			if err := json.Unmarshal(schema, &g); err != nil {
				return err
			}
			_, err := g.Resolve(nil)
			return err
		}},
		{"kaptinlin", func(schema []byte) error {
			c := kaptinlin.NewCompiler().SetAssertFormat(true)
			clear(c.Loaders) // no schema is fetched
			_, err := c.Compile(schema)
			return err
		}},
	}
	for i, c := range cs {
		cs[i].compile = func(schema []byte) (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("%s panicked: %v", c.name, r)
				}
			}()
			return c.compile(schema)
		}
	}
	return cs
}

// padded is schema after 1 to 1000 spaces, a count the process's
// calls take in turn (pads): bytes enforce's cache of the schemas it
// compiled lately has not seen (it keeps 256), in every benchmark and
// every run of -count, so that each compile is one anew.
func padded(schema []byte) []byte {
	pads++
	return append(bytes.Repeat([]byte(" "), 1+pads%1000), schema...)
}

var pads int

// BenchmarkCompileSideBySide compiles the order contract from its bytes
// with enforce and with each other Go validator in every iteration, and
// reports each one's time and enforce's over it: a compile anew, not
// one of bytes enforce compiled before. "first" adds the first verdict,
// on the passing 1 KiB answer, for enforce and gojsonschema: enforce
// builds what judges on the first answer (see enforce.CompileSchema).
func BenchmarkCompileSideBySide(b *testing.B) {
	schema, answer := orderContract(b)
	cs := compilers()
	cs = append(cs,
		compiler{"enforce-first", func(schema []byte) error {
			s, err := enforce.CompileSchema(schema)
			if err == nil {
				err = s.Check(answer)
			}
			return err
		}},
		compiler{"gojsonschema-first", func(schema []byte) error {
			s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(schema))
			if err == nil {
				var res *gojsonschema.Result
				if res, err = s.Validate(gojsonschema.NewStringLoader(answer)); err == nil && !res.Valid() {
					err = fmt.Errorf("%v", res.Errors())
				}
			}
			return err
		}},
	)
	spent := make([]time.Duration, len(cs))
	n := 0
	for b.Loop() {
		raw := padded(schema)
		first := append(raw[:len(raw):len(raw)], '\n') // bytes "enforce" did not just compile
		n++
		for k := range cs {
			i := (k + n) % len(cs) // each in turn first, after another's garbage
			c := cs[i]
			in := raw
			if strings.HasSuffix(c.name, "-first") {
				in = first
			}
			t0 := time.Now()
			if err := c.compile(in); err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
			spent[i] += time.Since(t0)
		}
	}
	for i, c := range cs {
		b.ReportMetric(float64(spent[i].Nanoseconds())/float64(b.N), c.name+"-ns/op")
		switch {
		case c.name == "enforce-first":
		case c.name == "gojsonschema-first":
			b.ReportMetric(float64(spent[len(cs)-2])/float64(spent[i]), "enforce-first/gojsonschema-first")
		case i > 0:
			b.ReportMetric(float64(spent[0])/float64(spent[i]), "enforce/"+c.name)
		}
	}
}

// BenchmarkCompileCorpus compiles, schema by schema, each distinct
// schema of the real model outputs corpus and of JSONSchemaBench that
// every validator compiles (when the corpus is present), with each in
// turn, and reports for each the median and 99th percentile of its time
// per schema, and enforce's median and p99 over its: one pass over the
// corpus an iteration.
func BenchmarkCompileCorpus(b *testing.B) {
	for _, c := range []struct {
		name    string
		schemas func(testing.TB) [][]byte
	}{
		{"modeloutputs", func(t testing.TB) [][]byte {
			var out [][]byte
			for _, r := range corpus.ModelOutputs(t) {
				out = append(out, r.Schema)
			}
			return out
		}},
		{"jsonschemabench", func(t testing.TB) [][]byte {
			var out [][]byte
			for _, bf := range corpus.Bench(t, nil) {
				out = append(out, bf.Schema)
			}
			return out
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			cs := compilers()
			seen := map[string]bool{}
			var schemas [][]byte
			for _, s := range c.schemas(b) {
				if seen[string(s)] {
					continue
				}
				seen[string(s)] = true
				all := true
				for _, cc := range cs {
					all = all && cc.compile(s) == nil
				}
				if all {
					schemas = append(schemas, s)
				}
			}
			b.Logf("%d distinct schemas, %d of which every validator compiles", len(seen), len(schemas))
			spent := make([][]time.Duration, len(cs)) // by compiler, by schema
			for i := range spent {
				spent[i] = make([]time.Duration, len(schemas))
			}
			pass := 0
			for b.Loop() {
				pass++
				for k, s := range schemas {
					raw := padded(s)
					for o := range cs {
						i := (o + k) % len(cs) // each in turn first, after another's garbage
						cc := cs[i]
						t0 := time.Now()
						if err := cc.compile(raw); err != nil {
							b.Fatalf("%s: %v", cc.name, err)
						}
						spent[i][k] += time.Since(t0)
					}
				}
			}
			q := make([][2]float64, len(cs)) // median, p99 in ns
			for i, cc := range cs {
				d := slices.Clone(spent[i])
				slices.Sort(d)
				at := func(p float64) float64 { return float64(d[int(p*float64(len(d)-1))].Nanoseconds()) / float64(pass) }
				q[i] = [2]float64{at(0.5), at(0.99)}
				b.ReportMetric(q[i][0], cc.name+"-median-ns")
				b.ReportMetric(q[i][1], cc.name+"-p99-ns")
				if i > 0 {
					b.ReportMetric(q[0][0]/q[i][0], "enforce/"+cc.name+"-median")
					b.ReportMetric(q[0][1]/q[i][1], "enforce/"+cc.name+"-p99")
				}
			}
		})
	}
}
