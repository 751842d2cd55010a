package enforce_test

import (
	"errors"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/xeipuuv/gojsonschema"
)

// What real schemas write, each judged as its dialect says: the schema
// compiles, and each answer gets the verdict the specification gives.
func TestCompileSchemaJudgesWhatRealSchemasWrite(t *testing.T) {
	const d4 = `"$schema": "http://json-schema.org/draft-04/schema#", `
	const d2019 = `"$schema": "https://json-schema.org/draft/2019-09/schema", `
	tests := []struct {
		name, schema string
		pass, fail   []string
	}{
		{"draft-04 allows a boolean at additionalProperties",
			`{` + d4 + `"type": "object", "properties": {"a": {}}, "additionalProperties": false}`,
			[]string{`{"a": 1}`}, []string{`{"a": 1, "b": 2}`}},
		{"draft-04 allows a boolean at additionalItems",
			`{` + d4 + `"items": [{"type": "string"}], "additionalItems": false}`,
			[]string{`["a"]`}, []string{`["a", "b"]`}},
		{"a nested $schema that repeats the root's dialect",
			`{` + d4 + `"definitions": {"a": {` + d4 + `"type": "string"}}, "$ref": "#/definitions/a"}`,
			[]string{`"s"`}, []string{`1`}},
		{"a draft-04 subschema under a draft-07 root keeps draft-04's exclusive bound",
			`{"properties": {"n": {` + d4 + `"maximum": 3, "exclusiveMaximum": true}}}`,
			[]string{`{"n": 2}`}, []string{`{"n": 3}`}},
		{"a draft-07 subschema under a draft-04 root keeps draft-07's const",
			`{` + d4 + `"properties": {"n": {"$schema": "http://json-schema.org/draft-07/schema#", "const": 1}}}`,
			[]string{`{"n": 1}`}, []string{`{"n": 2}`}},
		{"a $ref into a place no keyword puts a subschema",
			`{"references": {"id": {"type": "integer"}}, "properties": {"id": {"$ref": "#/references/id"}}}`,
			[]string{`{"id": 1}`}, []string{`{"id": "x"}`}},
		{"a $ref into a member of a definition that is no keyword",
			`{"definitions": {"a": {"b": {"type": "integer"}}}, "properties": {"x": {"$ref": "#/definitions/a/b"}}}`,
			[]string{`{"x": 1}`}, []string{`{"x": "1"}`}},
		{"a $ref resolves against the $id of the subschema holding it",
			`{"$id": "http://example.com/root.json", "definitions": {
				"inner": {"type": "string"},
				"sub": {"$id": "http://example.com/sub.json", "definitions": {"inner": {"type": "integer"}}, "properties": {"v": {"$ref": "#/definitions/inner"}}}},
			  "properties": {"s": {"$ref": "sub.json"}, "r": {"$ref": "#/definitions/inner"}}}`,
			[]string{`{"s": {"v": 1}, "r": "x"}`}, []string{`{"s": {"v": "x"}}`, `{"r": 1}`}},
		{"a draft-04 id moves the base too",
			`{` + d4 + `"id": "http://example.com/root.json", "properties": {"s": {"$ref": "http://example.com/item.json"}},
			  "definitions": {"item": {"id": "item.json", "type": "integer"}}}`,
			[]string{`{"s": 1}`}, []string{`{"s": "x"}`}},
		{"a draft-07 plain-name anchor",
			`{"definitions": {"a": {"$id": "#num", "type": "number"}}, "properties": {"x": {"$ref": "#num"}}}`,
			[]string{`{"x": 1.5}`}, []string{`{"x": "1"}`}},
		{"a 2020-12 $anchor",
			`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"a": {"$anchor": "num", "type": "number"}}, "properties": {"x": {"$ref": "#num"}}}`,
			[]string{`{"x": 1.5}`}, []string{`{"x": "1"}`}},
		{"2019-09 is translated as 2020-12 is: dependentRequired",
			`{` + d2019 + `"dependentRequired": {"a": ["b"]}}`,
			[]string{`{"a": 1, "b": 2}`, `{"b": 2}`}, []string{`{"a": 1}`}},
		{"2019-09 applies $ref beside its siblings",
			`{` + d2019 + `"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 2}`,
			[]string{`"ab"`}, []string{`"abc"`, `1`}},
		{"2019-09 keeps items as an array a tuple",
			`{` + d2019 + `"items": [{"type": "string"}], "additionalItems": false}`,
			[]string{`["a"]`}, []string{`["a", 1]`, `[1]`}},
		{"an enum that lists a value twice (draft-06 and later allow it)",
			`{"enum": ["a", "b", "a"]}`,
			[]string{`"a"`}, []string{`"c"`}},
		{"unevaluatedProperties where only the schema's own keywords evaluate is additionalProperties",
			`{"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {"a": {}}, "patternProperties": {"^x": {}}, "unevaluatedProperties": false}`,
			[]string{`{"a": 1, "x1": 2}`}, []string{`{"b": 1}`}},
		{"unevaluatedItems after a tuple is the rest of the items",
			`{"$schema": "https://json-schema.org/draft/2020-12/schema", "prefixItems": [{"type": "string"}], "unevaluatedItems": {"type": "integer"}}`,
			[]string{`["a", 1, 2]`}, []string{`["a", "b"]`}},
		{"unevaluatedItems in 2019-09 after items as an array",
			`{"$schema": "https://json-schema.org/draft/2019-09/schema", "items": [{"type": "string"}], "unevaluatedItems": false}`,
			[]string{`["a"]`}, []string{`["a", 1]`}},
		{"unevaluatedProperties true admits everything, so nothing is refused",
			`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "unevaluatedProperties": true}`,
			[]string{`{"a": 1}`}, []string{`1`}},
		{"a date-time is a date and a time, not a bare date",
			`{"format": "date-time"}`,
			[]string{`"2022-01-01T10:00:00Z"`, `"2022-01-01t10:00:00.5+01:00"`}, []string{`"2022-01-01"`, `"2022-01-01 10:00:00Z"`}},
		{"duration is checked where the draft asserts formats",
			`{"format": "duration"}`,
			[]string{`"P1D"`, `"PT1H30M"`, `"P2W"`}, []string{`"1 day"`, `"P"`, `"PT"`}},
		{"a duration's units are one contiguous run of Y M D and of H M S (RFC 3339 Appendix A)",
			`{"format": "duration"}`,
			[]string{`"P1Y2M3D"`, `"P1M2D"`, `"P1Y2M"`, `"PT1H2M"`, `"PT1M2S"`, `"P1Y2M3DT4H5M6S"`, `"P3DT1H"`},
			[]string{`"P1Y2D"`, `"PT1H1S"`, `"P1Y3DT1H"`, `"P1DT1H3S"`, `"P1Y2M3D4Y"`}},
		{"a hostname's A-label is the one encoding of a valid U-label (RFC 5890, 5891, 5892)",
			`{"format": "hostname"}`,
			[]string{`"xn--9n2bp8q.xn--9t4b11yi5a"`, `"xn--ll-0ea.com"`, `"xn--9ca.com"`, `"XN--9CA.com"`},
			[]string{`"xn--a.com"`, `"xn--n3h.com"`, `"xn--b-jfa.com"`, `"xn--ab-l13a.com"`, `"xn---9ca.com"`, `"xn--abc-.com"`}},
		{"uri holds only RFC 3986's characters",
			`{"format": "uri"}`,
			[]string{`"https://example.org/a?b#c"`}, []string{`"https://example.org/a b"`, `"/relative"`}},
		{"regex is ECMA-262's grammar",
			`{"format": "regex"}`,
			[]string{`"(?<=a)b"`, `"[^]"`}, []string{`"(?i)abc"`, `"\\a"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			for _, a := range tt.pass {
				if err := s.Check(a); err != nil {
					t.Errorf("Check(%s) = %v, want nil", a, err)
				}
			}
			for _, a := range tt.fail {
				ce := checkError(t, s.Check(a))
				if got, want := ce.Stage, enforce.StageSchemaValidate; got != want {
					t.Errorf("Check(%s): Stage = %q, want %q", a, got, want)
				}
			}
		})
	}
}

// enforce's format checkers are its own: gojsonschema's, which other code
// in the same program may use, stay as they were.
func TestCompilingFormatsLeavesGojsonschemasCheckersAsTheyWere(t *testing.T) {
	before := gojsonschema.FormatCheckers.IsFormat("date-time", "2022-01-01")
	s := mustCompile(t, `{"format": "date-time"}`)
	if err := s.Check(`"2022-01-01"`); err == nil {
		t.Error(`Check("2022-01-01") passed, want a date-time issue`)
	}
	if got, want := gojsonschema.FormatCheckers.IsFormat("date-time", "2022-01-01"), before; got != want {
		t.Errorf("gojsonschema's own date-time check of a bare date = %v after compiling, want %v as before", got, want)
	}
}

// Each refusal that remains prevents a wrong verdict: gojsonschema alone
// compiles the schema and gives the answer the wrong one.
func TestRefusalsPreventWrongVerdicts(t *testing.T) {
	tests := []struct {
		name, schema, answer, keyword string
		valid                         bool // the specification's verdict
	}{
		{"unevaluatedProperties beside allOf", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": false}`, `{"b": 1}`, "unevaluatedProperties", false},
		{"unevaluatedItems beside allOf", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "allOf": [{"prefixItems": [{}]}], "unevaluatedItems": false}`, `[1, 2]`, "unevaluatedItems", false},
		{"minContains", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "contains": {"const": 1}, "minContains": 2}`, `[1]`, "minContains", false},
		{"maxContains", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "contains": {"const": 1}, "maxContains": 1}`, `[1, 1]`, "maxContains", false},
		{"$dynamicRef", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"s": {"type": "string"}}, "$dynamicRef": "#/$defs/s"}`, `1`, "$dynamicRef", false},
		{"$recursiveRef", `{"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object", "properties": {"a": {"$recursiveRef": "#"}}}`, `{"a": 1}`, "$recursiveRef", false},
		{"idn-hostname, whose check needs IDNA tables", `{"format": "idn-hostname"}`, `"xn--X"`, "format", false},
		{"idn-email, whose check needs IDNA tables", `{"format": "idn-email"}`, `"a@xn--X"`, "format", false},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused, for gojsonschema alone would judge wrongly", func(t *testing.T) {
			_, err := enforce.CompileSchema([]byte(tt.schema))
			var se *enforce.SchemaError
			if !errors.As(err, &se) || se.Keyword != tt.keyword {
				t.Fatalf("CompileSchema = %v, want a *SchemaError for %q", err, tt.keyword)
			}
			sl := gojsonschema.NewSchemaLoader()
			sl.Draft = gojsonschema.Draft7
			gs, err := sl.Compile(gojsonschema.NewStringLoader(tt.schema))
			if err != nil {
				t.Fatalf("gojsonschema alone: %v", err)
			}
			res, err := gs.Validate(gojsonschema.NewStringLoader(tt.answer))
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid() == tt.valid {
				t.Errorf("gojsonschema alone gives %s the right verdict (%v): the refusal prevents nothing", tt.answer, tt.valid)
			}
		})
	}
}
