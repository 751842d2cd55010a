package enforce_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// elementsCase is a schema whose answers hold an array at pointer, with
// the subschema of its items alone, as its own schema.
type elementsCase struct {
	pointer, schema, item string
}

const (
	itemObject = `{"type":"object","properties":{"name":{"type":"string","maxLength":4},"qty":{"type":"integer","minimum":1},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"maxItems":2}},"required":["name","qty"],"additionalProperties":false}`
	itemLoose  = `{"type":"object","properties":{"id":{"type":"number"},"ok":{"type":"boolean"}},"required":["id"]}`
	itemLabel  = `{"type":"string","enum":["red","green","blue"]}`
	itemNumber = `{"type":"integer","minimum":0,"maximum":99}`
	itemAnyOf  = `{"anyOf":[{"type":"string","maxLength":3},{"type":"object","required":["k"]}]}`
	itemNested = `{"type":"array","items":{"type":"integer"},"maxItems":3}`
)

var elementsCases = []elementsCase{
	{"", `{"type":"array","items":` + itemObject + `}`, itemObject},
	{"/items", `{"type":"object","properties":{"summary":{"type":"string"},"items":{"type":"array","items":` + itemObject + `}},"required":["summary","items"],"additionalProperties":false}`, itemObject},
	{"/a/b~1c", `{"type":"object","properties":{"a":{"type":"object","properties":{"b/c":{"type":"array","items":` + itemLoose + `,"maxItems":4}}}}}`, itemLoose},
	{"", `{"type":"array","items":` + itemLabel + `,"uniqueItems":true}`, itemLabel},
	{"/n", `{"type":"object","properties":{"n":{"type":"array","items":` + itemNumber + `},"z":{"type":"null"}}}`, itemNumber},
	{"", `{"type":"array","items":` + itemAnyOf + `}`, itemAnyOf},
	{"/m", `{"type":"object","properties":{"m":{"type":"array","items":` + itemNested + `}},"required":["m"]}`, itemNested},
	{"/items", `{"definitions":{"it":` + itemObject + `},"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/definitions/it"}}}}`, itemObject},
	{"/0", `{"type":"array","items":[{"type":"array","items":` + itemLabel + `}],"additionalItems":false}`, itemLabel},
	// The path does not decide the items' subschema: elements wait for Close.
	{"", `{"type":"array","allOf":[{"items":{"type":"string","maxLength":3}}]}`, `{"type":"string","maxLength":3}`},
	{"/items", `{"type":"object","properties":{"items":{"type":"array"}},"if":{"required":["strict"]},"then":{"properties":{"items":{"items":` + itemObject + `}}}}`, `{}`},
}

var elementsSeeds = []string{
	`[{"name":"ab","qty":1},{"name":"cd","qty":2,"tags":["a"]}]`,
	`[{"name":"ab","qty":1},{"name":"toolong","qty":2}]`,
	`[{"name":"ab","qty":1},{"qty":2}, {"name":"x","qty":3}]`,
	`{"summary":"s","items":[{"name":"a","qty":1},{"name":"b","qty":0}]}`,
	`{"items":[{"name":"a","qty":1}],"summary":"s","extra":true}`,
	`{"a":{"b/c":[{"id":1},{"id":2.5,"ok":true},{"id":"x"}]}}`,
	`{"a":{"b\/c":[{"id":1},{"id":2}]}}`,
	`["red","green","red"]`,
	`["red", "green" , "blue"]`,
	`{"n":[1,2,100,3],"z":null}`,
	`{"n":[1 , 2 ,3]}`,
	`["abc",{"k":1},"abcd"]`,
	`{"m":[[1,2],[3,4,5,6],[7]]}`,
	`{"items":[{"name":"a","qty":1},{"name":"a","qty":1,"qty":2}]}`,
	`[["red","blue"]]`,
	`{"items":[{"name":"toolong","qty":1},{"qty":0}],"strict":true}`,
	`{"items":[{"name":"toolong","qty":1}]}`,
	`[["red","pink"]]`,
	"```json\n[{\"name\":\"a\",\"qty\":1}]\n```",
	`[{"name":"a","qty":1}] trailing`,
	`[{"name":"a\u00e9","qty":1},{"name":"\"q\"","qty":2}]`,
	// A number element is delivered once the byte after it is judged.
	"{\"n\":[1,2\u00e9]}",
	`{"n":[1,2x]}`,
	`{"n":[3 ,4]}`,
}

