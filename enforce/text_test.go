package enforce_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

func mustText(t testing.TB, rules ...enforce.TextRule) *enforce.Schema {
	t.Helper()
	s, err := enforce.Text(rules...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func keywords(ce *enforce.CheckError) []string {
	var out []string
	for _, is := range ce.Issues {
		out = append(out, is.Keyword)
	}
	return out
}

func TestTextHoldsTheAnswerToEachRule(t *testing.T) {
	tests := []struct {
		name   string
		rule   enforce.TextRule
		pass   []string
		fail   []string
		reason string
	}{
		{"MinLength counts characters", enforce.MinLength(3), []string{"abc", "ééé"}, []string{"ab", ""}, "minLength"},
		{"MaxLength counts characters, not bytes", enforce.MaxLength(3), []string{"ééé", "abc", ""}, []string{"abcd", "éééé"}, "maxLength"},
		{"MinBytes counts bytes", enforce.MinBytes(4), []string{"éé", "abcd"}, []string{"é", "abc"}, "minBytes"},
		{"MaxBytes counts bytes", enforce.MaxBytes(4), []string{"éé", "abcd"}, []string{"ééé", "abcde"}, "maxBytes"},
		{"Pattern matches anywhere", enforce.Pattern(`\d{3}`), []string{"call 555 now"}, []string{"call now"}, "pattern"},
		{"Pattern anchored matches the whole text", enforce.Pattern(`^[A-Z][^\n]*\.$`), []string{"One line."}, []string{"one line.", "Two\nlines."}, "pattern"},
		{"MustContain is exact", enforce.MustContain("Paris"), []string{"in Paris today"}, []string{"in paris today"}, "mustContain"},
		{"MustNotContain is exact", enforce.MustNotContain("as an AI"), []string{"As an AI model"}, []string{"Well, as an AI, I"}, "mustNotContain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustText(t, tt.rule)
			for _, a := range tt.pass {
				if err := s.Check(a); err != nil {
					t.Errorf("Check(%q) = %v, want nil", a, err)
				}
			}
			for _, a := range tt.fail {
				ce := checkError(t, s.Check(a))
				if ce.Stage != enforce.StageSchemaValidate || ce.Path() != "" || ce.Issues[0].Keyword != tt.reason {
					t.Errorf("Check(%q) = %s at %q (%s), want schema-validate at the root (%s)", a, ce.Stage, ce.Path(), ce.Issues[0].Keyword, tt.reason)
				}
			}
		})
	}
}

func TestTextReportsEveryBrokenRuleInTheirOrder(t *testing.T) {
	s := mustText(t, enforce.MaxLength(5), enforce.MustContain("Paris"), enforce.MustNotContain("AI"))
	ce := checkError(t, s.Check("As an AI I cannot\xff"))
	if got, want := keywords(ce), []string{"utf8", "maxLength", "mustContain", "mustNotContain"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keywords %v, want %v", got, want)
	}
	for _, answer := range []string{"", " {not json", `"quoted"`} {
		if ce := checkError(t, s.Check(answer)); ce.Stage != enforce.StageSchemaValidate {
			t.Errorf("Check(%q) failed at %s: a text has no json-parse stage", answer, ce.Stage)
		}
	}
}

func TestTextRefusesRulesNoTextKeeps(t *testing.T) {
	for name, rules := range map[string][]enforce.TextRule{
		"a negative bound":      {enforce.MaxLength(-1)},
		"a minimum above a max": {enforce.MinLength(5), enforce.MaxLength(4)},
		"bytes likewise":        {enforce.MinBytes(5), enforce.MaxBytes(4)},
		"an empty substring":    {enforce.MustNotContain("")},
		"a pattern Go rejects":  {enforce.Pattern(`(?<=a)b`)},
		"the zero rule":         {{}},
	} {
		var se *enforce.SchemaError
		if _, err := enforce.Text(rules...); !errors.As(err, &se) {
			t.Errorf("%s: Text = %v, want a *SchemaError", name, err)
		}
	}
}

func TestTextCorrectionAsksForTextAndListsEachRule(t *testing.T) {
	s := mustText(t, enforce.MaxLength(10), enforce.MustContain("Paris"))
	l, _ := enforce.NewLedger(s, 2)
	v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: "It is sunny in London today."})
	if v.Row.Outcome != enforce.OutcomeRetried || v.Row.Kind != enforce.KindText || v.Row.Stage != enforce.StageSchemaValidate || v.Row.Path != "" {
		t.Fatalf("row %+v", v.Row)
	}
	for _, want := range []string{"the text breaks the rules", "Reply with only the corrected text", "longer than 10 characters", `does not contain \"Paris\"`} {
		if !strings.Contains(v.Corrective, want) {
			t.Errorf("corrective %q does not say %q", v.Corrective, want)
		}
	}
	for _, not := range []string{"JSON"} {
		if strings.Contains(v.Corrective, not) {
			t.Errorf("corrective %q speaks of %s", v.Corrective, not)
		}
	}
	if v := l.Judge(context.Background(), enforce.Answer{Iteration: 2, Given: "Paris: sun"}); v.Row.Outcome != enforce.OutcomePassed || v.Answer != "Paris: sun" {
		t.Errorf("second row %+v, answer %q", v.Row, v.Answer)
	}
}

