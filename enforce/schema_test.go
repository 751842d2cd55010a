package enforce_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
)

type issueAt struct{ Path, Keyword string }

func issuesAt(ce *enforce.CheckError) []issueAt {
	out := make([]issueAt, len(ce.Issues))
	for i, is := range ce.Issues {
		out[i] = issueAt{is.Path, is.Keyword}
	}
	return out
}

func TestCheckReportsEveryIssueAtItsPointer(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		answer string
		want   []issueAt
	}{
		{
			name: "every issue is reported, sorted by path, missing and extra members at their own pointer",
			schema: `{"type": "object", "required": ["city", "name"], "additionalProperties": false,
				"properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}, "city": {"type": "string"}}}`,
			answer: `{"name": 5, "age": -1, "extra": true}`,
			want:   []issueAt{{"/age", "minimum"}, {"/city", "required"}, {"/extra", "additionalProperties"}, {"/name", "type"}},
		},
		{
			name:   "a member name with a slash or a tilde is escaped in the pointer",
			schema: `{"properties": {"a/b": {"type": "string"}, "c~d": {"type": "string"}}, "required": ["x/y"]}`,
			answer: `{"a/b": 1, "c~d": 2}`,
			want:   []issueAt{{"/a~1b", "type"}, {"/c~0d", "type"}, {"/x~1y", "required"}},
		},
		{
			name:   "a disallowed member with a slash is escaped in the pointer",
			schema: `{"additionalProperties": false}`,
			answer: `{"~/": 1}`,
			want:   []issueAt{{"/~0~1", "additionalProperties"}},
		},
		{
			name:   "a member name with a dot keeps it",
			schema: `{"properties": {"a.b": {"properties": {"c": {"type": "string"}}}}}`,
			answer: `{"a.b": {"c": 1}}`,
			want:   []issueAt{{"/a.b/c", "type"}},
		},
		{
			name: "an issue inside an array element has the element's index",
			schema: `{"properties": {"items": {"type": "array", "items": {"type": "object", "required": ["sku"],
				"properties": {"qty": {"type": "integer", "minimum": 1}, "sku": {"type": "string"}}}}}}`,
			answer: `{"items": [{"sku": "a", "qty": 0}, {"sku": "b", "qty": 2}, {"qty": 1.5}]}`,
			want:   []issueAt{{"/items/0/qty", "minimum"}, {"/items/2/qty", "type"}, {"/items/2/sku", "required"}},
		},
		{
			name:   "a wrong root type is reported at the root",
			schema: `{"type": "object"}`,
			answer: `[1]`,
			want:   []issueAt{{"", "type"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce := checkError(t, mustCompile(t, tt.schema).Check(tt.answer))
			if got, want := ce.Stage, enforce.StageSchemaValidate; got != want {
				t.Fatalf("Stage = %q, want %q", got, want)
			}
			if got := issuesAt(ce); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("issues = %v, want %v", got, tt.want)
			}
			if got, want := ce.Path(), tt.want[0].Path; got != want {
				t.Errorf("Path() = %q, want the first issue's %q", got, want)
			}
		})
	}
}

