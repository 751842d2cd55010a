package enforce_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

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
		{"an enum one value past MaxEnum, checked in pieces", enumOf(enforce.MaxEnum + 1), `"value-1000"`, `"value-1001"`},
		{"an enum of 200,000 values, checked in pieces", enumOf(200_000), `"value-199999"`, `"value-200000"`},
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

// quoteLimit is MaxQuote plus room for the marker that says a quote was cut.
const quoteLimit = enforce.MaxQuote + 64

func TestQuotedAnswerTextIsCapped(t *testing.T) {
	huge := strings.Repeat("k", 1<<20)
	tests := []struct {
		name, schema, answer, pathPrefix string
	}{
		{"a 1 MiB extra member name", citySchema, `{"city": "Oslo", "` + huge + `": 1}`, "/kkk"},
		{"a 1 MiB member name on the path of a nested issue",
			`{"type": "object", "additionalProperties": {"type": "object", "properties": {"n": {"type": "integer"}}}}`,
			`{"` + huge + `": {"n": "x"}}`, "/kkk"},
		{"a 1 MiB member name on the path of a value that does not fit the Go type", "", `{"` + huge + `": "x"}`, "/kkk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := enforce.CompileSchema([]byte(cmp.Or(tt.schema, `{"type": "object"}`)))
			if err == nil && tt.schema == "" {
				s, err = s.For(reflect.TypeFor[map[string]int]())
			}
			if err != nil {
				t.Fatal(err)
			}
			ce := checkError(t, s.Check(tt.answer))
			for _, is := range ce.Issues {
				if len(is.Path) > quoteLimit || len(is.Message) > quoteLimit {
					t.Errorf("an issue quotes %d bytes of path and %d of message, want at most %d each", len(is.Path), len(is.Message), quoteLimit)
				}
			}
			if !strings.HasPrefix(ce.Path(), tt.pathPrefix) {
				t.Errorf("Path = %.40q…, want it to start with %q", ce.Path(), tt.pathPrefix)
			}
			if got, max := len(ce.Error()), 3*quoteLimit; got > max {
				t.Errorf("CheckError.Error() is %d bytes, want at most %d", got, max)
			}

			l, err := enforce.NewLedger(s, 1)
			if err != nil {
				t.Fatal(err)
			}
			v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: tt.answer})
			if got, want := v.Row.Outcome, enforce.OutcomeRetried; got != want {
				t.Fatalf("Outcome = %q, want %q", got, want)
			}
			if len(v.Row.Error) > quoteLimit || len(v.Row.Path) > quoteLimit {
				t.Errorf("the row holds %d bytes of Error and %d of Path, want at most %d each", len(v.Row.Error), len(v.Row.Path), quoteLimit)
			}
			if got, max := len(v.Corrective), 4<<10; got > max {
				t.Errorf("the corrective message is %d bytes, want at most %d", got, max)
			}
			again, _ := enforce.NewLedger(s, 1)
			if got, want := again.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: tt.answer}).Row.CorrectiveMessageHash, v.Row.CorrectiveMessageHash; got != want {
				t.Errorf("the same answer hashed to %s and %s, want one hash", got, want)
			}

			var oe *enforce.OutputError
			if !errors.As(s.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: tt.answer}), &oe) {
				t.Fatal("Judge did not return an *OutputError")
			}
			if got, max := len(oe.Error()), 3*quoteLimit; got > max || len(oe.Path) > quoteLimit {
				t.Errorf("OutputError.Error() is %d bytes and its Path %d, want at most %d and %d", got, len(oe.Path), max, quoteLimit)
			}
		})
	}
}

func TestCutQuotesSayTheyWereCut(t *testing.T) {
	s := mustCompile(t, citySchema)
	key := strings.Repeat("é", enforce.MaxQuote) // 2 bytes a rune: the cut must fall between runes
	ce := checkError(t, s.Check(`{"city": "Oslo", "`+key+`": 1}`))
	path := ce.Path()
	if !strings.Contains(path, "…[clipped: ") {
		t.Errorf("Path = %q, want a marker saying it was cut", path)
	}
	if !utf8.ValidString(path) || !utf8.ValidString(ce.Issues[0].Message) {
		t.Errorf("a cut quote is not valid UTF-8")
	}
	short := checkError(t, s.Check(`{"city": "Oslo", "extra": 1}`))
	if got, want := short.Path(), "/extra"; got != want {
		t.Errorf("a short Path = %q, want %q uncut", got, want)
	}
}

