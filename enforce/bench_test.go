package enforce_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/xeipuuv/gojsonschema"

	"github.com/enforcer-go/enforcer/enforce"
)

func TestOrderAnswerPasses(t *testing.T) {
	a := orderAnswer()
	if n := len(a); n < 900 || n > 1200 {
		t.Errorf("the benchmark answer is %d bytes, want about 1 KiB", n)
	}
	if err := mustCompile(t, orderSchema).Check(a); err != nil {
		t.Fatal(err)
	}
	gs, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader([]byte(orderSchema)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := gs.Validate(gojsonschema.NewBytesLoader([]byte(a)))
	if err != nil || !res.Valid() {
		t.Fatalf("gojsonschema: %v %v", err, res.Errors())
	}
}

func BenchmarkCheckPassing1KiB(b *testing.B) {
	s := mustCompile(b, orderSchema)
	answer := orderAnswer()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Check(answer); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckPassing1KiBValidator is BenchmarkCheckPassing1KiB without
// the fast path: gojsonschema judges the passing answer, as before it.
func BenchmarkCheckPassing1KiBValidator(b *testing.B) {
	s := enforce.WithoutFastPath(mustCompile(b, orderSchema))
	answer := orderAnswer()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Check(answer); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckPassing1KiBNumericEnum is BenchmarkCheckPassing1KiB with
// an enum of numbers, which makes Check canonicalize the answer's numbers.
func BenchmarkCheckPassing1KiBNumericEnum(b *testing.B) {
	s := mustCompile(b, strings.Replace(orderSchema, `"qty": {"type": "integer", "minimum": 1}`, `"qty": {"type": "integer", "minimum": 1, "enum": [1, 2, 3]}`, 1))
	answer := orderAnswer()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Check(answer); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGojsonschemaBytesLoader1KiB is the baseline: gojsonschema on
// its own, decoding the same bytes itself.
func BenchmarkGojsonschemaBytesLoader1KiB(b *testing.B) {
	gs, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader([]byte(orderSchema)))
	if err != nil {
		b.Fatal(err)
	}
	answer := []byte(orderAnswer())
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := gs.Validate(gojsonschema.NewBytesLoader(answer))
		if err != nil || !res.Valid() {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckFailing1KiB(b *testing.B) {
	s := mustCompile(b, orderSchema)
	answer := strings.Replace(orderAnswer(), `"qty": 1`, `"qty": 0`, -1)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Check(answer); err == nil {
			b.Fatal("the answer passed")
		}
	}
}

// BenchmarkCheckFailing1KiBValidator is BenchmarkCheckFailing1KiB
// without the fast path, as before it: a failing answer must cost no
// more with it.
func BenchmarkCheckFailing1KiBValidator(b *testing.B) {
	s := enforce.WithoutFastPath(mustCompile(b, orderSchema))
	answer := strings.Replace(orderAnswer(), `"qty": 1`, `"qty": 0`, -1)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Check(answer); err == nil {
			b.Fatal("the answer passed")
		}
	}
}

// BenchmarkCheckFailingLate1KiB fails only at its last member, so the
// fast path reads the whole answer before gojsonschema judges it.
func BenchmarkCheckFailingLate1KiB(b *testing.B) {
	s := mustCompile(b, orderSchema)
	answer := strings.Replace(orderAnswer(), `"total": `, `"total": -`, 1)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Check(answer); err == nil {
			b.Fatal("the answer passed")
		}
	}
}

func BenchmarkCheckFailingLate1KiBValidator(b *testing.B) {
	s := enforce.WithoutFastPath(mustCompile(b, orderSchema))
	answer := strings.Replace(orderAnswer(), `"total": `, `"total": -`, 1)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Check(answer); err == nil {
			b.Fatal("the answer passed")
		}
	}
}

func BenchmarkParse1KiB(b *testing.B) {
	// The json-parse stage alone: an answer with trailing text fails only
	// after the whole value has been parsed.
	s := mustCompile(b, `{}`)
	answer := orderAnswer() + " x"
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Check(answer); err == nil {
			b.Fatal("the answer passed")
		}
	}
}

