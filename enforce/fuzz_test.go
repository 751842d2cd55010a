package enforce

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// fuzzSchema is an order: nested objects, arrays, strings, integers,
// formats, enums and a recursive $ref.
const fuzzSchema = `{
	"type": "object",
	"required": ["id", "items"],
	"additionalProperties": false,
	"properties": {
		"id": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]+$"},
		"placed": {"type": "string", "format": "date-time"},
		"status": {"enum": ["open", "paid", 1]},
		"total": {"type": "number", "minimum": 0, "multipleOf": 0.01},
		"items": {"type": "array", "maxItems": 50, "uniqueItems": true, "items": {
			"type": "object", "required": ["sku", "qty"],
			"properties": {"sku": {"type": "string", "minLength": 1}, "qty": {"type": "integer", "minimum": 1}}
		}},
		"note": {"$ref": "#/definitions/note"}
	},
	"definitions": {"note": {"type": ["string", "object"], "properties": {"reply": {"$ref": "#/definitions/note"}}}}
}`

// FuzzCheck judges arbitrary answers: it must never panic, never quote more
// than MaxQuote bytes of the answer in an issue's path or message, and
// whatever the parser accepts must pass the json-parse stage unless it
// passes a bound (MaxCheckWork).
func FuzzCheck(f *testing.F) {
	s, err := CompileSchema([]byte(fuzzSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(`{"id": "AB-1", "items": [{"sku": "x", "qty": 2}]}`)
	f.Fuzz(func(t *testing.T, answer string) {
		err := s.Check(answer)
		if err == nil {
			return
		}
		var ce *CheckError
		if !errors.As(err, &ce) || len(ce.Issues) == 0 {
			t.Fatalf("Check(%q) = %T %v, want a *CheckError with issues", answer, err, err)
		}
		for _, is := range ce.Issues {
			if len(is.Path) > MaxQuote+64 || len(is.Message) > MaxQuote+64 {
				t.Fatalf("Check(%q): an issue quotes %d bytes of path and %d of message, more than MaxQuote", answer, len(is.Path), len(is.Message))
			}
		}
		if ce.Stage != StageJSONParse {
			return
		}
		// What encoding/json accepts the parser accepts (FuzzParse), and
		// Check fails what the parser accepts at json-parse only for a
		// bound it names.
		if _, perr := jsonvalue.Parse(answer); perr == nil && !strings.Contains(ce.Issues[0].Message, "MaxCheckWork") {
			t.Fatalf("Check(%q) failed at json-parse (%v), but the parser accepts it", answer, err)
		}
	})
}

// FuzzCompileSchema compiles arbitrary schemas: it must never panic or
// overflow the stack, and returns either a *Schema or a *SchemaError. A
// schema that compiles must judge a few answers without crashing, among
// them answers nested 40 deep, which a schema whose recursion fans out
// would take days to judge: there they fail json-parse, counted past
// MaxCheckWork.
func FuzzCompileSchema(f *testing.F) {
	f.Add(`{"type": "object", "properties": {"a": {"$ref": "#"}}}`)
	f.Add(`{"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "integer"}]}, "b": {"additionalProperties": {"type": ["array", "null"]}}}}`)
	answers := []string{`null`, `true`, `0`, `-1.5`, `"a"`, `[]`, `{}`, `[1, "a", {"b": [null]}]`, `{"a": {"a": {"a": 1}}, "b": "x"}`,
		strings.Repeat(`[`, 40) + `"a"` + strings.Repeat(`]`, 40), strings.Repeat(`{"a": `, 40) + `"a"` + strings.Repeat(`}`, 40),
		`{"a": [1, [2]], "b": {"c/d": [], "e~": null}}`}
	f.Fuzz(func(t *testing.T, schema string) {
		s, err := CompileSchema([]byte(schema))
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("CompileSchema(%q) = %T %v, want a *SchemaError", schema, err, err)
			}
			if s != nil {
				t.Fatalf("CompileSchema(%q) returned a schema beside its error", schema)
			}
			return
		}
		if s == nil {
			t.Fatalf("CompileSchema(%q) = nil, nil", schema)
		}
		// gojsonschema, when it compiles later, never refuses what
		// CompileSchema accepted.
		if s.parts().gs.Checker() == nil {
			t.Fatalf("CompileSchema(%q) accepted the schema, and gojsonschema then refused it", schema)
		}
		for _, a := range answers {
			if err := s.Check(a); err != nil {
				var ce *CheckError
				deepest := s.parts().work.Fan != nil && nesting(a) >= 40
				if !errors.As(err, &ce) || ce.Stage != StageSchemaValidate && !(deepest && ce.Stage == StageJSONParse) {
					t.Fatalf("schema %q: Check(%q) = %v, want nil or a schema-validate *CheckError", schema, a, err)
				}
				continue
			}
			// NewElements refuses a pointer only where no passing answer
			// holds an array: never where this one does.
			for _, ptr := range arrayPointers(a) {
				if _, err := NewElements(s.Stream(), ptr, nil); err != nil {
					t.Fatalf("schema %q: %q passes with an array at %q, and NewElements refuses it: %v", schema, a, ptr, err)
				}
			}
		}
	})
}

// arrayPointers are the JSON Pointers of the arrays in the JSON text s.
func arrayPointers(s string) []string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return nil
	}
	var out []string
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case []any:
			out = append(out, at)
			for i, e := range v {
				walk(e, at+"/"+strconv.Itoa(i))
			}
		case map[string]any:
			for k, e := range v {
				walk(e, at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
			}
		}
	}
	walk(v, "")
	return out
}

// nesting is how deeply arrays and objects nest in the JSON text s, which
// holds no bracket in a string.
func nesting(s string) int {
	d, deepest := 0, 0
	for _, c := range s {
		switch c {
		case '[', '{':
			d++
			deepest = max(deepest, d)
		case ']', '}':
			d--
		}
	}
	return deepest
}
