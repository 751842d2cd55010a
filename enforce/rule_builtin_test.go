package enforce_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce"
)

func TestForbiddenWords(t *testing.T) {
	rule := enforce.ForbiddenWords("competitors", "Globex", "Straße", "σίσυφος")
	tests := []struct {
		name, answer string
		want         []enforce.Issue
	}{
		{"a word in another case is found", `{"a": "Try GLOBEX instead"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "competitors", Message: `forbidden word "Globex"`}}},
		{"inside a longer word it is not", `{"a": "Globexy and unGlobex are fine"}`, nil},
		{"Unicode case folding: final sigma and accents' case", `{"b": "ΣΊΣΥΦΟΣ rolls on"}`,
			[]enforce.Issue{{Path: "/b", Keyword: "competitors", Message: `forbidden word "σίσυφος"`}}},
		{"STRASSE is not Straße under simple folding", `{"a": "STRASSE"}`, nil},
		{"ſtraße folds to straße", `{"a": "ſtraße"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "competitors", Message: `forbidden word "Straße"`}}},
		{"each string at its pointer", `{"a": "fine", "l": ["ok", "globex!"]}`,
			[]enforce.Issue{{Path: "/l/1", Keyword: "competitors", Message: `forbidden word "Globex"`}}},
		{"member names are not read", `{"globex": "fine"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ruleIssues(t, `{"type": "object", "additionalProperties": {"type": ["string", "array"]}}`, rule, tt.answer)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("issues = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestAllowedDomains(t *testing.T) {
	rule := enforce.AllowedDomains("our-links", "example.com", "docs.acme.io")
	tests := []struct {
		name, answer string
		want         []enforce.Issue
	}{
		{"an allowed domain and its subdomains pass", `{"a": "See https://example.com/x and http://www.Example.COM./y?q=1 and https://docs.acme.io"}`, nil},
		{"another domain fails, named", `{"a": "See https://evil.example.net/login now"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "our-links", Message: `mentions evil.example.net, which is not an allowed domain`}}},
		{"a parent of an allowed domain is not allowed", `{"a": "https://acme.io/"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "our-links", Message: `mentions acme.io, which is not an allowed domain`}}},
		{"a suffix that is no subdomain is not allowed", `{"a": "(https://badexample.com)"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "our-links", Message: `mentions badexample.com, which is not an allowed domain`}}},
		{"userinfo and port are not the host", `{"a": "https://example.com@evil.org:8080/"}`,
			[]enforce.Issue{{Path: "/a", Keyword: "our-links", Message: `mentions evil.org, which is not an allowed domain`}}},
		{"a bare www. link is read", `{"a": "go to www.evil.org."}`,
			[]enforce.Issue{{Path: "/a", Keyword: "our-links", Message: `mentions www.evil.org, which is not an allowed domain`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ruleIssues(t, `{"type": "object", "additionalProperties": {"type": ["string", "array"]}}`, rule, tt.answer)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("issues = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// FuzzBuiltinRules holds the built-in rules to never failing to judge,
// and ForbiddenWords to finding a word set apart by spaces in any text.
func FuzzBuiltinRules(f *testing.F) {
	f.Add("see https://x.example.com@evil.org:80/a", "Globex")
	f.Add("ΣΊΣΥΦΟΣ www.", "σίσυφος")
	f.Add("http://", "ſ")
	f.Fuzz(func(t *testing.T, text, word string) {
		b, err := json.Marshal(map[string]string{"a": text, "b": text + " " + word + " "})
		if err != nil {
			t.Skip()
		}
		s := withValidators(t, mustCompile(t, `{"type": "object"}`),
			enforce.ForbiddenWords("words", word), enforce.AllowedDomains("links", "example.com"))
		err = s.Judge(t.Context(), enforce.Answer{Given: string(b)})
		var ve *enforce.ValidatorError
		if errors.As(err, &ve) {
			t.Fatalf("a built-in rule could not judge %s: %v", b, err)
		}
		var ce *enforce.CheckError
		if strings.TrimSpace(word) != "" && !strings.ContainsAny(word, " \t\r\n") && utf8.ValidString(word) && !errors.As(err, &ce) {
			t.Fatalf("ForbiddenWords(%q) did not find it in %s", word, b)
		}
	})
}
