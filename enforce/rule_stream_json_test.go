package enforce_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// jsonRules is a JSON contract held to every built-in rule.
func jsonRules(t testing.TB, vs ...enforce.Validator) *enforce.Schema {
	t.Helper()
	if len(vs) == 0 {
		vs = []enforce.Validator{
			enforce.ForbiddenWords("words", "Globex", "C++"),
			enforce.PII("pii", enforce.PIIEmail, enforce.PIICard),
			enforce.AllowedDomains("links", "example.com"),
			enforce.Grounded("grounded", "The bridge was closed for repairs in March."),
		}
	}
	s, err := enforce.CompileSchema([]byte(`{"type": ["object", "array", "string"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s, err = s.WithValidators(vs...); err != nil {
		t.Fatal(err)
	}
	return s
}

// inWhole reports whether judging the whole answer finds issue.
func inWhole(t *testing.T, s *enforce.Schema, answer string, issue enforce.Issue) bool {
	t.Helper()
	var ce *enforce.CheckError
	err := s.Judge(t.Context(), enforce.Answer{Given: answer})
	return errors.As(err, &ce) && slices.ContainsFunc(ce.Issues, func(is enforce.Issue) bool { return reflect.DeepEqual(is, issue) })
}

func TestStreamValidatingHoldsJSONStringsToRules(t *testing.T) {
	tests := []struct {
		name, answer string
		sure         string // the answer read to the verdict; "" for none
		want         enforce.Issue
	}{
		{"a forbidden word is caught in an open string, at the rune after it", `{"a": "try Globex, now"}`, `{"a": "try Globex,`,
			enforce.Issue{Path: "/a", Keyword: "words", Message: `forbidden word "Globex"`}},
		{"a forbidden word that ends a string is caught at its closing quote", `{"a": ["ok", "try Globex"], "b": 1}`, `{"a": ["ok", "try Globex"`,
			enforce.Issue{Path: "/a/1", Keyword: "words", Message: `forbidden word "Globex"`}},
		{"an escape is read as what it stands for", `{"a": "G\u006cobex!"}`, `{"a": "G\u006cobex!`,
			enforce.Issue{Path: "/a", Keyword: "words", Message: `forbidden word "Globex"`}},
		{"PII is judged as its string closes", `{"x": {"y~/": "mail jane@example.org"}}`, `{"x": {"y~/": "mail jane@example.org"`,
			enforce.Issue{Path: "/x/y~0~1", Keyword: "pii", Message: "holds an email address at byte 5"}},
		{"a link to another domain is judged as its string closes", `["see https://evil.example.net/x", "z"]`, `["see https://evil.example.net/x"`,
			enforce.Issue{Path: "/0", Keyword: "links", Message: "mentions evil.example.net, which is not an allowed domain"}},
		{"a quotation no source holds is caught at its closing mark", `"they said \"the bridge collapsed\" then"`, `"they said \"the bridge collapsed\"`,
			enforce.Issue{Keyword: "grounded", Message: `quotes "the bridge collapsed" at byte 10, which no source holds`}},
		{"member names are not judged", `{"Globex": "fine", "jane@example.org": 1}`, "", enforce.Issue{}},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 3, 64} {
			t.Run(tt.name, func(t *testing.T) {
				s := jsonRules(t)
				ce, read := streamedRules(t, s, tt.answer, size)
				if tt.sure == "" {
					if ce != nil {
						t.Fatalf("in pieces of %d: cut after %q with %v, want none", size, tt.answer[:read], ce)
					}
					return
				}
				if ce == nil || tt.answer[:read] != tt.sure {
					t.Fatalf("in pieces of %d: read %d bytes to a verdict %v, want %q read", size, read, ce, tt.sure)
				}
				if !reflect.DeepEqual(ce.Issues, []enforce.Issue{tt.want}) || ce.Stage != enforce.StageSchemaValidate {
					t.Errorf("verdict %+v, want %+v", ce.Issues, tt.want)
				}
				if !inWhole(t, s, tt.answer, tt.want) {
					t.Errorf("the whole answer's judgement lacks %+v", tt.want)
				}
			})
		}
	}
}

