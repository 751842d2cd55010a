package enforce_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// An Incremental judges the answer as it arrives and fails it at the first
// byte no completion can get past, with the verdict Check gives.
func ExampleSchema_Stream() {
	s, err := enforce.CompileSchema([]byte(`{
		"type": "object",
		"required": ["city", "tempC"],
		"additionalProperties": false,
		"properties": {
			"city": {"type": "string"},
			"tempC": {"type": "number"}
		}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, chunks := range [][]string{
		{`{"city": "Os`, `lo", "tem`, `pC": 4.5}`},
		{`Sure! Here `, `is the JSON: {"city": "Oslo"}`},
		{`{"city": "Oslo", "wind`, `": 3, "tempC": 4.5}`},
	} {
		st := s.Stream()
		read := 0
		var verdict error
		for _, c := range chunks {
			n, err := st.WriteString(c)
			read += n
			if err != nil {
				verdict = err // stop reading: no completion can pass
				break
			}
		}
		if verdict == nil {
			verdict = st.Close()
		}
		fmt.Printf("read %d bytes: %v\n", read, verdict)
	}
	// Output:
	// read 30 bytes: <nil>
	// read 1 bytes: json-parse: line 1, column 1: unexpected character 'S': expected a value
	// read 23 bytes: schema-validate: /wind: Additional property wind is not allowed
}

const streamSchema = `{
	"type": "object",
	"required": ["a", "b"],
	"additionalProperties": false,
	"properties": {
		"a": {"type": "string", "enum": ["x", "y"]},
		"b": {"type": "integer", "minimum": 0},
		"c": {"type": "array", "maxItems": 2, "items": {"type": "boolean"}},
		"d": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"e": {"type": "string"}}}]},
		"f": {"type": "object", "properties": {"g": {"type": "string", "maxLength": 3}}}
	}
}`

// feedAll writes answer in chunks of size and returns the bytes read and
// the early verdict, or Close's.
func feedAll(st *enforce.Incremental, answer string, size int) (read int, early bool, err error) {
	for i := 0; i < len(answer); i += size {
		n, err := st.WriteString(answer[i:min(i+size, len(answer))])
		read += n
		if err != nil {
			return read, true, err
		}
	}
	return read, false, st.Close()
}

func TestStreamDecidesAtTheDoomingByte(t *testing.T) {
	s := mustCompile(t, streamSchema)
	tests := []struct {
		name    string
		answer  string
		through string // the verdict lands on the last byte of this prefix; "" for none before Close
	}{
		{"a preamble fails at its first byte", `Here: {"a": "x", "b": 1}`, `H`},
		{"a preamble of a multi-byte character fails once the character is whole", `«{"a": "x", "b": 1}»`, `«`},
		{"trailing text fails at its first byte", `{"a": "x", "b": 1}` + "\n\nDone.", `{"a": "x", "b": 1}` + "\n\nD"},
		{"whitespace after the value is fine", "{\"a\": \"x\", \"b\": 1} \n\t", ``},
		{"an unfinished literal waits", `{"a": "x", "b": 1, "c": [tru`, ``},
		{"a number may still grow", `{"a": "x", "b": 1`, ``},
		{"a number ends at the byte after it", `{"a": "x", "b": -1, "c": []}`, `{"a": "x", "b": -1,`},
		{"a number bound waits for the number's end", `{"b": 2.5`, ``},
		{"a string outside its enum fails when it closes", `{"a": "z", "b": 1}`, `{"a": "z"`},
		{"a wrong type fails at the value's first byte", `{"a": ["x"], "b": 1}`, `{"a": [`},
		{"a member additionalProperties refuses fails when its name closes", `{"a": "x", "zz": 1}`, `{"a": "x", "zz"`},
		{"an array past maxItems fails at the first byte of the item too many", `{"c": [true, false, true]}`, `{"c": [true, false, t`},
		{"an item of the wrong type fails", `{"c": [true, 0]}`, `{"c": [true, 0]`},
		{"a nested string too long fails when it closes", `{"f": {"g": "abcd"}}`, `{"f": {"g": "abcd"`},
		{"below anyOf nothing fails before the anyOf's value closes", `{"d": {"e": 1}, "a": "x", "b": 1}`, `{"d": {"e": 1}`},
		{"a missing required member fails when its object closes", `{"a": "x"}`, `{"a": "x"}`},
		{"a duplicate member fails when its name closes", `{"a": "x", "a"`, `{"a": "x", "a"`},
		{"invalid UTF-8 in a string fails at the byte that makes it invalid", "{\"a\": \"\xe2\x82x\"}", "{\"a\": \"\xe2\x82x"},
		{"nesting past MaxDepth fails at the bracket", `{"d": ` + strings.Repeat("[", enforce.MaxDepth), `{"d": ` + strings.Repeat("[", enforce.MaxDepth)},
		{"an exponent past its bound fails at the digit", `{"b": 1e10000}`, `{"b": 1e10000`},
		{"a number past its length bound fails when it ends", `{"b": ` + strings.Repeat("1", 1200) + `}`, `{"b": ` + strings.Repeat("1", 1200) + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, size := range []int{1, 3, 16, len(tt.answer)} {
				read, early, err := feedAll(s.Stream(), tt.answer, size)
				if tt.through == "" {
					if early {
						t.Fatalf("chunks of %d: early verdict after %d bytes (%q): %v", size, read, tt.answer[:read], err)
					}
					if got, want := err, s.Check(tt.answer); !sameIssues(got, want) {
						t.Fatalf("chunks of %d: Close = %v, Check = %v", size, got, want)
					}
					continue
				}
				if !early || read != len(tt.through) {
					t.Fatalf("chunks of %d: verdict %v (early %t) after %d bytes (%q), want an early one after %q", size, err, early, read, tt.answer[:read], tt.through)
				}
				holdsEarly(t, s, err, tt.answer)
			}
		})
	}
}

// holdsEarly asserts the promise of an early verdict on one completion:
// the same error at json-parse, an issue among Check's at
// schema-validate.
func holdsEarly(t *testing.T, s *enforce.Schema, early error, completion string) {
	t.Helper()
	got := checkError(t, early)
	want := checkError(t, s.Check(completion))
	if got.Stage == enforce.StageJSONParse {
		if !sameIssues(got, want) {
			t.Fatalf("early %v, Check(%q) = %v", got, completion, want)
		}
		return
	}
	if len(got.Issues) != 1 {
		t.Fatalf("early verdict has %d issues, want 1", len(got.Issues))
	}
	for _, is := range want.Issues {
		if is == got.Issues[0] {
			return
		}
	}
	t.Fatalf("early issue %+v is not among Check's %+v", got.Issues[0], want.Issues)
}

func sameIssues(a, b error) bool {
	var x, y *enforce.CheckError
	if !errors.As(a, &x) || !errors.As(b, &y) {
		return a == nil && b == nil
	}
	if x.Stage != y.Stage || len(x.Issues) != len(y.Issues) {
		return false
	}
	for i := range x.Issues {
		if x.Issues[i] != y.Issues[i] {
			return false
		}
	}
	return true
}

// The early issue is among the whole answer's, not always its first:
// Check sorts issues by path, and a member missing from earlier sorts
// first.
func TestStreamEarlyIssueNeedNotBeCheckFirst(t *testing.T) {
	s := mustCompile(t, streamSchema)
	answer := `{"b": -1}`
	_, early, err := feedAll(s.Stream(), answer, 4)
	if !early {
		t.Fatalf("no early verdict: %v", err)
	}
	got := checkError(t, err).Issues[0]
	whole := checkError(t, s.Check(answer))
	if got.Path != "/b" || got.Keyword != "minimum" {
		t.Fatalf("early issue %+v, want /b minimum", got)
	}
	if whole.Issues[0].Path != "/a" || whole.Issues[1] != got {
		t.Fatalf("Check's issues %+v, want /a required first and then the early one", whole.Issues)
	}
}

func TestStreamHoldsToTheAnswerSizeBound(t *testing.T) {
	s := anything(t).WithMaxAnswerBytes(10)
	answer := `["abcdefgh", 1]`
	read, early, err := feedAll(s.Stream(), answer, 4)
	if !early || read != 11 || s.MaxAnswerBytes() != 10 {
		t.Fatalf("verdict %v (early %t) after %d bytes, want an early one after 11, the byte past MaxAnswerBytes (%d)", err, early, read, s.MaxAnswerBytes())
	}
	if got := anything(t).MaxAnswerBytes(); got != enforce.MaxAnswerBytes {
		t.Errorf("MaxAnswerBytes() = %d without a limit of its own, want %d", got, enforce.MaxAnswerBytes)
	}
	holdsEarly(t, s, err, answer)
}

func TestStreamWaitsForAByteSplitAcrossChunks(t *testing.T) {
	s := mustCompile(t, streamSchema)
	answer := `{"a": "x", "b": 1, "f": {"g": "é€"}}`
	for cut := range len(answer) {
		st := s.Stream()
		if _, err := st.WriteString(answer[:cut]); err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if _, err := st.WriteString(answer[cut:]); err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if err := st.Close(); err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
}

func TestStreamAfterAVerdict(t *testing.T) {
	s := mustCompile(t, streamSchema)
	st := s.Stream()
	n, err := st.Write([]byte(`{"zz"`))
	if err == nil || n != 5 {
		t.Fatalf("Write = %d, %v; want 5 and a verdict", n, err)
	}
	if n2, err2 := st.WriteString(`: 1}`); n2 != 0 || err2 != err {
		t.Errorf("a write after the verdict = %d, %v; want 0 and the same verdict", n2, err2)
	}
	if got := st.Close(); got != err {
		t.Errorf("Close after the verdict = %v, want %v", got, err)
	}
	if got := st.Close(); got != err {
		t.Errorf("Close again = %v, want %v", got, err)
	}
	if n, err := st.WriteString(`x`); n != 0 || err == nil {
		t.Errorf("a write after Close = %d, %v; want 0 and an error", n, err)
	}
}

// Contracts reflected from Go types reach their members through $ref:
// the Incremental follows it.
func TestStreamJudgesReflectedContractsEarly(t *testing.T) {
	s, err := enforce.SchemaFor[Forecast]()
	if err != nil {
		t.Fatal(err)
	}
	answer := `{"city": "Oslo", "humidity": 3, "tempC": 4}`
	read, early, err := feedAll(s.Stream(), answer, 8)
	if !early || read != len(`{"city": "Oslo", "humidity"`) {
		t.Fatalf("verdict %v (early %t) after %d bytes, want one when the unknown member's name closes", err, early, read)
	}
	holdsEarly(t, s, err, answer)
}

// A value the Incremental suspects but gojsonschema passes (1.0 is an
// integer) costs one bounded ask, not one as long as the array: 50,000
// of them stream in linear time.
func TestStreamBoundsItsAsks(t *testing.T) {
	s := mustCompile(t, `{"type": "array", "items": {"type": "integer"}}`)
	answer := "[" + strings.Repeat("1.0, ", 50_000) + "1]"
	read, early, err := feedAll(s.Stream(), answer, 512)
	if early || err != nil || read != len(answer) {
		t.Fatalf("verdict %v (early %t) after %d of %d bytes, want a pass", err, early, read, len(answer))
	}
}

// Values decide at their close what only a whole value can: the keywords
// of containers, combinators, a member name beside patterns, a duplicate
// item. Each verdict lands at the byte named and is among Check's issues.
func TestValuesDecideAtTheirClose(t *testing.T) {
	tests := []struct {
		name, schema, answer, through, keyword string
	}{
		{"required, when the object closes", `{"type": "object", "properties": {"o": {"type": "object", "required": ["k"]}}}`,
			`{"o": {"x": 1}, "tail": "` + strings.Repeat("t", 500) + `"}`, `{"o": {"x": 1}`, "required"},
		{"minProperties, when the object closes", `{"properties": {"o": {"minProperties": 2}}}`,
			`{"o": {"x": 1}, "tail": 0}`, `{"o": {"x": 1}`, "minProperties"},
		{"minItems, when the array closes", `{"properties": {"a": {"type": "array", "minItems": 2}}}`,
			`{"a": [1], "tail": 0}`, `{"a": [1]`, "minItems"},
		{"contains, when the array closes", `{"properties": {"a": {"contains": {"const": 7}}}}`,
			`{"a": [1, 2], "tail": 0}`, `{"a": [1, 2]`, "contains"},
		{"anyOf, when every branch fails the closed value", `{"properties": {"v": {"anyOf": [{"type": "string"}, {"minimum": 10}]}}}`,
			`{"v": 3, "tail": 0}`, `{"v": 3,`, "minimum"}, // the closest branch's issue, which Check reports beside anyOf's
		{"oneOf, when two branches pass the closed value", `{"properties": {"v": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}}}`,
			`{"v": 3, "tail": 0}`, `{"v": 3,`, "oneOf"},
		{"not, when the closed value passes its schema", `{"properties": {"v": {"not": {"type": "string"}}}}`,
			`{"v": "s", "tail": 0}`, `{"v": "s"`, "not"},
		{"if/then, when the closed value takes the branch and fails it", `{"properties": {"v": {"if": {"type": "integer"}, "then": {"minimum": 5}}}}`,
			`{"v": 1, "tail": 0}`, `{"v": 1,`, "minimum"},
		{"dependencies, when the object closes", `{"properties": {"o": {"dependencies": {"a": ["b"]}}}}`,
			`{"o": {"a": 1}, "tail": 0}`, `{"o": {"a": 1}`, "dependencies"},
		{"a member no pattern lists, when its name closes", `{"properties": {"o": {"patternProperties": {"^x": {}}, "additionalProperties": false}}}`,
			`{"o": {"x1": 1, "y": 2}}`, `{"o": {"x1": 1, "y"`, "additionalProperties"},
		{"uniqueItems, at the duplicate's close", `{"properties": {"a": {"type": "array", "uniqueItems": true}}}`,
			`{"a": [1, 2, 1, 3, 4], "tail": 0}`, `{"a": [1, 2, 1,`, "uniqueItems"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			st := s.Stream()
			read := 0
			var err error
			for i := 0; i < len(tt.answer) && err == nil; i++ {
				var n int
				n, err = st.WriteString(tt.answer[i : i+1])
				read += n
			}
			var ce, whole *enforce.CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("no early verdict; want one after %q", tt.through)
			}
			if read != len(tt.through) || ce.Issues[0].Keyword != tt.keyword {
				t.Errorf("verdict %+v after %q; want %s after %q", ce.Issues[0], tt.answer[:read], tt.keyword, tt.through)
			}
			if !errors.As(s.Check(tt.answer), &whole) || !slices.Contains(whole.Issues, ce.Issues[0]) {
				t.Errorf("early issue %+v is not among Check's %+v", ce.Issues[0], whole)
			}
		})
	}
}