func TestCompileSchemaRefuses(t *testing.T) {
	const d2020 = `"$schema": "https://json-schema.org/draft/2020-12/schema", `
	const d2019 = `"$schema": "https://json-schema.org/draft/2019-09/schema", `
	tests := []struct {
		name         string
		schema       string
		wantKeyword  string
		wantLocation string
	}{
		{"unevaluatedProperties beside allOf is refused", `{` + d2020 + `"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": false}`, "unevaluatedProperties", ""},
		{"unevaluatedItems beside anyOf is refused", `{` + d2020 + `"items": {"anyOf": [{"prefixItems": [{}]}], "unevaluatedItems": false}}`, "unevaluatedItems", "/items"},
		{"$dynamicRef is refused", `{` + d2020 + `"$dynamicRef": "#meta"}`, "$dynamicRef", ""},
		{"$dynamicAnchor is refused", `{` + d2020 + `"$defs": {"m": {"$dynamicAnchor": "meta"}}}`, "$dynamicAnchor", "/$defs/m"},
		{"$recursiveRef is refused", `{` + d2019 + `"$recursiveRef": "#"}`, "$recursiveRef", ""},
		{"minContains is refused", `{` + d2020 + `"contains": {}, "minContains": 2}`, "minContains", ""},
		{"maxContains is refused", `{` + d2019 + `"properties": {"a/b": {"contains": {}, "maxContains": 2}}}`, "maxContains", "/properties/a~1b"},
		{"a $ref to the root that consumes no input is refused", `{"$ref": "#"}`, "$ref", ""},
		{"a $ref to itself is refused", `{"definitions": {"a": {"$ref": "#/definitions/a"}}}`, "$ref", "/definitions/a"},
		{"a $ref to a missing target is refused", `{"properties": {"a": {"$ref": "#/definitions/missing"}}}`, "$ref", "/properties/a"},
		{"a $ref to a missing $defs target is refused", `{` + d2020 + `"$ref": "#/$defs/missing"}`, "$ref", ""},
		{"a remote $ref is refused", `{"properties": {"a": {"$ref": "http://example.com/schema.json"}}}`, "$ref", "/properties/a"},
		{"a relative file $ref is refused", `{"$ref": "other.json#/definitions/a"}`, "$ref", ""},
		{"a $ref to an anchor no subschema defines is refused", `{"properties": {"a": {"$ref": "#foo"}}}`, "$ref", "/properties/a"},
		{"a $ref into an enum's values is refused", `{"enum": [{"type": "string"}], "properties": {"a": {"$ref": "#/enum/0"}}}`, "$ref", "/properties/a"},
		{"a $ref to a subschema's $id outside the document is refused", `{"$id": "http://example.com/root.json", "properties": {"a": {"$ref": "other.json"}}}`, "$ref", "/properties/a"},
		{"a non-string $ref is refused", `{"$ref": 1}`, "$ref", ""},
		{"2020-12 items as an array is refused", `{` + d2020 + `"items": [{}]}`, "items", ""},
		// Counts are checked by what they bound (items, length,
		// properties), max before min: the first bad one is named.
		{"of two bad counts, the items bound is named", `{"maxLength": -1, "minItems": -1}`, "minItems", ""},
		{"of two bad counts, the length bound is named", `{"maxProperties": -1, "minLength": 1.5}`, "minLength", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := enforce.CompileSchema([]byte(tt.schema))
			var se *enforce.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("CompileSchema = (%v, %v), want a *enforce.SchemaError", s, err)
			}
			if got, want := se.Keyword, tt.wantKeyword; got != want {
				t.Errorf("Keyword = %q, want %q", got, want)
			}
			if got, want := se.Location, tt.wantLocation; got != want {
				t.Errorf("Location = %q, want %q", got, want)
			}
			if se.Reason == "" {
				t.Errorf("Reason is empty")
			}
		})
	}
}

// A loop through allOf is refused at one of the $refs on the loop, in
// either order of discovery.
func TestCompileSchemaRefusesATwoStepLoop(t *testing.T) {
	for _, schema := range []string{
		`{"definitions": {"a": {"allOf": [{"$ref": "#/definitions/b"}]}, "b": {"$ref": "#/definitions/a"}}, "$ref": "#/definitions/a"}`,
		`{"$defs": {"a": {"allOf": [{"type": "object"}, {"$ref": "#/$defs/b"}]}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "properties": {"x": {"$ref": "#/$defs/b"}}}`,
	} {
		t.Run("a loop through allOf is refused: "+schema, func(t *testing.T) {
			_, err := enforce.CompileSchema([]byte(schema))
			var se *enforce.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("CompileSchema error = %v, want a *enforce.SchemaError", err)
			}
			if got, want := se.Keyword, "$ref"; got != want {
				t.Errorf("Keyword = %q, want %q", got, want)
			}
			onLoop := map[string]bool{
				"/definitions/a/allOf/0": true, "/definitions/b": true,
				"/$defs/a/allOf/1": true, "/$defs/b/allOf/0": true,
			}
			if !onLoop[se.Location] {
				t.Errorf("Location = %q, want a $ref on the loop", se.Location)
			}
		})
	}
}