func TestStreamValidatingJSONRulesByScopeAndPolicy(t *testing.T) {
	for name, v := range map[string]enforce.Validator{
		"a rule at another member":    enforce.ForbiddenWords("words", "Globex").At("/b"),
		"a rule that warns":           enforce.ForbiddenWords("words", "Globex").OnFail(enforce.PolicyWarn),
		"a tripwire, judged whole":    enforce.ForbiddenWords("words", "Globex").OnFail(enforce.PolicyTripwire),
		"PII of a kind not asked for": enforce.PII("pii", enforce.PIICard),
	} {
		t.Run(name, func(t *testing.T) {
			if ce, read := streamedRules(t, jsonRules(t, v), `{"a": "Globex, jane@example.org", "b": "ok"}`, 1); ce != nil {
				t.Errorf("cut after %d bytes with %v, want none", read, ce)
			}
		})
	}
	t.Run("a rule at a member judges the strings under it", func(t *testing.T) {
		s := jsonRules(t, enforce.ForbiddenWords("words", "Globex").At("/b"))
		ce, read := streamedRules(t, s, `{"a": "Globex", "b": ["x", "Globex."]}`, 1)
		if want := len(`{"a": "Globex", "b": ["x", "Globex.`); ce == nil || read != want || ce.Issues[0].Path != "/b/1" {
			t.Errorf("read %d to %v, want %d read to an issue at /b/1", read, ce, want)
		}
	})
}

func TestElementsHoldsBackAnElementARuleRefused(t *testing.T) {
	s := jsonRules(t)
	for _, size := range []int{1, 4, 64} {
		var got []string
		e, err := enforce.NewElements(s.StreamValidating(t.Context(), enforce.Try{Attempt: 1, RetriesLeft: 1}), "", func(el enforce.Element) {
			got = append(got, el.Text)
		})
		if err != nil {
			t.Fatal(err)
		}
		answer := `["fine", "try Globex", "after"]`
		var ce *enforce.CheckError
		for i := 0; i < len(answer) && ce == nil; i += size {
			_, err := e.WriteString(answer[i:min(i+size, len(answer))])
			errors.As(err, &ce)
		}
		if ce == nil || !slices.Equal(got, []string{`"fine"`}) {
			t.Errorf("in pieces of %d: delivered %q with verdict %v, want only the first element and a verdict", size, got, ce)
		}
		if err := e.Close(); !errors.As(err, &ce) {
			t.Errorf("Close = %v, want the verdict", err)
		}
	}
}

// FuzzJSONRulesStream holds the streamed verdict of the built-in rules on
// a JSON answer to the whole answer's: a cut's issue is found in every
// answer the cut one begins that keeps the schema, and an answer that
// keeps it and streams whole without a cut has no issue of those rules.
func FuzzJSONRulesStream(f *testing.F) {
	f.Add(`{"a": "try Globex, now"}`, byte(1))
	f.Add(`["ok", "use c++ here", "jane@example.org"]`, byte(3))
	f.Add(`{"a": "see https://evil.example.net/x \"the bridge was closed\" and \"it fell down\""}`, byte(5))
	f.Add(`{"G\u006cobex": "G\u006cobex\ud800!"}`, byte(2))
	f.Fuzz(func(t *testing.T, answer string, size byte) {
		s := jsonRules(t)
		ce, read := streamedRules(t, s, answer, int(size%16)+1)
		if ce == nil {
			if s.Check(answer) != nil || strings.Contains(answer, `\u`) {
				return // the whole answer fails the schema, or holds what is left to the end
			}
			var whole *enforce.CheckError
			if err := s.Judge(t.Context(), enforce.Answer{Given: answer}); errors.As(err, &whole) {
				t.Fatalf("%q streamed without a cut, but judged whole: %v", answer, err)
			}
			return
		}
		if ce.Stage != enforce.StageSchemaValidate {
			return // the schema's own verdict, which FuzzStream holds
		}
		for _, c := range []string{answer[read:], "", `"`, `"}`, `"]`, `"]}`, `}`, `]`, `", "x"}`, `y"}`, ` now"}`} {
			whole := answer[:read] + c
			if s.Check(whole) != nil {
				continue // rules judge only answers that keep the schema
			}
			if !inWhole(t, s, whole, ce.Issues[0]) {
				t.Fatalf("cut after %q with %+v, but %q judges %v", answer[:read], ce.Issues, whole, s.Judge(t.Context(), enforce.Answer{Given: whole}))
			}
		}
	})
}