// FuzzElements holds an Elements to Check. For each schema of
// elementsCases, an answer and a chunk size, it asserts:
//
//   - no element is delivered from an answer Check fails at or under that
//     element's pointer, and every element delivered passes its items'
//     subschema on its own;
//   - elements come in order, each once, each the answer's own value there;
//   - without an early verdict, Close is Check, and when it passes every
//     element of the array was delivered;
//   - what is delivered, and the verdict, do not depend on the chunk size.
func FuzzElements(f *testing.F) {
	for i := range elementsCases {
		for _, a := range elementsSeeds {
			f.Add(byte(i), a, byte(3))
		}
	}
	f.Fuzz(func(t *testing.T, which byte, answer string, chunk byte) {
		c := elementsCases[int(which)%len(elementsCases)]
		s, err := enforce.CompileSchema([]byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		item, err := enforce.CompileSchema([]byte(itemSchemaAlone(c)))
		if err != nil {
			t.Fatal(err)
		}
		holdElements(t, s, item, c.pointer, answer, int(chunk)%17+1)
	})
}

// itemSchemaAlone is c's items subschema as a schema of its own, with the
// definitions a $ref in it needs.
func itemSchemaAlone(c elementsCase) string {
	if strings.Contains(c.schema, `"definitions"`) {
		return `{"definitions":{"it":` + c.item + `},"$ref":"#/definitions/it"}`
	}
	return c.item
}

type elementsRun struct {
	got          []enforce.Element
	read         int
	early, close error
}

func runElements(t *testing.T, s *enforce.Schema, pointer, answer string, size int) elementsRun {
	t.Helper()
	var r elementsRun
	el, err := enforce.NewElements(s.Stream(), pointer, func(e enforce.Element) { r.got = append(r.got, e) })
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(answer); i += size {
		n, err := el.WriteString(answer[i:min(i+size, len(answer))])
		r.read += n
		if err != nil {
			r.early = err
			break
		}
	}
	r.close = el.Close()
	return r
}

func holdElements(t *testing.T, s, item *enforce.Schema, pointer, answer string, size int) {
	t.Helper()
	r := runElements(t, s, pointer, answer, size)
	one := runElements(t, s, pointer, answer, 1)
	if !reflect.DeepEqual(r.got, one.got) || r.read != one.read || !sameCheck(r.close, one.close) {
		t.Fatalf("pointer %q, answer %q: in chunks of %d %v (verdict %v after %d bytes); byte by byte %v (%v after %d)", pointer, answer, size, r.got, r.close, r.read, one.got, one.close, one.read)
	}
	check := s.Check(answer)
	if r.early == nil && !sameCheck(r.close, check) {
		t.Fatalf("pointer %q, answer %q: Close = %v, Check = %v", pointer, answer, r.close, check)
	}
	if r.early != nil && r.close != r.early {
		t.Fatalf("pointer %q, answer %q: Close = %v after the early verdict %v", pointer, answer, r.close, r.early)
	}
	var ce *enforce.CheckError
	errors.As(check, &ce)
	for i, e := range r.got {
		if want := pointer + "/" + strconv.Itoa(i); e.Index != i || e.Pointer() != want {
			t.Fatalf("pointer %q, answer %q: element %d is %d at %q, want %q", pointer, answer, i, e.Index, e.Pointer(), want)
		}
		if err := item.Check(e.Text); err != nil {
			t.Fatalf("pointer %q, answer %q: delivered %s %s, which fails its subschema: %v", pointer, answer, e.Pointer(), e.Text, err)
		}
		if ce != nil && ce.Stage == enforce.StageSchemaValidate {
			for _, is := range ce.Issues {
				if is.Path == e.Pointer() || strings.HasPrefix(is.Path, e.Pointer()+"/") {
					t.Fatalf("pointer %q, answer %q: delivered %s %s, where Check reports %+v", pointer, answer, e.Pointer(), e.Text, is)
				}
			}
		}
	}
	if check != nil {
		return
	}
	var doc any
	d := json.NewDecoder(strings.NewReader(answer))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	items := lookup(t, doc, pointer)
	if len(items) != len(r.got) {
		t.Fatalf("pointer %q, answer %q passes: delivered %d elements of %d", pointer, answer, len(r.got), len(items))
	}
	for i, e := range r.got {
		var v any
		d := json.NewDecoder(strings.NewReader(e.Text))
		d.UseNumber()
		if err := d.Decode(&v); err != nil || !reflect.DeepEqual(v, items[i]) {
			t.Fatalf("pointer %q, answer %q: element %d is %s, the answer has %v there", pointer, answer, i, e.Text, items[i])
		}
	}
}

func lookup(t *testing.T, doc any, pointer string) []any {
	t.Helper()
	if pointer != "" {
		for _, tok := range strings.Split(pointer[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch v := doc.(type) {
			case map[string]any:
				doc = v[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(v) {
					return nil // no such item: the answer has no array there
				}
				doc = v[i]
			}
		}
	}
	items, _ := doc.([]any)
	return items
}

func sameCheck(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y *enforce.CheckError
	return errors.As(a, &x) && errors.As(b, &y) && x.Stage == y.Stage && reflect.DeepEqual(x.Issues, y.Issues)
}
