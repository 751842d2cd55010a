package enforce_test

import (
	"errors"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

func TestRepairLabelLeavesAWordTwoLabelsFoldTo(t *testing.T) {
	tests := []struct {
		labels []string
		answer string
	}{
		{[]string{"kit", "kıt"}, "KIT"},
		{[]string{"kıt", "kit"}, "KIT"},
		{[]string{"istanbul", "ıstanbul"}, "ISTANBUL"},
		{[]string{"istanbul", "ıstanbul"}, "Istanbul."},
		{[]string{"Straße", "STRASSE"}, "strasse"},
		{[]string{"Straße", "STRASSE"}, "Strasse"},
		{[]string{"kit", "kıt"}, "KIt"},           // I is the capital of ı in Turkish
		{[]string{"Straße", "STRASSE"}, "straße"}, // and STRASSE is Straße in capitals
		{[]string{"Straße", "STRASSE"}, "STRASSE."},
		{[]string{"Straße", "Strasse"}, "STRASSE"},
		{[]string{"σ", "ς."}, "Σ."},
	}
	for _, tt := range tests {
		for _, multi := range []bool{false, true} {
			ls := make([]enforce.Label, len(tt.labels))
			for i, n := range tt.labels {
				ls[i] = enforce.Label{Name: n}
			}
			s := mustChoice(t, multi, ls...).WithRepairs(enforce.RepairLabel)
			for _, answer := range []string{tt.answer, `{"` + map[bool]string{false: "label", true: "labels"}[multi] + `": ` + map[bool]string{false: `"` + tt.answer + `"`, true: `["` + tt.answer + `"]`}[multi] + `}`} {
				if err := s.Check(answer); err == nil {
					got, _ := s.Repaired(answer)
					t.Errorf("labels %q: %q passed as %q", tt.labels, answer, got)
				}
			}
		}
	}
}

func TestRepairLabelStillMendsAWordOneLabelFoldsTo(t *testing.T) {
	for _, tt := range []struct {
		labels       []string
		answer, want string
	}{
		{[]string{"kit", "kıt"}, "Kit", "kit"},
		{[]string{"positive", "negative"}, " Positive.\n", "positive"},
		{[]string{"kit", "kıt"}, " kit.", "kit"},
		{[]string{"café", "cafe"}, "CAFÉ", "café"},
		{[]string{"café", "cafe"}, "CAFE", "cafe"},
	} {
		ls := make([]enforce.Label, len(tt.labels))
		for i, n := range tt.labels {
			ls[i] = enforce.Label{Name: n}
		}
		s := mustChoice(t, false, ls...).WithRepairs(enforce.RepairLabel)
		got, applied := s.Repaired(tt.answer)
		if err := s.Check(tt.answer); err != nil || got != tt.want || applied != enforce.RepairLabel {
			t.Errorf("labels %q: Repaired(%q) = %s, %s, Check = %v; want %s", tt.labels, tt.answer, got, applied, err, tt.want)
		}
	}
}

func TestChoiceRefusesLabelsThatAreCanonicallyEquivalent(t *testing.T) {
	for _, pair := range [][2]string{
		{"café", "cafe\u0301"},
		{"Ångström", "A\u030angstro\u0308m"},
		{"ǖ", "u\u0308\u0304"},
		{"ü\u0304", "ǖ"},
		{"ệ", "e\u0323\u0302"},
		{"e\u0302\u0323", "ệ"},
		{"CAFÉ", "cafe\u0301"},
		{"Ωmega", "Ωmega"}, // the ohm sign: one in case already
	} {
		for _, multi := range []bool{false, true} {
			make := enforce.Choice
			if multi {
				make = enforce.MultiLabel
			}
			_, err := make(enforce.Label{Name: pair[0]}, enforce.Label{Name: "other"}, enforce.Label{Name: pair[1]})
			var se *enforce.SchemaError
			if !errors.As(err, &se) {
				t.Errorf("labels %+q: %v, want a *SchemaError", pair, err)
			}
		}
	}
	if _, err := enforce.Choice(enforce.Label{Name: "café"}, enforce.Label{Name: "cafe"}, enforce.Label{Name: "cafè"}); err != nil {
		t.Errorf("labels that differ in a mark refused: %v", err)
	}
}
