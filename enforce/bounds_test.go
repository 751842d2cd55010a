package enforce_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// refBomb is a schema of levels definitions, each an allOf or anyOf of two
// references to the next: under 2 KB that expands to 2^levels subschemas.
func refBomb(defs string, levels int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"$ref": "#/%s/l0", "%s": {`, defs, defs)
	for i := range levels {
		kw := "allOf"
		if i%2 == 1 {
			kw = "anyOf"
		}
		fmt.Fprintf(&b, `"l%d": {"%s": [{"$ref": "#/%s/l%d"}, {"$ref": "#/%s/l%d"}]},`, i, kw, defs, i+1, defs, i+1)
	}
	fmt.Fprintf(&b, `"l%d": {"type": "string"}}}`, levels)
	return b.String()
}

func enumOf(n int) string {
	var b strings.Builder
	b.WriteString(`{"enum": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"value-%d"`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

func TestCompileSchemaBoundsTheWorkASchemaCanDemand(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		keyword string
	}{
		{"a $ref fan-out bomb of 22 levels", refBomb("definitions", 22), "$ref"},
		{"a fan-out bomb one level past the bound", refBomb("$defs", 16), "$ref"},
		{"a bomb hidden under a keyword the audit does not know", refBomb("x-defs", 22), "$ref"},
		{"an enum one value past MaxEnum", enumOf(enforce.MaxEnum + 1), "enum"},
		{"an enum of 200,000 values", enumOf(200_000), "enum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := enforce.CompileSchema([]byte(tt.schema))
			var se *enforce.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("CompileSchema = %v, want a *SchemaError", err)
			}
			if got, want := se.Keyword, tt.keyword; got != want {
				t.Errorf("Keyword = %q, want %q (%v)", got, want, err)
			}
		})
	}
}

func TestCompileSchemaAcceptsWhatStaysWithinTheBounds(t *testing.T) {
	tests := []struct{ name, schema, pass, fail string }{
		{"a fan-out of 10 levels", refBomb("definitions", 10), `"a"`, `1`},
		{"an enum of MaxEnum values", enumOf(enforce.MaxEnum), `"value-999"`, `"value-1000"`},
		{"a recursive schema, counted once per recursion",
			`{"$ref": "#/definitions/node", "definitions": {"node": {"type": "object", "properties": {"left": {"$ref": "#/definitions/node"}, "right": {"$ref": "#/definitions/node"}}}}}`,
			`{"left": {"right": {}}}`, `{"left": {"right": 1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			if err := s.Check(tt.pass); err != nil {
				t.Errorf("Check(%s) = %v, want nil", tt.pass, err)
			}
			if err := s.Check(tt.fail); err == nil {
				t.Errorf("Check(%s) passed, want an issue", tt.fail)
			}
		})
	}
}