func TestTextValidatorsGetTheText(t *testing.T) {
	v := enforce.NewValidator("no-shouting", func(_ context.Context, text string, _ enforce.Try) ([]enforce.Issue, error) {
		if strings.ToUpper(text) == text {
			return []enforce.Issue{{Message: "do not write in capitals"}}, nil
		}
		return nil, nil
	})
	s := withValidators(t, mustText(t, enforce.MaxLength(40)), v)
	l, _ := enforce.NewLedger(s, 1)
	first := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: "HELLO \"THERE\"\n"})
	if first.Row.Outcome != enforce.OutcomeRetried || first.Row.Error != "do not write in capitals" ||
		!strings.Contains(first.Corrective, "the text keeps its rules, but checks of its content failed") {
		t.Fatalf("row %+v, corrective %q", first.Row, first.Corrective)
	}
	var got string
	if err := s.Decode("a \"quoted\" text\n", &got); err != nil || got != "a \"quoted\" text\n" {
		t.Errorf("Decode = %q, %v", got, err)
	}
}

func TestTextStreamCutsAForbiddenSubstringSplitAcrossPieces(t *testing.T) {
	s := mustText(t, enforce.MustNotContain("password"))
	answer := "Sure, the password is hunter2."
	at := strings.Index(answer, "password") + len("password")
	for size := 1; size <= len(answer); size++ {
		early, read, _ := streamed(s, answer, size)
		if early == nil || read != at {
			t.Fatalf("pieces of %d: early verdict %v after %d bytes, want one after %d", size, early, read, at)
		}
		if ce := checkError(t, early); ce.Issues[0].Keyword != "mustNotContain" || !reflect.DeepEqual(ce.Issues, checkError(t, s.Check(answer)).Issues) {
			t.Fatalf("early verdict %+v, want Check's", ce)
		}
	}
}

func TestTextStreamCutsAtTheFirstByteOfTheCharacterPastMaxLength(t *testing.T) {
	s := mustText(t, enforce.MaxLength(3))
	for size := 1; size <= 4; size++ {
		early, read, _ := streamed(s, "éééé", size)
		if early == nil || read != 7 {
			t.Errorf("pieces of %d: early verdict %v after %d bytes, want one after 7 (the fourth é's first byte)", size, early, read)
		}
	}
	if early, _, closed := streamed(s, "ééé", 1); early != nil || closed != nil {
		t.Errorf("three characters: %v, %v", early, closed)
	}
}

func TestTextStreamWaitsForRulesOnlyTheEndDecides(t *testing.T) {
	s := mustText(t, enforce.MinLength(10), enforce.MustContain("Paris"), enforce.Pattern(`\.$`))
	for _, answer := range []string{"short", "It rains in Paris.", "Paris"} {
		early, _, closed := streamed(s, answer, 2)
		if early != nil {
			t.Errorf("%q: early verdict %v", answer, early)
		}
		if check := s.Check(answer); !reflect.DeepEqual(closed, check) {
			t.Errorf("%q: Close = %v, Check = %v", answer, closed, check)
		}
	}
}

func TestTextLongerThanTheBoundIsNotRead(t *testing.T) {
	s := mustText(t, enforce.MustNotContain("x")).WithMaxAnswerBytes(8)
	ce := checkError(t, s.Check("aaaaaaaaax"))
	if len(ce.Issues) != 1 || ce.Issues[0].Keyword != "maxBytes" || ce.Stage != enforce.StageSchemaValidate {
		t.Errorf("Check = %+v", ce)
	}
	if early, read, _ := streamed(s, "aaaaaaaaax", 3); early == nil || read != 9 || !reflect.DeepEqual(early, s.Check("aaaaaaaaax")) {
		t.Errorf("early verdict %v after %d bytes", early, read)
	}
}