func BenchmarkSchemaForCached(b *testing.B) {
	if _, err := enforce.SchemaFor[Forecast](); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = enforce.SchemaFor[Forecast]()
	}
}

func BenchmarkCorrectiveMessage(b *testing.B) {
	s := mustCompile(b, orderSchema)
	var ce *enforce.CheckError
	if !errors.As(s.Check(strings.Replace(orderAnswer(), `"qty": 1`, `"qty": 0`, -1)), &ce) {
		b.Fatal("the answer passed")
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = ce.Corrective(1, 3)
	}
}

// BenchmarkStreamPassing1KiB16 is the Incremental fed the passing answer of
// BenchmarkCheckPassing1KiB in 16-byte chunks, then closed: compare the
// two side by side.
func BenchmarkStreamPassing1KiB16(b *testing.B) {
	s := mustCompile(b, orderSchema)
	answer := orderAnswer()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		st := s.Stream()
		for i := 0; i < len(answer); i += 16 {
			if _, err := st.WriteString(answer[i:min(i+16, len(answer))]); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSideBySide1KiB runs, in each iteration, Check on the passing
// answer, gojsonschema's own Validate(NewBytesLoader) on the same bytes,
// Check without the fast path, and the Incremental fed it in 16-byte chunks,
// and reports each one's time and their ratios to Check: interleaved, so
// that a busy machine slows them alike.
func BenchmarkSideBySide1KiB(b *testing.B) {
	s := mustCompile(b, orderSchema)
	slow := enforce.WithoutFastPath(s)
	gs, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader([]byte(orderSchema)))
	if err != nil {
		b.Fatal(err)
	}
	answer := orderAnswer()
	raw := []byte(answer)
	var check, validator, before, stream time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := s.Check(answer); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if res, err := gs.Validate(gojsonschema.NewBytesLoader(raw)); err != nil || !res.Valid() {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := slow.Check(answer); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		st := s.Stream()
		for i := 0; i < len(answer); i += 16 {
			if _, err := st.WriteString(answer[i:min(i+16, len(answer))]); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
		t4 := time.Now()
		check, validator, before, stream = check+t1.Sub(t0), validator+t2.Sub(t1), before+t3.Sub(t2), stream+t4.Sub(t3)
	}
	n := float64(b.N)
	b.ReportMetric(float64(check.Nanoseconds())/n, "check-ns/op")
	b.ReportMetric(float64(validator.Nanoseconds())/n, "gojsonschema-ns/op")
	b.ReportMetric(float64(before.Nanoseconds())/n, "check-without-fast-ns/op")
	b.ReportMetric(float64(stream.Nanoseconds())/n, "stream16-ns/op")
	b.ReportMetric(float64(check)/float64(validator), "check/gojsonschema")
	b.ReportMetric(float64(stream)/float64(check), "stream16/check")
}

// BenchmarkSideBySideFailing1KiB interleaves Check and Check without the
// fast path on two failing answers (one failing at its first item, one
// at its last member) and reports the ratio: the fast path must not slow
// a failing answer down.
func BenchmarkSideBySideFailing1KiB(b *testing.B) {
	s := mustCompile(b, orderSchema)
	slow := enforce.WithoutFastPath(s)
	early := strings.Replace(orderAnswer(), `"qty": 1`, `"qty": 0`, -1)
	late := strings.Replace(orderAnswer(), `"total": `, `"total": -`, 1)
	var fast, before time.Duration
	timed := func(s *enforce.Schema, a string) time.Duration {
		t0 := time.Now()
		if s.Check(a) == nil {
			b.Fatal("the answer passed")
		}
		return time.Since(t0)
	}
	odd := false
	for b.Loop() {
		odd = !odd
		for _, a := range []string{early, late} {
			if odd { // each goes first half the time: the second pays for the first's garbage
				fast += timed(s, a)
				before += timed(slow, a)
			} else {
				before += timed(slow, a)
				fast += timed(s, a)
			}
		}
	}
	n := float64(2 * b.N)
	b.ReportMetric(float64(fast.Nanoseconds())/n, "check-ns/op")
	b.ReportMetric(float64(before.Nanoseconds())/n, "check-without-fast-ns/op")
	b.ReportMetric(float64(fast)/float64(before), "with/without")
}

// wideSchema is a contract of 200 members, a fifth of them by reference
// to shared definitions: the size of a large hand-written one.
func wideSchema() string {
	var b strings.Builder
	b.WriteString(`{"type": "object", "definitions": {"money": {"type": "object", "properties": {"amount": {"type": "number", "minimum": 0}, "currency": {"enum": ["EUR", "USD", "NOK"]}}, "required": ["amount"]}, "when": {"type": "string", "format": "date-time"}}, "properties": {`)
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, `"m%d": {"$ref": "#/definitions/money"}`, i)
		case 1:
			fmt.Fprintf(&b, `"m%d": {"$ref": "#/definitions/when"}`, i)
		case 2:
			fmt.Fprintf(&b, `"m%d": {"type": "array", "items": {"type": "string", "maxLength": 20}}`, i)
		default:
			fmt.Fprintf(&b, `"m%d": {"type": ["integer", "null"], "maximum": 1000}`, i)
		}
	}
	b.WriteString(`}, "additionalProperties": false}`)
	return b.String()
}