func TestRecursiveSchemaThatConsumesInput(t *testing.T) {
	s := mustCompile(t, `{"type": "object", "required": ["name"], "additionalProperties": false,
		"properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}}`)
	tests := []struct {
		name   string
		answer string
		want   []issueAt // nil: passes
	}{
		{"a tree three deep passes", `{"name": "a", "children": [{"name": "b", "children": [{"name": "c", "children": []}]}, {"name": "d"}]}`, nil},
		{"a bad leaf three deep fails at its pointer", `{"name": "a", "children": [{"name": "b", "children": [{"name": 3, "extra": 1}]}]}`,
			[]issueAt{{"/children/0/children/0/extra", "additionalProperties"}, {"/children/0/children/0/name", "type"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Check(tt.answer)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if got := issuesAt(checkError(t, err)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("issues = %v, want %v", got, tt.want)
			}
		})
	}
}

// verdicts runs each answer through s and compares pass/fail.
func TestCheckVerdicts(t *testing.T) {
	const d2020 = `"$schema": "https://json-schema.org/draft/2020-12/schema", `
	const d7 = `"$schema": "http://json-schema.org/draft-07/schema#", `
	tests := []struct {
		name   string
		schema string
		answer string
		pass   bool
	}{
		{"without $schema format is asserted (draft-07)", `{"format": "email"}`, `"not-an-email"`, false},
		{"without $schema a valid email passes", `{"format": "email"}`, `"a@example.com"`, true},
		{"under draft-07 format is asserted", `{` + d7 + `"format": "date-time"}`, `"yesterday"`, false},
		{"under 2020-12 format is not asserted", `{` + d2020 + `"format": "email"}`, `"not-an-email"`, true},
		{"under 2020-12 a $ref applies beside its siblings: the sibling fails", `{` + d2020 + `"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 3}`, `"abcd"`, false},
		{"under 2020-12 a $ref applies beside its siblings: the target fails", `{` + d2020 + `"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 3}`, `12`, false},
		{"under 2020-12 a $ref applies beside its siblings: both hold", `{` + d2020 + `"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 3}`, `"ab"`, true},
		{"under draft-07 a $ref replaces its siblings", `{"definitions": {"s": {"type": "string"}}, "$ref": "#/definitions/s", "maxLength": 3}`, `"abcd"`, true},
		{"format on a number passes", `{"format": "email"}`, `12`, true},
		{"format on an object passes", `{"format": "date-time"}`, `{}`, true},
		{"an unknown format passes", `{"format": "shoe-size"}`, `"44"`, true},
		{"maxItems 2.0 admits two", `{"maxItems": 2.0}`, `[1, 2]`, true},
		{"maxItems 2.0 refuses three", `{"maxItems": 2.0}`, `[1, 2, 3]`, false},
		{"minLength 1e1 refuses nine", `{"minLength": 1e1}`, `"123456789"`, false},
		{"enum 1 admits 1.0", `{"enum": [1]}`, `1.0`, true},
		{"enum 1.0 admits 1", `{"enum": [1.0]}`, `1`, true},
		{"enum 1 admits 1e0", `{"enum": [1, "a"]}`, `1e0`, true},
		{"enum 1 refuses 1.5", `{"enum": [1]}`, `1.5`, false},
		{"const 0 admits -0", `{"const": 0}`, `-0`, true},
		{"const in an object compares numbers by value", `{"const": {"a": [1]}}`, `{"a": [1.00]}`, true},
		{"an empty enum admits nothing", `{"enum": []}`, `1`, false},
		{"uniqueItems refuses 1 and 1.0", `{"uniqueItems": true}`, `[1, 1.0]`, false},
		{"integer admits 1.0", `{"type": "integer"}`, `1.0`, true},
		{"integer refuses 1.5", `{"type": "integer"}`, `1.5`, false},
		{"multipleOf 0.1 admits 0.3", `{"multipleOf": 0.1}`, `0.3`, true},
		{"a large integer is compared exactly", `{"maximum": 9007199254740992}`, `9007199254740993`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mustCompile(t, tt.schema).Check(tt.answer)
			if got := err == nil; got != tt.pass {
				t.Errorf("Check(%s) = %v, want pass = %v", tt.answer, err, tt.pass)
			}
		})
	}
}

func TestSchemaJSONReturnsTheSchemaAsGiven(t *testing.T) {
	in := []byte(`{"type": "string"}`)
	s := mustCompile(t, string(in))
	got := s.JSON()
	if want := string(in); string(got) != want {
		t.Errorf("JSON() = %s, want %s", got, want)
	}
	got[0] = 'X'
	if s.JSON()[0] != '{' {
		t.Errorf("JSON() returned the schema's own bytes; changing them changed the schema")
	}
}

