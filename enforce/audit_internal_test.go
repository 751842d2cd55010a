package enforce

import (
	"encoding/json"
	"reflect"
	"testing"
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
	got := canonicalizeInPlace(doc)
	want := map[string]any{
		"a": json.Number("1"), "b": json.Number("2"), "c": "1.0",
		"d": []any{json.Number("0"), json.Number("3"), map[string]any{"e": json.Number("0.5")}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("canonicalizeInPlace = %v, want %v", got, want)
	}
}
