package enforce_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

var groundedSources = []string{
	"The committee found that the bridge\n  was closed for repairs in March. Traffic resumed in May.",
	"Minutes: ‘we don’t expect delays’, said the engineer.",
}

func TestGrounded(t *testing.T) {
	tests := []struct {
		name, answer string
		want         []enforce.Issue
	}{
		{"a span a source holds passes", `{"a": "They wrote \"the bridge was closed for repairs\"."}`, nil},
		{"white space, case and curly quotes are normalised", `{"a": "“THE BRIDGE   WAS closed” and «we don't expect delays»"}`, nil},
		{"an ellipsis leaves text out, in order", `{"a": "\"found that ... closed for repairs […] in May\""}`, nil},
		{"an ellipsis's parts out of order are not held", `{"a": "\"in May … the bridge\""}`,
			[]enforce.Issue{{Path: "/a", Keyword: "grounded", Message: `quotes "in May … the bridge" at byte 0, which no source holds`}}},
		{"a span no source holds is named with its pointer", `{"a": "fine", "b": ["ok", "he said „the bridge collapsed“ twice"]}`,
			[]enforce.Issue{{Path: "/b/1", Keyword: "grounded", Message: `quotes "the bridge collapsed" at byte 8, which no source holds`}}},
		{"a one-word quotation and an unclosed quote are not judged", `{"a": "a \"smart\" bridge, and \"never closed"}`, nil},
		{"spans across two sources are not held", `{"a": "\"resumed in May. Minutes\""}`,
			[]enforce.Issue{{Path: "/a", Keyword: "grounded", Message: `quotes "resumed in May. Minutes" at byte 0, which no source holds`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ruleIssues(t, `{"type": "object"}`, enforce.Grounded("grounded", groundedSources...), tt.answer)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("issues = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestStreamValidatingHoldsATextToGrounded(t *testing.T) {
	tests := []struct {
		name, answer string
		sure         int // bytes read to the verdict; -1 when none
	}{
		{"a span no source holds is cut at its closing mark", `As reported, "the bridge collapsed" in March.`, len(`As reported, "the bridge collapsed"`)},
		{"a multibyte closing mark is read whole first", `As reported, “the bridge collapsed” in March.`, len(`As reported, “the bridge collapsed”`)},
		{"a held span is not cut", `As reported, "the bridge was closed" in March.`, -1},
		{"an open span is not judged", `As reported, "the bridge collapsed`, -1},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 2, 64} {
			t.Run(tt.name, func(t *testing.T) {
				s := textWith(t, enforce.Grounded("grounded", groundedSources...))
				ce, read := streamedRules(t, s, tt.answer, size)
				if read != tt.sure {
					t.Fatalf("in pieces of %d: read %d bytes to a verdict %v, want %d", size, read, ce, tt.sure)
				}
				if ce == nil {
					return
				}
				err := s.Judge(t.Context(), enforce.Answer{Given: tt.answer})
				var whole *enforce.CheckError
				if !errors.As(err, &whole) || !slices.ContainsFunc(whole.Issues, func(is enforce.Issue) bool { return reflect.DeepEqual(is, ce.Issues[0]) }) {
					t.Errorf("cut with %+v; the whole answer judges %v", ce.Issues, err)
				}
			})
		}
	}
}