type event struct {
	Name string    `json:"name"`
	At   time.Time `json:"at"`
	Note string    `json:"note,omitempty"`
}

type node struct {
	Name     string `json:"name"`
	Children []node `json:"children"`
}

func TestSchemaFor(t *testing.T) {
	evt, err := enforce.SchemaFor[event]()
	if err != nil {
		t.Fatal(err)
	}
	tree, err := enforce.SchemaFor[node]()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		s      *enforce.Schema
		answer string
		want   []issueAt // nil: passes
	}{
		{"an RFC 3339 time passes and an omitempty field may be missing", evt, `{"name": "launch", "at": "2024-05-01T10:00:00Z"}`, nil},
		{"an omitempty field may be present", evt, `{"name": "launch", "at": "2024-05-01T10:00:00+02:00", "note": "ok"}`, nil},
		{"a time that is not RFC 3339 fails at its pointer", evt, `{"name": "launch", "at": "yesterday"}`, []issueAt{{"/at", "format"}}},
		{"a field without omitempty is required", evt, `{"at": "2024-05-01T10:00:00Z"}`, []issueAt{{"/name", "required"}}},
		{"an extra member fails at its own pointer", evt, `{"name": "a", "at": "2024-05-01T10:00:00Z", "extra": 1}`, []issueAt{{"/extra", "additionalProperties"}}},
		{"a recursive type validates a tree", tree, `{"name": "a", "children": [{"name": "b", "children": [{"name": "c", "children": []}]}]}`, nil},
		{"a recursive type fails deep in a tree", tree, `{"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}`, []issueAt{{"/children/0/children/0/children", "required"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Check(tt.answer)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if got := issuesAt(checkError(t, err)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("issues = %v, want %v", got, tt.want)
			}
		})
	}
}

// raceProbe is used only by the concurrency test, so its first SchemaFor
// call happens there, from many goroutines at once.
type raceProbe struct {
	ID    int      `json:"id"`
	Tags  []string `json:"tags"`
	Inner struct {
		OK bool `json:"ok"`
	} `json:"inner"`
}

func TestSchemaForFromManyGoroutinesReturnsOneSchema(t *testing.T) {
	const n = 64
	got := make([]*enforce.Schema, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			got[i], errs[i] = enforce.SchemaFor[raceProbe]()
		}()
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("goroutine %d: %v", i, errs[i])
		}
		if got[i] != got[0] {
			t.Fatalf("goroutine %d got schema %p, goroutine 0 got %p", i, got[i], got[0])
		}
	}
	again, _ := enforce.SchemaFor[raceProbe]()
	if again != got[0] {
		t.Errorf("a later call returned %p, want the cached %p", again, got[0])
	}
}

func TestSchemaForCachedDoesNotAllocate(t *testing.T) {
	if _, err := enforce.SchemaFor[event](); err != nil {
		t.Fatal(err)
	}
	if got := testing.AllocsPerRun(100, func() { _, _ = enforce.SchemaFor[event]() }); got != 0 {
		t.Errorf("a cached SchemaFor allocates %v times, want 0", got)
	}
}

func TestSchemaForAnUnreflectableTypeIsASchemaError(t *testing.T) {
	s, err := enforce.SchemaFor[chan int]()
	var se *enforce.SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("SchemaFor[chan int] = (%v, %v), want a *enforce.SchemaError", s, err)
	}
	if s != nil {
		t.Errorf("SchemaFor returned a schema beside its error")
	}
}

type decodeContract struct {
	Items []struct {
		Qty int `json:"qty"`
	} `json:"items"`
	Level uint8 `json:"level"`
}

func TestSchemaForChecksThatTheAnswerFitsTheGoType(t *testing.T) {
	s, err := enforce.SchemaFor[decodeContract]()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answer, wantPath string
	}{
		{"an integer written 2.0 does not fit an int", `{"items":[{"qty":1},{"qty":2.0}],"level":1}`, "/items/1/qty"},
		{"300 does not fit a uint8", `{"items":[],"level":300}`, "/level"},
		{"-1 does not fit a uint8", `{"items":[],"level":-1}`, "/level"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ce *enforce.CheckError
			if !errors.As(s.Check(tt.answer), &ce) {
				t.Fatalf("Check(%s) passed, want a schema-validate failure", tt.answer)
			}
			if ce.Stage != enforce.StageSchemaValidate || ce.Path() != tt.wantPath {
				t.Errorf("stage %s, path %q; want schema-validate at %q (%v)", ce.Stage, ce.Path(), tt.wantPath, ce)
			}
		})
	}
	if err := s.Check(`{"items":[{"qty":2}],"level":255}`); err != nil {
		t.Errorf("a fitting answer failed: %v", err)
	}
}

