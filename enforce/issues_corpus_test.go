package enforce

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// raceSample is set under the race detector (race_internal_on_test.go).
var raceSample bool

// TestIssuesAgreeOnJSONSchemaBench holds the issues of every labelled
// document of JSONSchemaBench's schemas that compile, as Check writes
// them (by the compiled evaluator where it can), to gojsonschema's alone:
// the same issues, pointers, words and order for every failing document.
func TestIssuesAgreeOnJSONSchemaBench(t *testing.T) {
	files := corpus.Bench(t, nil)
	failing, own := 0, 0
	for i, bf := range files {
		if raceSample && i%8 != 0 {
			continue
		}
		s, err := CompileSchema(bf.Schema)
		if err != nil {
			continue
		}
		for _, tc := range bf.Tests {
			fails, byOwn := issuesAgree(t, s, string(tc.Data), bf.Name)
			failing, own = failing+count(fails), own+count(byOwn)
		}
	}
	t.Logf("%d documents failing at schema-validate, %d with the issues written by the evaluator", failing, own)
	if own == 0 {
		t.Errorf("the evaluator wrote no document's issues")
	}
}

// TestIssuesAgreeOnRealModelOutputs is TestIssuesAgreeOnJSONSchemaBench
// over the real model outputs corpus, each completion against its
// schema as written and as every repair mends it.
func TestIssuesAgreeOnRealModelOutputs(t *testing.T) {
	recs := corpus.ModelOutputs(t)
	failing, own := 0, 0
	schemas := map[string]*Schema{}
	for i, r := range recs {
		if raceSample && i%8 != 0 {
			continue
		}
		s, seen := schemas[string(r.Schema)]
		if !seen {
			var err error
			if s, err = CompileSchema(r.Schema); err != nil {
				t.Fatalf("record %d: %v", i, err)
			}
			schemas[string(r.Schema)] = s
		}
		texts := []string{r.Output}
		if mended, _ := s.WithRepairs(AllRepairs).Repaired(r.Output); mended != r.Output {
			texts = append(texts, mended)
		}
		for _, text := range texts {
			fails, byOwn := issuesAgree(t, s, text, r.Source+"/"+r.Model)
			failing, own = failing+count(fails), own+count(byOwn)
		}
	}
	t.Logf("%d answers failing at schema-validate, %d with the issues written by the evaluator", failing, own)
	if own == 0 {
		t.Errorf("the evaluator wrote no answer's issues")
	}
}

