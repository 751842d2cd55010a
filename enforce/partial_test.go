package enforce_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// Partial shows the answer as it forms, and which of its members are
// final and keep the contract.
func ExampleIncremental_Partial() {
	s, err := enforce.CompileSchema([]byte(`{
		"type": "object",
		"required": ["city", "days"],
		"properties": {
			"city": {"type": "string"},
			"days": {"type": "array", "items": {"type": "object", "properties": {"tempC": {"type": "number"}}}}
		}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	st := s.Stream()
	for _, chunk := range []string{`{"city": "Os`, `lo", "days": [{"tem`, `pC": 4}, {"rain": tr`, `ue}`} {
		if _, err := st.WriteString(chunk); err != nil {
			fmt.Println(err)
			return
		}
		doc, settled := st.Partial()
		fmt.Printf("%s %q\n", doc, settled)
	}
	// Output:
	// {"city": "Os"} []
	// {"city": "Oslo", "days": [{}]} ["/city"]
	// {"city": "Oslo", "days": [{"tempC": 4}, {}]} ["/city" "/days/0/tempC" "/days/0"]
	// {"city": "Oslo", "days": [{"tempC": 4}, {"rain": true}]} ["/city" "/days/0/tempC" "/days/0" "/days/1/rain" "/days/1"]
}

// partialCases are answers, passing and failing, whose every prefix
// Partial must close into JSON, also after an early verdict.
var partialCases = []struct {
	schema, answer string
	settled        []string // Partial called once, after the whole answer was written: members of one object in name order
	never          []string // must not settle
}{
	{orderSchema, orderAnswer(), nil, nil},
	{streamSchema, `{"a": "x", "b": 1, "c": [true, false], "f": {"g": "\u00e9\""}, "d": {"e": 1}}`,
		[]string{"/a", "/b", "/c/0", "/c/1", "/c", "/f/g", "/f"}, []string{"/d", "/d/e"}},
	{streamSchema, `{"d": "\ud83d\ude00 ok", "a": "y", "b": 12e1}`, nil, nil},
	{`{"type": "array", "items": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "multipleOf": 0.5}}}}`,
		`[{"n": 1.0}, {"m": 2}, {"n": -0, "k": [1, {"x": "y"}]}]`,
		[]string{"/0/n", "/0", "/1/m"}, []string{"/1"}}, // /1 misses n: the answer fails when it closes
	{`{"type": "string", "maxLength": 3}`, `"ab\u00e9"`, nil, nil},
	// A tuple's items settle; a member a pattern matches, or an item below
	// oneOf, does not (more than its own subschema applies), though the
	// value that holds it does.
	{`{"type": "object", "properties": {
		"t": {"items": [{"type": "string"}], "additionalItems": false},
		"p": {"patternProperties": {"^x": {"type": "integer"}}, "properties": {"y": {"type": "string"}}},
		"o": {"oneOf": [{"type": "array"}], "items": {"type": "integer"}}}}`,
		`{"t": ["a"], "p": {"x1": 2, "y": "s"}, "o": [1]}`,
		[]string{"/o", "/p/y", "/p", "/t/0", "/t"}, []string{"/p/x1", "/o/0"}},
	{`{}`, ` [1, "x", null, true, false, -1.5e3, [], {}] `, nil, nil},
}

func TestPartialClosesEveryPrefix(t *testing.T) {
	for i, tc := range partialCases {
		s := mustCompile(t, tc.schema)
		for cut := 0; cut <= len(tc.answer); cut++ {
			st := s.Stream()
			if _, err := st.WriteString(tc.answer[:cut]); err != nil {
				var ce *enforce.CheckError
				if !errors.As(err, &ce) || s.Check(tc.answer) == nil {
					t.Fatalf("case %d: %q failed early: %v", i, tc.answer[:cut], err)
				}
			}
			doc, settled := st.Partial()
			if doc == nil {
				if strings.TrimSpace(tc.answer[:cut]) != "" && strings.ContainsAny(strings.TrimSpace(tc.answer[:cut])[:1], `{["`) {
					t.Fatalf("case %d: Partial after %q is nil", i, tc.answer[:cut])
				}
				continue
			}
			var v any
			if err := json.Unmarshal(doc, &v); err != nil {
				t.Fatalf("case %d: Partial after %q = %q: %v", i, tc.answer[:cut], doc, err)
			}
			if err := mustCompile(t, `{}`).Check(string(doc)); err != nil {
				t.Fatalf("case %d: Partial after %q = %q: %v", i, tc.answer[:cut], doc, err)
			}
			for _, p := range settled {
				if !strings.HasPrefix(tc.answer, tc.answer[:cut]) || !has(t, doc, p) {
					t.Fatalf("case %d: %q settled after %q but doc %q has no such value", i, p, tc.answer[:cut], doc)
				}
			}
		}
		st := s.Stream()
		if _, err := st.WriteString(tc.answer); err != nil && s.Check(tc.answer) == nil {
			t.Fatal(err)
		}
		_, settled := st.Partial()
		if tc.settled != nil && !slices.Equal(settled, tc.settled) {
			t.Errorf("case %d: settled %q, want %q", i, settled, tc.settled)
		}
		for _, p := range tc.never {
			if slices.Contains(settled, p) {
				t.Errorf("case %d: %q settled, but it fails its subschema", i, p)
			}
		}
	}
}

