package enforce_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// fuzzLabels are labels that take every path of a choice's stream: ones
// that are JSON (a literal, a number), one with a space, a full stop, a
// letter whose case folds across scripts (the Kelvin sign) and one whose
// bytes change length in another case; and pairs whose case folds meet
// (kit and kıt in Turkish, straße and STRASSE in full folding), and a
// letter with a combining mark.
var fuzzLabels = []enforce.Label{
	{Name: "positive"}, {Name: "negative"}, {Name: "neutral"}, {Name: "true"}, {Name: "12"},
	{Name: "very good"}, {Name: "etc."}, {Name: "k"}, {Name: "straße"}, {Name: "ǅ"},
	{Name: "kit"}, {Name: "kıt"}, {Name: "STRASSE"}, {Name: "café"},
}

// soundEarly fails t unless early, the early verdict of an Incremental
// of s fed answer, after read bytes, holds for the answer and for other
// completions of what it read: each of their Check verdicts has the
// verdict's stage and its one issue.
func soundEarly(t *testing.T, s *enforce.Schema, answer string, early error, read int, completions []string) {
	t.Helper()
	ce := checkError(t, early)
	if len(ce.Issues) == 0 || read < 1 || read > len(answer) {
		t.Fatalf("early verdict %v after %d of %d bytes", early, read, len(answer))
	}
	prefix := answer[:read]
	for _, c := range append([]string{answer[read:]}, completions...) {
		whole := prefix + c
		got := s.Check(whole)
		if got == nil {
			t.Fatalf("doomed after %q (%v), but %q passes", prefix, early, whole)
		}
		gce := checkError(t, got)
		if gce.Stage != ce.Stage || !slices.ContainsFunc(gce.Issues, func(is enforce.Issue) bool { return reflect.DeepEqual(is, ce.Issues[0]) }) {
			t.Fatalf("doomed after %q with %+v, but Check(%q) = %+v", prefix, ce, whole, gce)
		}
	}
}

// closeIsCheck fails t unless Close's verdict is Check's.
func closeIsCheck(t *testing.T, s *enforce.Schema, answer string, closed error) {
	t.Helper()
	check := s.Check(answer)
	if (closed == nil) != (check == nil) {
		t.Fatalf("%q: Close = %v, Check = %v", answer, closed, check)
	}
	if closed != nil && !reflect.DeepEqual(checkError(t, closed), checkError(t, check)) {
		t.Fatalf("%q: Close = %#v, Check = %#v", answer, closed, check)
	}
}

// A choice's stream never dooms an answer some completion of what it
// read passes, and its Close is Check.
func FuzzChoiceStream(f *testing.F) {
	for _, a := range []string{"positive", "The review is positive.", "Positive.\n", " POSITIVE ", "tru", "true ", "12.5", "-", "nul", "very  good",
		"VERY GOOD", "ETC.", "etc", "K", "STRASSE", "Straße.", "ǆ", "KIT", "Kit", "KIT.", "strasse", "STRASSE.", "CAFÉ", "CAFE\u0301", `"positive"`, `{"label":"positive"}`, `["neutral","true"]`, "\xe2\x80", "\u00a0positive"} {
		f.Add(a, byte(1), false, false)
		f.Add(a, byte(3), true, true)
	}
	f.Fuzz(func(t *testing.T, answer string, size byte, repair, multi bool) {
		s := mustChoice(t, multi, fuzzLabels...)
		if repair {
			s = s.WithRepairs(enforce.RepairLabel)
		}
		early, read, closed := streamed(s, answer, int(size%16)+1)
		if early == nil {
			closeIsCheck(t, s, answer, closed)
			return
		}
		if closed != early {
			t.Fatalf("Close = %v, the early verdict %v", closed, early)
		}
		var tails []string
		for _, l := range fuzzLabels {
			tails = append(tails, l.Name, strings.ToUpper(l.Name), l.Name+".", " "+l.Name)
		}
		soundEarly(t, s, answer, early, read, append(tails, "", " ", ".", "\n", `"`, "0", "e5", "rue", "ull"))
	})
}

// A text's stream never dooms an answer some completion of what it read
// passes, and its Close is Check.
func FuzzTextStream(f *testing.F) {
	for _, a := range []string{"", "a short answer", "my password is", "pass", "word", "ééééé", "\xe2\x82", "xxxxxxxxxxxxxxxxxxxxxxxxx", "Paris is lovely"} {
		f.Add(a, byte(1), byte(12))
		f.Add(a, byte(4), byte(3))
	}
	f.Fuzz(func(t *testing.T, answer string, size, most byte) {
		s, err := enforce.Text(enforce.MaxLength(int(most%24)+2), enforce.MaxBytes(int(most%24)*2+3),
			enforce.MustNotContain("password"), enforce.MustNotContain("éé"), enforce.MustContain("Paris"), enforce.MinLength(2),
			enforce.Pattern(`^[^\d]*$`))
		if err != nil {
			t.Fatal(err)
		}
		early, read, closed := streamed(s, answer, int(size%16)+1)
		if early == nil {
			closeIsCheck(t, s, answer, closed)
			return
		}
		if closed != early {
			t.Fatalf("Close = %v, the early verdict %v", closed, early)
		}
		soundEarly(t, s, answer, early, read, []string{"", "Paris", "\x80", "\xa9", "word", "é"})
	})
}
