package enforce_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

func TestBadAnswers(t *testing.T) {
	const mib = 1 << 20
	schema := `{
		"type": "object",
		"properties": {
			"note": {"type": "string", "maxLength": 100},
			"n": {"type": "number", "maximum": 5},
			"tree": {"$ref": "#/definitions/tree"}
		},
		"definitions": {"tree": {"type": "array", "items": {"$ref": "#/definitions/tree"}}}
	}`
	// Above the default MaxAnswerBytes, so that the parser meets each.
	s := mustCompile(t, schema).WithMaxAnswerBytes(64 * mib)
	tests := []struct {
		name      string
		answer    string
		wantStage enforce.Stage
		wantPath  string
	}{
		{"a 10 MiB string member is judged", `{"note":"` + strings.Repeat("a", 10*mib) + `"}`, enforce.StageSchemaValidate, "/note"},
		{"10 MiB of prose is judged", strings.Repeat("All good. ", mib), enforce.StageJSONParse, ""},
		{"a 10 MiB number is refused at json-parse", `{"n":1` + strings.Repeat("0", 10*mib) + `}`, enforce.StageJSONParse, ""},
		{"arrays nested 100,000 deep are refused at json-parse", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), enforce.StageJSONParse, ""},
		{"objects nested 100,000 deep are refused at json-parse", strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000), enforce.StageJSONParse, ""},
		{"unclosed nesting 100,000 deep is refused at json-parse", strings.Repeat("[", 100000), enforce.StageJSONParse, ""},
		{"nesting one level deeper than MaxDepth is refused", `{"tree":` + strings.Repeat("[", enforce.MaxDepth) + strings.Repeat("]", enforce.MaxDepth) + `}`, enforce.StageJSONParse, ""},
		{"an exponent of 999999999 is refused at json-parse", `{"n":1e999999999}`, enforce.StageJSONParse, ""},
		{"an exponent of -999999999 is refused at json-parse", `{"n":1e-999999999}`, enforce.StageJSONParse, ""},
		{"an exponent of 1001 is refused at json-parse", `{"n":1e1001}`, enforce.StageJSONParse, ""},
		{"an exponent of 1000 is compared exactly", `{"n":1e1000}`, enforce.StageSchemaValidate, "/n"},
		{"an exponent of 1000 with leading zeros is compared exactly", `{"n":1E+0001000}`, enforce.StageSchemaValidate, "/n"},
		{"a number of 1001 characters is refused at json-parse", `{"n":` + strings.Repeat("9", 1001) + `}`, enforce.StageJSONParse, ""},
		{"a number of 1000 characters is compared exactly", `{"n":` + strings.Repeat("9", 1000) + `}`, enforce.StageSchemaValidate, "/n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce := checkError(t, s.Check(tt.answer))
			if got, want := ce.Stage, tt.wantStage; got != want {
				t.Fatalf("Stage = %q, want %q (%v)", got, want, ce)
			}
			if got, want := ce.Path(), tt.wantPath; got != want {
				t.Errorf("Path = %q, want %q", got, want)
			}
			if n := len(ce.Error()); n > 1024 {
				t.Errorf("the error is %d bytes long; it must not echo the answer", n)
			}
		})
	}
}

func TestBadAnswersThatPass(t *testing.T) {
	s := mustCompile(t, `{"type": "object", "properties": {"tree": {"$ref": "#/definitions/tree"}, "n": {"maximum": 1e1000}},
		"definitions": {"tree": {"type": "array", "items": {"$ref": "#/definitions/tree"}}}}`)
	// The object is one level, so MaxDepth-1 arrays inside it reach MaxDepth.
	deep := `{"tree":` + strings.Repeat("[", enforce.MaxDepth-1) + strings.Repeat("]", enforce.MaxDepth-1) + `}`
	tests := []struct {
		name   string
		answer string
	}{
		{"nesting exactly MaxDepth deep passes", deep},
		{"a tiny negative exponent passes", `{"n":-1e-1000}`},
		{"a 64-digit integer passes", `{"n":` + strings.Repeat("1", 64) + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.Check(tt.answer); err != nil {
				t.Errorf("Check = %v, want nil", err)
			}
		})
	}
}

func TestBadSchemas(t *testing.T) {
	tests := []struct {
		name   string
		schema string
	}{
		{"a schema that is not JSON is refused", `{type: object}`},
		{"an empty schema document is refused", ``},
		{"a schema with trailing text is refused", `{} and more`},
		{"a schema with a duplicate key is refused", `{"type":"string","type":"number"}`},
		{"a number is not a schema", `12`},
		{"a string is not a schema", `"object"`},
		{"null is not a schema", `null`},
		{"an array is not a schema", `[]`},
		{"a numeric type is refused", `{"type": 12}`},
		{"an unknown type name is refused", `{"type": "text"}`},
		{"a negative minLength is refused", `{"minLength": -1}`},
		{"a fractional maxItems is refused", `{"maxItems": 2.5}`},
		{"a string minimum is refused", `{"minimum": "1"}`},
		{"required that is not an array is refused", `{"required": "a"}`},
		{"properties that is not an object is refused", `{"properties": []}`},
		{"a property schema that is a number is refused", `{"properties": {"a": 1}}`},
		{"an empty allOf is refused", `{"allOf": []}`},
		{"an unknown dialect is refused", `{"$schema": "http://example.com/my-dialect"}`},
		{"a schema nested 100,000 deep is refused", strings.Repeat(`{"not":`, 100000) + "{}" + strings.Repeat("}", 100000)},
		{"a schema with a huge exponent is refused", `{"maximum": 1e999999999}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := enforce.CompileSchema([]byte(tt.schema))
			var se *enforce.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("CompileSchema = (%v, %v), want a *enforce.SchemaError", s, err)
			}
			if s != nil {
				t.Errorf("CompileSchema returned a schema beside its error")
			}
		})
	}
}
