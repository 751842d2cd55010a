package enforce_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// ordersSchema holds an array of items beside other members.
const ordersSchema = `{
	"type": "object",
	"properties": {
		"items": {"type": "array", "items": {
			"type": "object",
			"properties": {"name": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
			"required": ["name", "qty"],
			"additionalProperties": false
		}},
		"summary": {"type": "string"}
	},
	"required": ["items", "summary"],
	"additionalProperties": false
}`

// deliveries collects what an Elements delivers: each element's pointer
// and text.
type deliveries []string

func (d *deliveries) add(e enforce.Element) { *d = append(*d, e.Pointer()+" "+e.Text) }

func newElements(t *testing.T, st *enforce.Incremental, pointer string, d *deliveries) *enforce.Elements {
	t.Helper()
	el, err := enforce.NewElements(st, pointer, d.add)
	if err != nil {
		t.Fatal(err)
	}
	return el
}

func TestElementsOfOneChunkAreDeliveredBeforeTheBytesAfterThemAreJudged(t *testing.T) {
	var got deliveries
	var seenBySummary []string
	// A validator of the member after the array sees what was delivered
	// when that member closes: the elements came first.
	summary := enforce.NewValidator("summary", func(_ context.Context, _ string, _ enforce.Try) ([]enforce.Issue, error) {
		seenBySummary = slices.Clone(got)
		return nil, nil
	}).At("/summary")
	s, err := mustCompile(t, ordersSchema).WithValidators(summary)
	if err != nil {
		t.Fatal(err)
	}
	el := newElements(t, s.StreamValidating(t.Context(), enforce.Try{Attempt: 1}), "/items", &got)
	// One chunk holds both elements' closing bytes, the member after
	// them, and then a member the schema refuses.
	answer := `{"items":[{"name":"a","qty":1},{"name":"b","qty":2}],"summary":"two","extra":true}`
	n, err := el.WriteString(answer)
	var ce *enforce.CheckError
	if !errors.As(err, &ce) || ce.Issues[0].Path != "/extra" {
		t.Fatalf("write = %d, %v; want the verdict at /extra", n, err)
	}
	want := deliveries{`/items/0 {"name":"a","qty":1}`, `/items/1 {"name":"b","qty":2}`}
	if !slices.Equal(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
	if !slices.Equal(seenBySummary, want) {
		t.Errorf("when /summary was judged, %q had been delivered, want %q", seenBySummary, want)
	}
	if err := el.Close(); err != ce {
		t.Errorf("Close = %v, want the early verdict", err)
	}
	if len(got) != 2 {
		t.Errorf("Close after the verdict delivered more: %q", got)
	}
}

func TestElementsAreDeliveredInTheWriteOfTheirClosingByte(t *testing.T) {
	answer := `{"summary":"s","items":[{"name":"a","qty":1}, {"name":"}]","qty":22},{"qty":3,"name":"c"}]}`
	// Each element is delivered at its '}', also the one holding "}]"
	// in a string and a number that "}" ends.
	wantAt := []int{43, 67, 88}
	var got deliveries
	el := newElements(t, mustCompile(t, ordersSchema).Stream(), "/items", &got)
	var at []int
	for i := range answer {
		before := len(got)
		if _, err := el.WriteString(answer[i : i+1]); err != nil {
			t.Fatal(err)
		}
		for range len(got) - before {
			at = append(at, i)
		}
	}
	if !slices.Equal(at, wantAt) {
		t.Errorf("delivered at bytes %v, want %v (%q)", at, wantAt, got)
	}
	if err := el.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Errorf("Close delivered again: %q", got)
	}
}

func TestElementsOfScalarsEndWhereTheIncrementalEndsThem(t *testing.T) {
	s := mustCompile(t, `{"type":"array","items":{"type":["integer","boolean","string","null"]}}`)
	tests := []struct {
		answer string
		at     []int // the byte in whose write each element is delivered
	}{
		{`[1,22 ,"x",true,null]`, []int{2, 5, 9, 14, 19}},
		{`[false]`, []int{5}},
		{`[7]`, []int{2}},
	}
	for _, tt := range tests {
		var got deliveries
		el := newElements(t, s.Stream(), "", &got)
		var at []int
		for i := range tt.answer {
			before := len(got)
			if _, err := el.WriteString(tt.answer[i : i+1]); err != nil {
				t.Fatal(err)
			}
			for range len(got) - before {
				at = append(at, i)
			}
		}
		if !slices.Equal(at, tt.at) {
			t.Errorf("%s: delivered at %v, want %v (%q)", tt.answer, at, tt.at, got)
		}
	}
}