func has(t *testing.T, doc []byte, ptr string) bool {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return false
	}
	for _, seg := range strings.Split(ptr, "/")[1:] {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				return false
			}
		case []any:
			var i int
			if _, err := fmt.Sscan(seg, &i); err != nil || i >= len(x) {
				return false
			}
			v = x[i]
		default:
			return false
		}
	}
	return true
}

func TestPartialClosesOpenValues(t *testing.T) {
	s := mustCompile(t, streamSchema)
	for _, tt := range []struct{ read, doc string }{
		{``, ``},
		{`  `, ``},
		{`{`, `{}`},
		{`{"a`, `{}`},
		{`{"a"`, `{}`},
		{`{"a": `, `{}`},
		{`{"a": "x`, `{"a": "x"}`},
		{`{"a": "x\`, `{"a": "x"}`},
		{`{"a": "x\u00`, `{"a": "x"}`},
		{`{"a": "x\ud83d`, `{"a": "x"}`},
		{`{"a": "x\ud83d\ude00`, `{"a": "x\ud83d\ude00"}`},
		{`{"a": "x\\`, `{"a": "x\\"}`},
		{`{"a": "x\\ud83d`, `{"a": "x\\ud83d"}`},
		{"{\"a\": \"x\xc3", `{"a": "x"}`},
		{`{"a": "x",`, `{"a": "x"}`},
		{`{"a": "x", "b": 1`, `{"a": "x"}`},
		{`{"a": "x", "b": 1 `, `{"a": "x", "b": 1}`},
		{`{"c": [tr`, `{"c": []}`},
		{`{"c": [true,`, `{"c": [true]}`},
		{`{"c": [true, false]`, `{"c": [true, false]}`},
		{`{"f": {"g": "ab`, `{"f": {"g": "ab"}}`},
		{`{"a": "z"`, `{}`}, // the early verdict: what came before it
	} {
		st := s.Stream()
		_, _ = st.WriteString(tt.read)
		doc, _ := st.Partial()
		if string(doc) != tt.doc || (doc == nil) != (tt.doc == "") {
			t.Errorf("Partial after %q = %q, want %q", tt.read, doc, tt.doc)
		}
	}
	// A number ends at Close.
	st := mustCompile(t, `{}`).Stream()
	_, _ = st.WriteString(`-12.5`)
	if doc, _ := st.Partial(); doc != nil {
		t.Errorf("Partial on an open number = %q, want nil", doc)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if doc, _ := st.Partial(); string(doc) != `-12.5` {
		t.Errorf("Partial after Close = %q, want -12.5", doc)
	}
}

// A value settles only once whole, and only when it passes, each after
// the values inside it. (An object missing a required member would not
// settle; where its path decides its subschema, it now fails the answer
// when it closes.)
func TestPartialSettlesWholePassingValues(t *testing.T) {
	s := mustCompile(t, orderSchema)
	st := s.Stream()
	steps := []struct {
		chunk string
		new   []string
	}{
		{`{"orderId": "ORD-1", "customer": {"name": "Ada", "email": "ada@example.com", "address": {"street": "x"`, []string{"/orderId", "/customer/name", "/customer/email", "/customer/address/street"}},
		{`, "city": "y", "zip": "z"}}, "items": [{"sku": "abc"`, []string{"/customer/address/city", "/customer/address/zip", "/customer/address", "/customer", "/items/0/sku"}},
		{`, "qty": 2, "priceCents": 5}, {"sku": "abc", "qty": 1, "priceCents": 0}], "total": 0`, []string{"/items/0/qty", "/items/0/priceCents", "/items/0", "/items/1/sku", "/items/1/qty", "/items/1/priceCents", "/items/1", "/items"}},
		{`}`, []string{"/total"}},
	}
	var seen []string
	for _, step := range steps {
		if _, err := st.WriteString(step.chunk); err != nil {
			t.Fatalf("%q failed early: %v", step.chunk, err)
		}
		_, settled := st.Partial()
		if got := settled[len(seen):]; !slices.Equal(got, step.new) {
			t.Fatalf("after %q newly settled %q, want %q", step.chunk, got, step.new)
		}
		seen = settled
	}
}

// BenchmarkStreamPartial1KiB16 is BenchmarkStreamPassing1KiB16 with
// Partial called after every chunk.
func BenchmarkStreamPartial1KiB16(b *testing.B) {
	s := mustCompile(b, orderSchema)
	answer := orderAnswer()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		st := s.Stream()
		for i := 0; i < len(answer); i += 16 {
			if _, err := st.WriteString(answer[i:min(i+16, len(answer))]); err != nil {
				b.Fatal(err)
			}
			_, _ = st.Partial()
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
