package enforce

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// fastAgrees judges text with the fast path and with gojsonschema, on
// separate parses, and fails the test when they disagree, in verdict or
// (issuesAgree) in issues. It reports whether the fast path judged (the
// text parsed), whether the answer failed, and whether the evaluator
// wrote its issues.
func fastAgrees(t *testing.T, s *Schema, text, what string) (judged, failing, own bool) {
	t.Helper()
	doc, err := jsonvalue.Parse(text)
	if err != nil {
		if scanned, _, _ := s.parts().fast.Scan(text); s.parts().fast != nil && scanned {
			t.Errorf("%s: schema %s, answer %s: Scan passes what the parser refuses: %v", what, s.source, text, err)
		}
		return false, false, false
	}
	fast := s.passesFast(doc)
	// The judge that reads as it validates passes exactly what the tree
	// passes, where it judges (numbers not canonicalized).
	if scanned, _, _ := s.parts().fast.Scan(text); s.parts().fast != nil && !s.canonical && scanned != fast {
		t.Errorf("%s: schema %s, answer %s: Scan says pass=%t, the tree %t", what, s.source, text, scanned, fast)
	}
	doc, _ = jsonvalue.Parse(text)
	want := s.validate(doc)
	if fast != (want == nil) {
		t.Errorf("%s: schema %s, answer %s: the fast path says pass=%t, gojsonschema %v", what, s.source, text, fast, want)
	}
	failing, own = issuesAgree(t, s, text, what)
	return true, failing, own
}

// issuesAgree judges text as Check does, issues written by the compiled
// evaluator where it can, and by gojsonschema alone, on separate parses,
// and fails the test unless both give the same issues in the same order
// (path, keyword, message). It reports whether the answer parsed and
// failed, and whether the evaluator wrote its issues (where it did not,
// gojsonschema had to).
func issuesAgree(t *testing.T, s *Schema, text, what string) (failing, own bool) {
	t.Helper()
	doc, err := jsonvalue.Parse(text)
	if err != nil {
		return false, false
	}
	var got []Issue
	if ce, _ := s.validate(doc).(*CheckError); ce != nil {
		got = ce.Issues
	}
	doc, _ = jsonvalue.Parse(text)
	found, err := s.parts().gs.Checker().Judge(doc, s.canonical, MaxQuote, nil)
	if err != nil {
		found = []engine.Issue{{Keyword: "validator", Message: err.Error()}}
	}
	want := make([]Issue, len(found))
	for i, is := range found {
		want[i] = Issue(is)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: schema %s, answer %s:\nissues %q,\ngojsonschema's %q", what, s.source, text, got, want)
	}
	if s.parts().fast == nil || len(want) == 0 {
		return len(want) > 0, false
	}
	doc, _ = jsonvalue.Parse(text)
	if s.canonical {
		doc = jsonvalue.CanonicalizeInPlace(doc)
	}
	_, own = s.parts().fast.Issues(doc)
	return true, own
}

// TestFastAgreesOnSuite runs the compiled evaluator against the
// validator over every case of the JSON-Schema-Test-Suite whose schema
// compiles (optional ones too: formats, big numbers, regexes), for
// draft-07 and 2020-12. The validator is the authority, not the suite's
// expected verdict: the fast path must give its verdict exactly. Every
// schema that compiles must also lie in the compiled subset.
func TestFastAgreesOnSuite(t *testing.T) {
	root := corpus.Suite(t)
	for _, draft := range []string{"draft4", "draft6", "draft7", "draft2020-12"} {
		var files []string
		for _, pat := range []string{"*.json", "optional/*.json", "optional/format/*.json"} {
			m, _ := filepath.Glob(filepath.Join(root, draft, pat))
			files = append(files, m...)
		}
		if len(files) == 0 {
			continue
		}
		sort.Strings(files)
		t.Run(draft, func(t *testing.T) {
			var judged, outside, failing, own int
			for _, file := range files {
				if strings.HasSuffix(file, "refRemote.json") {
					continue
				}
				for _, g := range corpus.SuiteFile(t, file) {
					schema := string(g.Schema)
					if draft == "draft4" || draft == "draft6" {
						if m, ok := decodeObject(schema); ok && m["$schema"] == nil {
							m["$schema"] = "http://json-schema.org/" + map[string]string{"draft4": "draft-04", "draft6": "draft-06"}[draft] + "/schema#"
							b, _ := json.Marshal(m)
							schema = string(b)
						}
					}
					s, err := CompileSchema([]byte(schema))
					if err != nil {
						continue
					}
					if s.parts().fast == nil {
						outside++
						t.Errorf("%s / %s: the schema compiles but not for the fast path: %s", filepath.Base(file), g.Description, g.Schema)
						continue
					}
					for _, tc := range g.Tests {
						ok, fails, byOwn := fastAgrees(t, s, string(tc.Data), filepath.Base(file)+" / "+g.Description+" / "+tc.Description)
						judged, failing, own = judged+count(ok), failing+count(fails), own+count(byOwn)
					}
				}
			}
			t.Logf("%s: %d cases judged alike by the fast path and gojsonschema; %d schemas outside the subset; of %d failing, %d with the issues written by the evaluator, the same", draft, judged, outside, failing, own)
			if judged == 0 {
				t.Errorf("no case judged")
			}
		})
	}
}

func decodeObject(s string) (map[string]any, bool) {
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	return m, d.Decode(&m) == nil && m != nil
}