// 2020-12 keywords with an exact draft-07 equivalent are translated, and
// judged like the keywords they stand for.
func TestTranslated2020Keywords(t *testing.T) {
	const dialect = `"$schema": "https://json-schema.org/draft/2020-12/schema", `
	tests := []struct {
		name, schema string
		valid        []string
		invalid      map[string]string // answer → a path among its issues ("" for any)
	}{
		{
			name:   "prefixItems with items checks a tuple and what follows",
			schema: `{` + dialect + `"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "boolean"}}`,
			valid:  []string{`[]`, `["a"]`, `["a", 1]`, `["a", 1, true, false]`},
			invalid: map[string]string{
				`[1]`:            "/0",
				`["a", "b"]`:     "/1",
				`["a", 1, "no"]`: "/2",
			},
		},
		{
			name:   "prefixItems with items false is a closed tuple",
			schema: `{` + dialect + `"prefixItems": [{"type": "string"}], "items": false}`,
			valid:  []string{`["a"]`},
			invalid: map[string]string{
				`["a", 1]`: "",
			},
		},
		{
			name:   "dependentRequired names the members a member needs",
			schema: `{` + dialect + `"dependentRequired": {"card": ["cvv"]}}`,
			valid:  []string{`{}`, `{"cvv": 1}`, `{"card": 1, "cvv": 2}`},
			invalid: map[string]string{
				`{"card": 1}`: "",
			},
		},
		{
			name:   "dependentSchemas and dependentRequired on one member both apply",
			schema: `{` + dialect + `"dependentRequired": {"card": ["cvv"]}, "dependentSchemas": {"card": {"properties": {"cvv": {"type": "integer"}}}}}`,
			valid:  []string{`{"card": 1, "cvv": 123}`},
			invalid: map[string]string{
				`{"card": 1}`:             "",
				`{"card": 1, "cvv": "x"}`: "/cvv",
			},
		},
		{
			name:   "a $ref into prefixItems follows the translation",
			schema: `{` + dialect + `"prefixItems": [{"type": "integer"}, {"$ref": "#/prefixItems/0"}]}`,
			valid:  []string{`[1, 2]`},
			invalid: map[string]string{
				`[1, "x"]`: "/1",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			for _, a := range tt.valid {
				if err := s.Check(a); err != nil {
					t.Errorf("Check(%s) = %v, want valid", a, err)
				}
			}
			for a, path := range tt.invalid {
				var ce *enforce.CheckError
				if !errors.As(s.Check(a), &ce) {
					t.Errorf("Check(%s) passed, want invalid", a)
					continue
				}
				found := path == ""
				for _, is := range ce.Issues {
					found = found || is.Path == path
				}
				if !found {
					t.Errorf("Check(%s) issues = %+v, want one at %q", a, ce.Issues, path)
				}
			}
		})
	}
}