// BenchmarkCompileSchema and BenchmarkGojsonschemaCompile compile the same
// contracts: enforce's audit, translation and fast path beside
// gojsonschema's own compile. Each compiles anew; "cached" is
// CompileSchema of bytes it compiled before.
func BenchmarkCompileSchema(b *testing.B) {
	for _, c := range []struct{ name, schema string }{{"order", orderSchema}, {"wide", wideSchema()}} {
		raw := []byte(c.schema)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := enforce.CompileSchemaUncached(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	raw := []byte(orderSchema)
	answer := orderAnswer()
	b.Run("order/first", func(b *testing.B) {
		// The compile and the first verdict, on the passing answer: what
		// judges is built then.
		b.ReportAllocs()
		for b.Loop() {
			s, err := enforce.CompileSchemaUncached(raw)
			if err == nil {
				err = s.Check(answer)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("order/cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := enforce.CompileSchema(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkGojsonschemaCompile(b *testing.B) {
	for _, c := range []struct{ name, schema string }{{"order", orderSchema}, {"wide", wideSchema()}} {
		raw := []byte(c.schema)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(raw)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRepairs1KiB is Check on the 1 KiB order answer side by side:
// clean with no repairs chosen (BenchmarkCheckPassing1KiB's case), clean
// with every repair chosen (never mended: it passes as written), and the
// same answer in a markdown fence, mended by the fence repair.
func BenchmarkRepairs1KiB(b *testing.B) {
	strict := mustCompile(b, orderSchema)
	mending := strict.WithRepairs(enforce.AllRepairs)
	clean := orderAnswer()
	for _, bm := range []struct {
		name   string
		s      *enforce.Schema
		answer string
	}{
		{"clean/no-repairs", strict, clean},
		{"clean/every-repair", mending, clean},
		{"fenced/every-repair", mending, "```json\n" + clean + "\n```"},
		{"prose/every-repair", mending, "Here is the order:\n" + clean + "\nThanks."},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.SetBytes(int64(len(bm.answer)))
			b.ReportAllocs()
			for b.Loop() {
				if err := bm.s.Check(bm.answer); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCheckPassingAllocates holds the judge of a passing 1 KiB answer to
// reading it once: no tree, a few allocations (82 when it built one).
func TestCheckPassingAllocates(t *testing.T) {
	if underRace {
		t.Skip("the race detector allocates")
	}
	s := mustCompile(t, orderSchema)
	answer := orderAnswer()
	if got := testing.AllocsPerRun(20, func() {
		if err := s.Check(answer); err != nil {
			t.Fatal(err)
		}
	}); got > 8 {
		t.Errorf("Check of a passing 1 KiB answer allocates %v times, want at most 8", got)
	}
}
