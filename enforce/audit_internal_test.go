package enforce

import (
	"strings"
	"sync/atomic"
	"testing"

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

// TestCheckCountsWhatTheValidatorChecks: Check counts what gojsonschema
// would check along the answer itself (the engine's
// TestFanOutCountsWhatTheValidatorChecks holds the count to
// gojsonschema's), and refuses past MaxCheckWork before any evaluator
// runs.
func TestCheckCountsWhatTheValidatorChecks(t *testing.T) {
	var calls atomic.Int64
	gojsonschema.FormatCheckers.Add("enforcer-test-count-check", countingFormat{&calls})
	bomb := `{"format": "enforcer-test-count-check", "items": {"allOf": [{"$ref": "#"}, {"$ref": "#"}]}}`
	s, err := CompileSchema([]byte(bomb))
	if err != nil {
		t.Fatal(err)
	}
	if s.parts().work.Fan == nil {
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

// countingFormat counts the values gojsonschema checks against a
// subschema that asserts it.
type countingFormat struct{ calls *atomic.Int64 }

func (c countingFormat) IsFormat(any) bool {
	c.calls.Add(1)
	return true
}