func TestANumberElementIsNotDeliveredWhenTheByteThatEndsItDoomsTheAnswer(t *testing.T) {
	s := mustCompile(t, `{"type":"array","items":{"type":"integer"},"minItems":2}`)
	for _, answer := range []string{
		"[1,2\u00e9]", // a character no value may be followed by, its bytes in one write
		`[1,2,3x`,     // a byte no value may be followed by
		`[1]`,         // the bracket closes an array with too few items
	} {
		for _, chunk := range []int{1, len(answer)} {
			var got deliveries
			el := newElements(t, s.Stream(), "", &got)
			var err error
			for i := 0; i < len(answer) && err == nil; i += chunk {
				_, err = el.WriteString(answer[i:min(i+chunk, len(answer))])
			}
			if err == nil {
				t.Fatalf("%s in writes of %d: no early verdict", answer, chunk)
			}
			want := deliveries{"/0 1", "/1 2"}[:strings.Count(answer, ",")]
			if !slices.Equal(got, want) {
				t.Errorf("%s in writes of %d: delivered %q, want %q", answer, chunk, got, want)
			}
		}
	}
}

func TestAnElementThatFailsCutsTheAnswerThereAndIsNotDelivered(t *testing.T) {
	var got deliveries
	el := newElements(t, mustCompile(t, ordersSchema).Stream(), "/items", &got)
	answer := `{"items":[{"name":"a","qty":1},{"name":"b"},{"name":"c","qty":3}],"summary":"s"}`
	n, err := el.WriteString(answer)
	var ce *enforce.CheckError
	if !errors.As(err, &ce) || ce.Issues[0].Path != "/items/1/qty" {
		t.Fatalf("write = %v, want the verdict at /items/1/qty", err)
	}
	if want := len(`{"items":[{"name":"a","qty":1},{"name":"b"}`); n != want {
		t.Errorf("read %d bytes, want %d: up to the failing element's closing byte", n, want)
	}
	if want := (deliveries{`/items/0 {"name":"a","qty":1}`}); !slices.Equal(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
}

func TestAValidatorOfAnElementHoldsItBack(t *testing.T) {
	noB := func(i int) enforce.Validator {
		return enforce.NewValidator("no-b-"+strconv.Itoa(i), func(_ context.Context, item struct{ Name string }, _ enforce.Try) ([]enforce.Issue, error) {
			if item.Name == "b" {
				return []enforce.Issue{{Path: "/name", Message: "b is sold out"}}, nil
			}
			return nil, nil
		}).At("/items/" + strconv.Itoa(i))
	}
	s, err := mustCompile(t, ordersSchema).WithValidators(noB(0), noB(1))
	if err != nil {
		t.Fatal(err)
	}
	var got deliveries
	el := newElements(t, s.StreamValidating(t.Context(), enforce.Try{Attempt: 1}), "/items", &got)
	_, err = el.WriteString(`{"items":[{"name":"a","qty":1},{"name":"b","qty":2}],"summary":"s"}`)
	var ce *enforce.CheckError
	if !errors.As(err, &ce) || ce.Issues[0].Path != "/items/1/name" || ce.Issues[0].Keyword != "no-b-1" {
		t.Fatalf("write = %v, want no-b-1's verdict at /items/1/name", err)
	}
	if want := (deliveries{`/items/0 {"name":"a","qty":1}`}); !slices.Equal(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
}

func TestElementsWaitForCloseWhereThePathDoesNotDecideTheirSubschema(t *testing.T) {
	s := mustCompile(t, `{"type":"array","allOf":[{"items":{"type":"string","maxLength":3}}]}`)
	var got deliveries
	el := newElements(t, s.Stream(), "", &got)
	if _, err := el.WriteString(`["a","bc"]`); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("delivered %q before Close", got)
	}
	if err := el.Close(); err != nil {
		t.Fatal(err)
	}
	if want := (deliveries{`/0 "a"`, `/1 "bc"`}); !slices.Equal(got, want) {
		t.Errorf("Close delivered %q, want %q", got, want)
	}
}

func TestElementsOfAMendedAnswerAreDeliveredAtClose(t *testing.T) {
	s := mustCompile(t, ordersSchema).WithRepairs(enforce.RepairFence)
	var got deliveries
	el := newElements(t, s.Stream(), "/items", &got)
	if _, err := el.WriteString("```json\n{\"items\":[{\"name\":\"a\",\"qty\":1}],\"summary\":\"s\"}\n```"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("delivered %q before Close", got)
	}
	if err := el.Close(); err != nil {
		t.Fatal(err)
	}
	if want := (deliveries{`/items/0 {"name":"a","qty":1}`}); !slices.Equal(got, want) {
		t.Errorf("Close delivered %q, want %q", got, want)
	}
}

func TestNoElementIsDeliveredFromAnAnswerThatFailsAtClose(t *testing.T) {
	// Whether the items may be longer than one character is known only
	// once "strict" is known, after them.
	s := mustCompile(t, `{"type":"object","properties":{"items":{"type":"array"}},"if":{"required":["strict"]},"then":{"properties":{"items":{"items":{"maxLength":1}}}}}`)
	var got deliveries
	el := newElements(t, s.Stream(), "/items", &got)
	el.WriteString(`{"items":["a","bc"],"strict":true}`) // the verdict may come at the last byte
	if err := el.Close(); err == nil {
		t.Fatal("Close passed an answer with a string too long")
	}
	if len(got) != 0 {
		t.Errorf("delivered %q from a failing answer", got)
	}
}

func TestNewElementsRefusesWhatIsNoJSONPointer(t *testing.T) {
	s := mustCompile(t, ordersSchema)
	for _, p := range []string{"items", "/a~2", "/~"} {
		if _, err := enforce.NewElements(s.Stream(), p, nil); !errors.Is(err, enforce.ErrPointer) {
			t.Errorf("NewElements(%q) = %v, want ErrPointer", p, err)
		}
	}
	anything := mustCompile(t, `{}`)
	for _, p := range []string{"", "/items", "/a~0b/0/c~1d"} {
		if _, err := enforce.NewElements(anything.Stream(), p, nil); err != nil {
			t.Errorf("NewElements(%q) = %v", p, err)
		}
	}
}

func TestElementsAtAnEscapedPointerInsideAnArray(t *testing.T) {
	s := mustCompile(t, `{"type":"array","items":{"type":"object","properties":{"a/b":{"type":"array","items":{"type":"integer"}}}}}`)
	var got deliveries
	el := newElements(t, s.Stream(), "/1/a~1b", &got)
	if _, err := el.WriteString(`[{"a/b":[9]},{"x":[8],"a\/b":[1,2]},{"a/b":[7]}]`); err != nil {
		t.Fatal(err)
	}
	if want := (deliveries{"/1/a~1b/0 1", "/1/a~1b/1 2"}); !slices.Equal(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
}

func TestNewElementsRefusesAPointerWhereTheSchemaHoldsNoArray(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{
		"note": {"type": "string"},
		"lines": {"type": "array", "items": {"type": "object", "properties": {"tags": {"type": "array"}}}},
		"maybe": {"anyOf": [{"type": "array"}, {"type": "null"}]},
		"open": {"type": "object"}
	},"additionalProperties": false}`)
	for _, p := range []string{"/note", "/lines/0", "", "/nope", "/note/0", "/lines/x"} {
		if _, err := enforce.NewElements(s.Stream(), p, nil); !errors.Is(err, enforce.ErrPointer) || !strings.Contains(err.Error(), strconv.Quote(p)) {
			t.Errorf("NewElements(%q) = %v, want ErrPointer naming the pointer", p, err)
		}
	}
	for _, p := range []string{"/lines", "/lines/0/tags", "/maybe", "/open/anything"} {
		if _, err := enforce.NewElements(s.Stream(), p, nil); err != nil {
			t.Errorf("NewElements(%q) = %v, want an Elements: an array may be there", p, err)
		}
	}
}