func TestAnswerSizeIsBounded(t *testing.T) {
	s := mustCompile(t, `{"type": "string", "maxLength": 3}`)
	str := func(n int) string { return `"` + strings.Repeat("a", n-2) + `"` } // n bytes of JSON

	tests := []struct {
		name   string
		schema *enforce.Schema
		answer string
		want   enforce.Stage
	}{
		{"an answer of MaxAnswerBytes is judged", s, str(enforce.MaxAnswerBytes), enforce.StageSchemaValidate},
		{"one byte more is refused at json-parse", s, str(enforce.MaxAnswerBytes + 1), enforce.StageJSONParse},
		{"a 50 MiB answer is refused at json-parse", s, str(50 << 20), enforce.StageJSONParse},
		{"a schema's own limit refuses past it", s.WithMaxAnswerBytes(16), str(17), enforce.StageJSONParse},
		{"a schema's own limit judges up to it", s.WithMaxAnswerBytes(16), str(16), enforce.StageSchemaValidate},
		{"a limit of 0 means MaxAnswerBytes", s.WithMaxAnswerBytes(0), str(enforce.MaxAnswerBytes), enforce.StageSchemaValidate},
		{"a larger limit judges past MaxAnswerBytes", s.WithMaxAnswerBytes(2 * enforce.MaxAnswerBytes), str(enforce.MaxAnswerBytes + 1), enforce.StageSchemaValidate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce := checkError(t, tt.schema.Check(tt.answer))
			if got, want := ce.Stage, tt.want; got != want {
				t.Errorf("Stage = %q, want %q (%v)", got, want, ce)
			}
			if got, max := len(ce.Error()), 512; got > max {
				t.Errorf("the error is %d bytes, want at most %d", got, max)
			}
		})
	}
	t.Run("WithMaxAnswerBytes leaves the schema it copies as it was", func(t *testing.T) {
		_ = s.WithMaxAnswerBytes(16)
		if got, want := checkError(t, s.Check(str(17))).Stage, enforce.StageSchemaValidate; got != want {
			t.Errorf("Stage = %q, want %q", got, want)
		}
	})
}

func TestSchemaErrorQuotesAHugeLocationCapped(t *testing.T) {
	huge := strings.Repeat("p", 1<<20)
	_, err := enforce.CompileSchema([]byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {"` + huge + `": {"allOf": [{}], "unevaluatedItems": false}}}`))
	var se *enforce.SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("CompileSchema = %v, want a *SchemaError", err)
	}
	if got, max := len(err.Error()), 6*quoteLimit; got > max {
		t.Errorf("SchemaError.Error() is %d bytes, want at most %d", got, max)
	}
	if got, want := se.Location, "/properties/"+huge; got != want {
		t.Errorf("Location is %d bytes, want the whole pointer (%d bytes)", len(got), len(want))
	}
}

func TestDecodeRefusesAnAnswerPastTheSizeBound(t *testing.T) {
	s := mustCompile(t, `{"type": "array"}`).WithMaxAnswerBytes(16)
	var v []int
	err := s.Decode(`[1,2,3,4,5,6,7,8,9]`, &v) // 19 bytes: decodable, but too long to judge
	var oe *enforce.OutputError
	if !errors.As(err, &oe) {
		t.Fatalf("Decode = %v, want an *OutputError", err)
	}
	if got, want := oe.Stage, enforce.StageJSONParse; got != want {
		t.Errorf("Stage = %q, want %q", got, want)
	}
	if v != nil {
		t.Errorf("v = %v, want it left alone", v)
	}
	if err := s.Decode(`[1,2,3]`, &v); err != nil || len(v) != 3 {
		t.Errorf("Decode of a short answer = %v, %v; want [1 2 3], nil", v, err)
	}
}

// chainOf is a schema of levels definitions, each recursing through items
// and applying the next to the same value: a value nested d deep is
// checked against about d^(levels-1) subschemas.
func chainOf(levels int) string {
	var b strings.Builder
	b.WriteString(`{"$ref": "#/definitions/l0", "definitions": {`)
	for i := range levels {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"l%d": {"items": {"$ref": "#/definitions/l%d"}`, i, i)
		if i+1 < levels {
			fmt.Fprintf(&b, `, "allOf": [{"$ref": "#/definitions/l%d"}]`, i+1)
		}
		b.WriteByte('}')
	}
	b.WriteString(`}}`)
	return b.String()
}

