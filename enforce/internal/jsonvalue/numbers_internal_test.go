package jsonvalue

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCanonicalizeInPlaceRewritesOnlyNumbersThatChange(t *testing.T) {
	doc := map[string]any{
		"a": json.Number("1.0"), "b": json.Number("2"), "c": "1.0",
		"d": []any{json.Number("-0"), json.Number("3e0"), map[string]any{"e": json.Number("0.50")}},
	}
	got := CanonicalizeInPlace(doc)
	want := map[string]any{
		"a": json.Number("1"), "b": json.Number("2"), "c": "1.0",
		"d": []any{json.Number("0"), json.Number("3"), map[string]any{"e": json.Number("0.5")}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CanonicalizeInPlace = %v, want %v", got, want)
	}
}
