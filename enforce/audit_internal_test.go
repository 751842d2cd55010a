package enforce

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/xeipuuv/gojsonschema"
)

func TestAnswersAreCanonicalizedOnlyWhenACompareHoldsANumber(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   bool
	}{
		{"an enum of strings", `{"enum": ["a", "b"]}`, false},
		{"a const string", `{"const": "a"}`, false},
		{"an enum of objects without numbers", `{"enum": [{"a": "x"}, [true, null]]}`, false},
		{"an enum with a number", `{"enum": ["a", 1]}`, true},
		{"a const with a nested number", `{"const": {"a": [1]}}`, true},
		{"uniqueItems compares the answer's own members", `{"uniqueItems": true}`, true},
		{"no compare at all", `{"type": "object"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := CompileSchema([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := s.canonical, tt.want; got != want {
				t.Errorf("canonical = %v, want %v", got, want)
			}
		})
	}
}

func TestCanonicalizeInPlaceRewritesOnlyNumbersThatChange(t *testing.T) {
	doc := map[string]any{
		"a": json.Number("1.0"), "b": json.Number("2"), "c": "1.0",
		"d": []any{json.Number("-0"), json.Number("3e0"), map[string]any{"e": json.Number("0.50")}},
	}
	got := jsonvalue.CanonicalizeInPlace(doc)
	want := map[string]any{
		"a": json.Number("1"), "b": json.Number("2"), "c": "1.0",
		"d": []any{json.Number("0"), json.Number("3"), map[string]any{"e": json.Number("0.5")}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("canonicalizeInPlace = %v, want %v", got, want)
	}
}

// countingFormat counts the values gojsonschema checks against a
// subschema that asserts it.
type countingFormat struct{ calls *atomic.Int64 }

func (c countingFormat) IsFormat(any) bool {
	c.calls.Add(1)
	return true
}

func TestFanOutCountsWhatTheValidatorChecks(t *testing.T) {
	var calls atomic.Int64
	gojsonschema.FormatCheckers.Add("enforcer-test-count", countingFormat{&calls})
	bomb := `{"format": "enforcer-test-count", "items": {"allOf": [{"$ref": "#"}, {"$ref": "#"}]}}`

	// The validator itself, without the audit: the string at the bottom
	// of an answer nested d deep is checked against the root 2^d times.
	gs, err := gojsonschema.NewSchema(gojsonschema.NewStringLoader(bomb))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal([]byte(bomb), &doc); err != nil {
		t.Fatal(err)
	}
	a, err := newAuditor(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.indexRoot(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.walk(doc, "", ""); err != nil {
		t.Fatal(err)
	}
	f := newFanOut(a)
	v := f.closure(f.id(""))
	for d := 1; d <= 12; d++ {
		v = f.take(v, step{kind: stepAt}, &f.sc)
		answer := strings.Repeat("[", d) + `"s"` + strings.Repeat("]", d)
		calls.Store(0)
		if _, err := gs.Validate(gojsonschema.NewStringLoader(answer)); err != nil {
			t.Fatal(err)
		}
		counted := 0
		for _, x := range v {
			if f.locs[x.node] == "" {
				counted = x.n
			}
		}
		if got, want := calls.Load(), int64(1)<<d; got != want {
			t.Errorf("nested %d deep: gojsonschema checked the string against the root %d times, want %d", d, got, want)
		}
		if got, want := int64(counted), calls.Load(); got != want {
			t.Errorf("nested %d deep: the audit counts %d checks against the root, gojsonschema made %d", d, got, want)
		}
	}

	// Check counts what gojsonschema would check along the answer
	// itself, and refuses past MaxCheckWork before any evaluator runs.
	s, err := CompileSchema([]byte(bomb))
	if err != nil {
		t.Fatal(err)
	}
	if s.fan == nil {
		t.Fatal("the schema is not counted answer by answer")
	}
	for d := 1; d <= 12; d++ {
		answer := strings.Repeat("[", d) + `"s"` + strings.Repeat("]", d)
		calls.Store(0)
		if err := s.Check(answer); err != nil {
			t.Fatal(err)
		}
		if got, want := calls.Load(), int64(1)<<d; got != want {
			t.Errorf("nested %d deep: Check checked the string against the root %d times, want %d", d, got, want)
		}
	}
	calls.Store(0)
	ce, ok := s.Check(strings.Repeat("[", 40) + `"s"` + strings.Repeat("]", 40)).(*CheckError)
	if !ok || ce.Stage != StageJSONParse {
		t.Errorf("nested 40 deep: Check = %v, want a json-parse *CheckError", ce)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("nested 40 deep: the format was checked %d times, want none", n)
	}
}