// TestEvaluatorWritesTheCommonKeywordsIssues: an answer failing the
// common keywords gets its issues from the compiled evaluator, without
// gojsonschema, in gojsonschema's words and order.
func TestEvaluatorWritesTheCommonKeywordsIssues(t *testing.T) {
	s, err := CompileSchema([]byte(`{"type": "object", "additionalProperties": false, "required": ["id", "tags", "kind"],
		"properties": {"id": {"type": "integer", "minimum": 1, "maximum": 9}, "name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"},
		"kind": {"enum": ["a", "b", 3]}, "tags": {"type": "array", "maxItems": 1, "uniqueItems": true, "items": {"type": "string", "maxLength": 2}},
		"at": {"type": "string", "format": "date-time"}, "c": {"const": {"x": 1}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	answer := `{"id": 10, "name": "B", "kind": "c", "tags": ["abc", 1, "abc"], "at": "2024-01-01", "c": {"x": 2}, "extra": null}`
	doc, _ := jsonvalue.Parse(answer)
	if _, own := s.parts().fast.Issues(doc); !own {
		t.Fatal("gojsonschema had to write the issues")
	}
	var ce *CheckError
	if !errors.As(s.Check(answer), &ce) {
		t.Fatal("the answer passed")
	}
	want := []Issue{
		{"/at", "format", "Does not match format 'date-time'"},
		{"/c", "const", "c does not match: {\"x\":1}"},
		{"/extra", "additionalProperties", "Additional property extra is not allowed"},
		{"/id", "maximum", "Must be less than or equal to 9"},
		{"/kind", "enum", "kind must be one of the following: \"a\", \"b\", 3"},
		{"/name", "pattern", "Does not match pattern '^[a-z]+$'"},
		{"/name", "minLength", "String length must be greater than or equal to 2"},
		{"/tags", "maxItems", "Array must have at most 1 items"},
		{"/tags", "uniqueItems", "array items[0,2] must be unique"},
		{"/tags/0", "maxLength", "String length must be less than or equal to 2"},
		{"/tags/1", "type", "Invalid type. Expected: string, given: integer"},
		{"/tags/2", "maxLength", "String length must be less than or equal to 2"},
	}
	if !slices.Equal(ce.Issues, want) {
		t.Errorf("issues\n%q, want\n%q", ce.Issues, want)
	}
	issuesAgree(t, s, answer, "common keywords")
}

// TestEvaluatorWritesTheApplicatorsIssues: a failing anyOf, oneOf or
// contains gets its issues from the evaluator, as gojsonschema writes
// them: its own, and those of the branch or item it scores best (the
// first of the highest score), which the evaluator scores as it does.
func TestEvaluatorWritesTheApplicatorsIssues(t *testing.T) {
	s, err := CompileSchema([]byte(`{"properties": {
		"any": {"anyOf": [{"type": "integer", "minimum": 3}]},
		"one": {"oneOf": [{"type": "object", "required": ["x"]}]},
		"two": {"oneOf": [{"type": "integer"}, {"minimum": 0}]},
		"has": {"contains": {"type": "string", "minLength": 2}},
		"many": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
		"obj": {"anyOf": [{"type": "null"}, {"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string"}}}, {"type": "object", "required": ["c"]}]},
		"pick": {"oneOf": [{"type": "object", "required": ["x", "y"]}, {"type": "object", "required": ["z"], "properties": {"x": {"maximum": 1}}}]},
		"cond": {"if": {"type": "string"}, "then": {"anyOf": [{"minLength": 5}, {"maxLength": 1}]}, "else": {"contains": {"anyOf": [{"const": 1}, {"type": "object", "required": ["q"]}]}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, answer := range []string{
		`{"any": 1}`, `{"any": "a"}`, `{"one": {"y": 1}}`, `{"two": 5}`,
		`{"has": []}`, `{"has": ["a"]}`, `{"has": [1, "a", {"x": 1}]}`,
		`{"many": true}`, `{"obj": {"a": 1}}`, `{"obj": {"a": "s", "d": 2}}`, `{"obj": []}`,
		`{"pick": {"x": 2}}`, `{"pick": {"x": 2, "y": 3}, "two": 1}`,
		`{"cond": "abc"}`, `{"cond": [2, {"r": 1}, "s"]}`, `{"cond": [{"r": 2}, {"s": 1, "t": 2}]}`,
	} {
		failing, own := issuesAgree(t, s, answer, "applicators")
		if !failing || !own {
			t.Errorf("%s: failing %t, issues written by the evaluator %t", answer, failing, own)
		}
	}
}

// TestGojsonschemaCompilesOnFirstNeed: a contract the evaluator judges
// alone compiles without gojsonschema, which compiles on the first
// answer the evaluator cannot write the issues of; a schema gojsonschema
// refuses is still refused by CompileSchema, not by a later Check.
func TestGojsonschemaCompilesOnFirstNeed(t *testing.T) {
	s, err := compileSchema([]byte(`{"type": "object", "required": ["a"], "properties": {"a": {"type": "integer", "maximum": 3}, "b": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "additionalProperties": {"type": "string"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{`{"a": 1}`, `{"a": 4}`, `{"b": null}`, `[]`, `{"a": 1, "b": 5}`} {
		_ = s.Check(a)
		if s.parts().gs.Compiled() {
			t.Fatalf("gojsonschema compiled for %s, which the evaluator judges alone", a)
		}
	}
	var ce *CheckError
	// A member name holding a NUL splits gojsonschema's context: only
	// it writes the pointer it writes then.
	if !errors.As(s.Check(`{"a": 1, "x\u0000y": 5}`), &ce) || !s.parts().gs.Compiled() {
		t.Fatalf("a member name with a NUL: %v, gojsonschema compiled: %t", ce, s.parts().gs.Compiled())
	}
	for _, schema := range []string{
		`{"minLength": 3, "maxLength": 2}`,
		`{"definitions": {"x": {"minProperties": 1, "maxProperties": 0}}, "type": "string"}`,
	} {
		var se *SchemaError
		if _, err := CompileSchema([]byte(schema)); !errors.As(err, &se) {
			t.Errorf("CompileSchema(%s) = %v, want a *SchemaError", schema, err)
		}
	}
}

// TestGojsonschemaCompilesOnceUnderConcurrentChecks: answers judged at
// once, on goroutines, while gojsonschema compiles on first need and
// streams read the audited tree, get the verdicts judged alone give.
func TestGojsonschemaCompilesOnceUnderConcurrentChecks(t *testing.T) {
	schema := []byte(`{"type": "object", "definitions": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/definitions/n"}, "b": {"oneOf": [{"type": "string"}, {"$ref": "#/definitions/n"}]}}}`)
	answers := []string{`{"a": 1}`, `{"a": "x"}`, `{"b": true}`, `{"b": 2, "a": 2}`}
	want := make([]string, len(answers))
	for i, a := range answers {
		s, err := compileSchema(schema)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = fmt.Sprint(s.Check(a))
	}
	s, err := compileSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range answers {
				i := (i + g) % len(answers)
				if got := fmt.Sprint(s.Check(answers[i])); got != want[i] {
					t.Errorf("%s: %s, judged alone %s", answers[i], got, want[i])
				}
				st := s.Stream()
				_, _ = st.WriteString(answers[i])
				_ = st.Close()
			}
		}()
	}
	wg.Wait()
}

// TestCompileSchemaSharesWhatItCompiledOfTheSameBytes: compiling the
// same bytes again shares the compiled judge, and each *Schema is its
// caller's own.
func TestCompileSchemaSharesWhatItCompiledOfTheSameBytes(t *testing.T) {
	raw := []byte(`{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}`)
	a, err := CompileSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	b, err := CompileSchema(append([]byte(nil), raw...))
	if err != nil {
		t.Fatal(err)
	}
	if a == b || a.parts().gs != b.parts().gs || a.parts().fast != b.parts().fast {
		t.Fatalf("the same bytes compiled twice: shared *Schema %t, judge %t, evaluator %t", a == b, a.parts().gs == b.parts().gs, a.parts().fast == b.parts().fast)
	}
	type N struct {
		N uint8 `json:"n"`
	}
	ta, err := a.For(reflect.TypeFor[N]())
	if err != nil {
		t.Fatal(err)
	}
	if ta.Check(`{"n": 300}`) == nil || b.Check(`{"n": 300}`) != nil || a.Check(`{"n": 300}`) != nil {
		t.Error("For on one copy changed the other")
	}
}