// A keyword the schema's dialect does not define is ignored, as the
// specification says, and Ignored names it.
func TestKeywordsTheDialectDoesNotDefineAreIgnoredAndListed(t *testing.T) {
	tests := []struct {
		name, schema, answer string
		want                 []enforce.IgnoredKeyword
	}{
		{"prefixItems in draft-07", `{"prefixItems": [{"type": "string"}]}`, `[1]`,
			[]enforce.IgnoredKeyword{{Keyword: "prefixItems", Location: "", Dialect: "draft-07"}}},
		{"dependentRequired in draft-07", `{"properties": {"a": {"dependentRequired": {"b": ["c"]}}}}`, `{"a": {"b": 1}}`,
			[]enforce.IgnoredKeyword{{Keyword: "dependentRequired", Location: "/properties/a", Dialect: "draft-07"}}},
		{"if in draft-06", `{"$schema": "http://json-schema.org/draft-06/schema#", "if": {"type": "string"}, "then": false}`, `"s"`,
			[]enforce.IgnoredKeyword{{Keyword: "if", Dialect: "draft-06"}, {Keyword: "then", Dialect: "draft-06"}}},
		{"const in draft-04", `{"$schema": "http://json-schema.org/draft-04/schema#", "const": 1}`, `2`,
			[]enforce.IgnoredKeyword{{Keyword: "const", Dialect: "draft-04"}}},
		{"unevaluatedProperties in draft-07", `{"unevaluatedProperties": false}`, `{"a": 1}`,
			[]enforce.IgnoredKeyword{{Keyword: "unevaluatedProperties", Dialect: "draft-07"}}},
		{"format in 2020-12, an annotation", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "format": "email"}`, `"not an email"`,
			[]enforce.IgnoredKeyword{{Keyword: "format", Dialect: "2020-12"}}},
		{"additionalItems in 2020-12", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "additionalItems": false}`, `[1]`,
			[]enforce.IgnoredKeyword{{Keyword: "additionalItems", Dialect: "2020-12"}}},
		{"nothing in a schema of its own dialect", `{"type": "object", "title": "t", "x-extension": 1}`, `{}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			if got, want := s.Ignored(), tt.want; !reflect.DeepEqual(got, want) {
				t.Errorf("Ignored() = %+v, want %+v", got, want)
			}
			if err := s.Check(tt.answer); err != nil {
				t.Errorf("Check(%s) = %v, want nil: the keyword is ignored", tt.answer, err)
			}
		})
	}
}

// gojsonschema compares enum, const and uniqueItems values as float64s
// and panics on a number too large for one; Check says what is wrong
// with the answer and where, as for any other issue.
func TestANumberTooLargeForAFloat64IsAnIssueWhereEnumConstOrUniqueItemsCompareIt(t *testing.T) {
	for _, tc := range []struct{ schema, answer, path string }{
		{`{"uniqueItems": true}`, `[1e400, 2e400]`, "/0"},
		{`{"uniqueItems": true}`, `[1, -1e400]`, "/1"},
		{`{"type": "object", "properties": {"b": {"uniqueItems": true}}}`, `{"a": 1, "b": [1, [2, 1e400]]}`, "/b/1/1"},
		{`{"enum": [1, 2]}`, `1e400`, ""},
		{`{"const": {"x": 1}}`, `{"x": 1e999}`, "/x"},
	} {
		err := mustCompile(t, tc.schema).Check(tc.answer)
		var ce *enforce.CheckError
		if !errors.As(err, &ce) {
			t.Fatalf("%s on %s: Check = %v, want a *CheckError", tc.schema, tc.answer, err)
		}
		if len(ce.Issues) != 1 {
			t.Fatalf("%s on %s: issues = %+v, want one", tc.schema, tc.answer, ce.Issues)
		}
		if got := ce.Issues[0]; ce.Stage != enforce.StageSchemaValidate || got.Path != tc.path || got.Keyword != "type" || !strings.Contains(got.Message, "too large for a float64") {
			t.Errorf("%s on %s: %s %+v, want schema-validate, the number at %q named too large for a float64", tc.schema, tc.answer, ce.Stage, got, tc.path)
		}
	}
	// The same answers within range are judged as usual.
	if err := mustCompile(t, `{"uniqueItems": true}`).Check(`[1e300, 2e300]`); err != nil {
		t.Errorf("Check([1e300, 2e300]) = %v, want nil", err)
	}
}

func TestJudgeFailsAnAnswerWithANumberTooLargeForAFloat64WithoutAValidatorError(t *testing.T) {
	s := withValidators(t, mustCompile(t, `{"uniqueItems": true}`), enforce.NewValidator("never", func(context.Context, any, enforce.Try) ([]enforce.Issue, error) {
		t.Error("the validator ran on an answer that fails the schema")
		return nil, nil
	}))
	err := s.Judge(t.Context(), enforce.Answer{Given: `[1e400, 2e400]`})
	var oe *enforce.OutputError
	var ve *enforce.ValidatorError
	if !errors.As(err, &oe) || errors.As(err, &ve) || oe.Stage != enforce.StageSchemaValidate || oe.Path != "/0" {
		t.Errorf("Judge = %v, want an *OutputError at schema-validate naming the number at /0", err)
	}
}