// Cases gojsonschema judges in ways a quick reading of JSON Schema gets
// wrong; the fast path must judge them as it does.
func TestFastAgreesOnEdges(t *testing.T) {
	for _, tc := range []struct{ schema, answers string }{
		{`{"type": "integer"}`, `[1, 1.0, 1e2, 1.5e1, 1e-2, -0, 12345678901234567890123, 1.00000000000000000000001, 1e1000, -1e-1000]`},
		{`{"multipleOf": 0.1}`, `[0.3, 0.30000000000000004, 1e300, 1e-300, -0, 0.1e1, 12345678901234567890.1, 3.000000000000000000000000001]`},
		{`{"multipleOf": 0.01}`, `[19.99, 0.075, 1e-2, 100, 0.0100, 1.1e-1]`},
		{`{"multipleOf": 3}`, `[9, 9.0, 1e2, 3e20, 12345678901234567891, 7]`},
		{`{"multipleOf": 1e-300}`, `[1, 1e-299, 1e-301, 0.5]`},
		{`{"minimum": 0.1, "maximum": 1e2}`, `[0.1, 0.09999999999999999999999, 0.1000000000000000000001, 100, 100.0000000000000000001, 1e2, 1e-400, -0]`},
		{`{"exclusiveMinimum": 0, "exclusiveMaximum": 12345678901234567890123}`, `[0, -0, 1e-1000, 12345678901234567890122, 12345678901234567890123, 1.2345678901234567890123e22]`},
		{`{"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 1, "exclusiveMinimum": true, "maximum": 2, "exclusiveMaximum": false}`, `[1, 1.0000001, 2, 2.0000001]`},
		{`{"enum": [1, "a", null, [1, {"b": 2.0}], {"x": -0}]}`, `[1, 1.0, 1e0, "a", null, [1, {"b": 2}], [1.0, {"b": 2e0}], {"x": 0}, {"x": -0}, {"x": -0.0}, 2, "b", 1e400]`},
		{`{"const": 0}`, `[0, -0, 0.0, -0.0, 0e5, 1e-400, -1e-400]`},
		{`{"const": 0.1}`, `[0.1, 0.10000000000000000001, 1e-1]`},
		{`{"uniqueItems": true}`, `[[1, 1.0], [0, -0], [0.1, 0.10000000000000000001], [{"a": 1}, {"a": 1.0}], ["a", "b"], [[1], [1]], [1e400, 2], [true, 1], [null, false]]`},
		{`{"type": "string", "minLength": 2, "maxLength": 3}`, `["é", "éé", "😀😀😀", "😀😀😀😀", "ab", "\u0000\u0000"]`},
		{`{"pattern": "^\\p{L}+$"}`, `["é", "a1", "", 5]`},
		{`{"format": "date-time"}`, `["2024-05-01T10:00:00Z", "2024-05-01", "x", 5, 5.5, true, null]`},
		{`{"format": "email"}`, `["a@b.co", "x", 1]`},
		{`{"format": "no-such-format"}`, `["x", 1]`},
		{`{"$schema": "https://json-schema.org/draft/2020-12/schema", "format": "email"}`, `["x", "a@b.co"]`},
		{`{"items": [{"type": "integer"}], "additionalItems": false}`, `[[], [1], [1, 2], ["a"]]`},
		{`{"items": [], "additionalItems": false}`, `[[], [1]]`},
		{`{"properties": {"a": {"type": "string"}}, "patternProperties": {"^a": {"minLength": 2}}, "additionalProperties": false}`, `[{"a": "x"}, {"a": "xy"}, {"ab": 1}, {"b": 1}, {}]`},
		{`{"dependencies": {"a": ["b"], "c": {"required": ["d"]}, "e": []}}`, `[{"a": 1}, {"a": 1, "b": 2}, {"c": 1}, {"c": 1, "d": 1}, {"e": 1}, 5]`},
		{`{"propertyNames": {"maxLength": 2}, "minProperties": 1, "maxProperties": 2}`, `[{}, {"ab": 1}, {"abc": 1}, {"a": 1, "b": 2, "c": 3}]`},
		{`{"if": {"type": "integer"}, "then": {"minimum": 5}, "else": {"type": "string"}}`, `[5, 4, "a", true]`},
		{`{"oneOf": [{"type": "integer"}, {"minimum": 2}], "not": {"const": 7}}`, `[1, 2, 2.5, 7, "a"]`},
		{`{"contains": {"const": 1}, "minItems": 1}`, `[[], [1], [2, 1.0], [2]]`},
		{`{"definitions": {"n": {"type": ["integer", "null"]}}, "type": "object", "properties": {"a": {"$ref": "#/definitions/n"}, "b": {"$ref": "#"}}}`, `[{"a": 1}, {"a": "x"}, {"b": {"a": null}}, {"b": {"a": 1.5}}]`},
		{`{"type": "object", "properties": {"a": {"type": "string", "format": "ipv4", "enum": ["1.2.3.4", 5]}}}`, `[{"a": "1.2.3.4"}, {"a": 5}, {"a": 5.0}]`},
	} {
		s, err := CompileSchema([]byte(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		if s.parts().fast == nil {
			t.Fatalf("%s: not compiled for the fast path", tc.schema)
		}
		var answers []json.RawMessage
		if err := json.Unmarshal([]byte(tc.answers), &answers); err != nil {
			t.Fatal(err)
		}
		for _, a := range answers {
			fastAgrees(t, s, string(a), "edge")
		}
	}
}

// count is 1 for true, 0 for false.
func count(b bool) int {
	if b {
		return 1
	}
	return 0
}