// manyWays is a schema of n objects that step into each other by n
// members, each beside a chain of n recursions through
// additionalProperties that it enters anew at every level: the subschemas
// a value is checked against depend on the order of the members above
// it, too many orders for the audit to follow one by one.
func manyWays(n int) string {
	var b strings.Builder
	b.WriteString(`{"$ref": "#/definitions/d0", "definitions": {`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"d%d": {"properties": {`, i)
		for j := range n {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"p%d": {"$ref": "#/definitions/d%d"}`, j, (i+j)%n)
		}
		fmt.Fprintf(&b, `}, "allOf": [{"$ref": "#/definitions/e%d"}]}, "e%d": {"type": "object", "additionalProperties": {"$ref": "#/definitions/e%d"}}`, i, i, (i+1)%n)
	}
	b.WriteString(`}}`)
	return b.String()
}

// Recursion that checks a value once more for each branch that reaches
// it is bounded at run time: Check counts the checks an answer demands
// along the answer itself, and one past MaxCheckWork fails json-parse
// before any evaluator runs; a shallow answer is judged.
func TestRecursionThatFansOutIsBoundedAnswerByAnswer(t *testing.T) {
	tests := []struct{ name, schema string }{
		{"allOf with two references back", `{"items": {"allOf": [{"$ref": "#"}, {"$ref": "#"}]}}`},
		{"anyOf with two references back", `{"items": {"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}}`},
		{"oneOf whose branches recurse at different places", `{"items": {"oneOf": [{"$ref": "#"}, {"items": {"$ref": "#"}}]}}`},
		{"not beside items", `{"items": {"$ref": "#"}, "not": {"items": {"$ref": "#"}}}`},
		{"if and then", `{"if": {"items": {"$ref": "#"}}, "then": {"items": {"$ref": "#"}}}`},
		{"a dependency beside additionalProperties", `{"additionalProperties": {"$ref": "#"}, "dependencies": {"a": {"additionalProperties": {"$ref": "#"}}}}`},
		{"contains beside a tuple", `{"items": [{"$ref": "#"}], "contains": {"$ref": "#"}}`},
		{"a property and a pattern that matches its name", `{"properties": {"a": {"$ref": "#"}}, "patternProperties": {"^a": {"$ref": "#"}}}`},
		{"recursion through a definition", `{"$ref": "#/definitions/d", "definitions": {"d": {"type": "array", "items": {"allOf": [{"$ref": "#/definitions/d"}, {"$ref": "#/definitions/d"}]}}}}`},
		{"mutual recursion that fans out every other level", `{"$ref": "#/definitions/a", "definitions": {"a": {"properties": {"x": {"$ref": "#/definitions/b"}}}, "b": {"properties": {"y": {"anyOf": [{"$ref": "#/definitions/a"}, {"$ref": "#/definitions/a"}]}}}}}`},
		{"a 2020-12 tuple beside contains", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "prefixItems": [{"$ref": "#"}], "contains": {"$ref": "#"}}`},
	}
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			// 2^40 checks would take days.
			deep := nested(40)
			switch {
			case strings.Contains(tt.name, "mutual"):
				deep = strings.Repeat(`{"x": {"y": `, 20) + "{}" + strings.Repeat("}}", 20)
			case strings.Contains(tt.schema, "Properties"):
				deep = strings.Repeat(`{"a": `, 40) + "{}" + strings.Repeat("}", 40)
			}
			if got, want := checkError(t, s.Check(deep)).Stage, enforce.StageJSONParse; got != want {
				t.Errorf("an answer nested 40 deep: Stage = %q, want %q", got, want)
			}
			if err := s.Check(nested(3)); err != nil {
				var ce *enforce.CheckError
				if !errors.As(err, &ce) || ce.Stage != enforce.StageSchemaValidate {
					t.Errorf("an answer nested 3 deep: Check = %v, want it judged", err)
				}
			}
		})
	}
	t.Run("a chain of three recursions, which grows as depth squared, judges answers 100 deep", func(t *testing.T) {
		if err := mustCompile(t, chainOf(3)).Check(nested(100)); err != nil {
			t.Errorf("Check = %v, want nil", err)
		}
	})
}

// Recursive Go types as SchemaFor reflects them.
type (
	listNode struct {
		Value int       `json:"value"`
		Next  *listNode `json:"next,omitempty"`
	}
	treeNode struct {
		Name     string              `json:"name"`
		Children []treeNode          `json:"children"`
		ByName   map[string]treeNode `json:"by_name,omitempty"`
	}
	// expr and term recurse into each other through members of the same
	// names.
	expr struct {
		Left  *expr `json:"left,omitempty"`
		Right *term `json:"right,omitempty"`
	}
	term struct {
		Left  *expr `json:"left,omitempty"`
		Right *term `json:"right,omitempty"`
	}
)

func TestCompileSchemaAcceptsRecursionThatDoesNotFanOut(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct{ name, schema, pass, fail string }{
		{"a linked list", `{"type": "object", "properties": {"next": {"$ref": "#"}}}`, `{"next": {"next": {}}}`, `{"next": {"next": 1}}`},
		{"a tuple whose later items recurse too", `{"type": "array", "items": [{"$ref": "#"}], "additionalItems": {"$ref": "#"}}`, deep(900), `[[1]]`},
		{"a property beside additionalProperties", `{"type": "object", "properties": {"a": {"$ref": "#"}}, "additionalProperties": {"$ref": "#"}}`, `{"a": {"b": {}}}`, `{"a": {"b": 1}}`},
		{"a pattern beside additionalProperties", `{"type": "object", "patternProperties": {"^a": {"$ref": "#"}}, "additionalProperties": {"$ref": "#"}}`, `{"a": {"b": {}}}`, `{"a": {"b": 1}}`},
		{"anyOf of branches of which one recurses", `{"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#"}}]}`, `[["a", []]]`, `[[1]]`},
		{"propertyNames beside recursion", `{"type": "object", "propertyNames": {"$ref": "#/definitions/name"}, "additionalProperties": {"$ref": "#"}, "definitions": {"name": {"maxLength": 3}}}`, `{"abc": {}}`, `{"abcd": {}}`},
		{"a 2020-12 tuple whose later items recurse too", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array", "prefixItems": [{"$ref": "#"}], "items": {"$ref": "#"}}`, deep(900), `[1]`},
		{"a chain of two recursions, which grows only with depth", chainOf(2), deep(999), ``},
		{"too many ways to nest to follow one by one, counted coarsely", manyWays(3), `{"p1": {"p2": {"x": {}}}}`, `{"p1": {"p2": 1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			if err := s.Check(tt.pass); err != nil {
				t.Errorf("Check(%.40s…) = %v, want nil", tt.pass, err)
			}
			if tt.fail == "" {
				return
			}
			if err := s.Check(tt.fail); err == nil {
				t.Errorf("Check(%s) passed, want an issue", tt.fail)
			}
		})
	}
	t.Run("SchemaFor reflects recursive Go types", func(t *testing.T) {
		for _, f := range []func() (*enforce.Schema, error){
			enforce.SchemaFor[listNode], enforce.SchemaFor[treeNode], enforce.SchemaFor[expr],
		} {
			if _, err := f(); err != nil {
				t.Error(err)
			}
		}
	})
}
