package jsonvalue_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

type decodeItem struct {
	Name  string  `json:"name"`
	Qty   int     `json:"qty,omitempty"`
	Price float64 `json:"price"`
	Tags  []string
	Ptr   *int8          `json:"ptr"`
	Any   any            `json:"any"`
	Map   map[string]int `json:"map"`
	Arr   [2]uint16      `json:"arr"`
	Num   json.Number    `json:"num"`
	Skip  string         `json:"-"`
	Dash  string         `json:"-,"`
	Bad   string         `json:"a\"b"` // an invalid tag name: the field's own name counts
	F32   float32        `json:"f32"`
	hid   int
}

type decodeOrder struct {
	ID    string       `json:"id"`
	Items []decodeItem `json:"items"`
	Next  *decodeOrder `json:"next"`
}

type withTime struct {
	At time.Time `json:"at"`
}

type withString struct {
	N int `json:"n,string"`
}

type Embedded struct{ E int }
type withEmbedded struct {
	Embedded
	X int
}

// decodeInputs pairs answers with what they decode into. Each must give
// exactly json.Unmarshal's value and error.
var decodeInputs = []string{
	`{"id":"o1","items":[{"name":"a","qty":2,"price":1.5,"Tags":["x","y"],"ptr":-3,"any":{"k":[1,"s",true,null,2.5e3]},"map":{"a":1},"arr":[1,2,3],"num":1e2,"-":"dash","Bad":"b","f32":1.25}],"next":{"id":"o2","items":[],"next":null}}`,
	`{"id":"o1","items":null}`,
	`{"ID":"case-insensitive"}`,
	`{"id":"o1","unknown":{"deep":[1,2]}}`,
	`{"id":"o1","items":[{"qty":1.5}]}`,
	`{"id":"o1","items":[{"qty":99999999999999999999}]}`,
	`{"id":"o1","items":[{"ptr":300}]}`,
	`{"id":"o1","items":[{"arr":[-1]}]}`,
	`{"id":"o1","items":[{"f32":1e39}]}`,
	`{"id":"o1","items":[{"name":5}]}`,
	`{"id":"dup","id":"second"}`,
	`{"id":"\u00e9\ud800"}`,
	`{"id":"o1"} trailing`,
	`[1,2]`,
	`null`,
	`{"id":"o1","items":[{"any":1e400}]}`,
	`{"id":"o1","items":[{"map":{"a":"x"}}]}`,
	`{"id":"o1","items":[{"Tags":null,"map":null,"ptr":null,"any":null,"name":null}]}`,
	`{"ıd":"dotless i"}`,
}

func sameDecode[T any](t *testing.T, answer string) {
	t.Helper()
	var got, want T
	gotErr := jsonvalue.Unmarshal(answer, &got)
	wantErr := json.Unmarshal([]byte(answer), &want)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Errorf("%T from %s: error = %v, want %v", got, answer, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%T from %s:\n got %#v\nwant %#v", got, answer, got, want)
	}
}

func TestUnmarshalMatchesEncodingJSON(t *testing.T) {
	for _, in := range decodeInputs {
		sameDecode[decodeOrder](t, in)
		sameDecode[any](t, in)
		sameDecode[map[string]any](t, in)
		sameDecode[[]int](t, in)
		sameDecode[withTime](t, in)
		sameDecode[withString](t, in)
		sameDecode[withEmbedded](t, in)
	}
	sameDecode[withTime](t, `{"at":"2026-11-29T10:00:00Z"}`)
	sameDecode[withString](t, `{"n":"12"}`)
	sameDecode[withEmbedded](t, `{"E":1,"X":2}`)
	sameDecode[[]byte](t, `"aGVsbG8="`)
}

func TestUnmarshalIntoAPopulatedValueBehavesLikeEncodingJSON(t *testing.T) {
	got := decodeOrder{ID: "keep", Items: []decodeItem{{Name: "old"}}}
	want := got
	answer := `{"items":[{"qty":3}]}`
	if err := jsonvalue.Unmarshal(answer, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(answer), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, in := range decodeInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		sameDecode[decodeOrder](t, answer)
		sameDecode[any](t, answer)
	})
}

// cents decodes dollars into cents: a custom unmarshaler the fast path
// must leave to encoding/json, however deep in a recursive type it sits.
type cents int

func (c *cents) UnmarshalJSON(b []byte) error {
	var d int
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	*c = cents(d * 100)
	return nil
}

type recursiveOrder struct {
	Sub   []recursiveOrder `json:"sub"`
	Price cents            `json:"price"`
}

type recursiveNode struct {
	Kids []recursiveNode
	N    int `json:",string"`
}

type selfPointer *selfPointer

func TestUnmarshalRecursiveTypesKeepTheirCustomRules(t *testing.T) {
	// Decoding T first once cached its dependents wrongly; any order must
	// give encoding/json's result.
	sameDecode[recursiveOrder](t, `{"price":1}`)
	sameDecode[[]recursiveOrder](t, `[{"price":12,"sub":[{"price":3}]}]`)
	sameDecode[*recursiveOrder](t, `{"price":7}`)
	sameDecode[recursiveNode](t, `{"N":"5"}`)
	sameDecode[[]recursiveNode](t, `[{"N":5}]`)
}

func TestUnmarshalPointerCyclesFallBack(t *testing.T) {
	// A pointer cycle would recurse without end on the fast path; it must
	// be left to encoding/json (which decodes null into it fine).
	sameDecode[selfPointer](t, `null`)
}

func TestUnmarshalLeavesNegativeZeroLikeEncodingJSON(t *testing.T) {
	negZero := math.Copysign(0, -1)
	got, want := negZero, negZero
	if err := jsonvalue.Unmarshal(`null`, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`null`), &want); err != nil {
		t.Fatal(err)
	}
	if math.Signbit(got) != math.Signbit(want) {
		t.Errorf("Signbit after null = %v, want %v", math.Signbit(got), math.Signbit(want))
	}
}

func TestUnmarshalSlicesHaveEncodingJSONsCapacity(t *testing.T) {
	for _, in := range []string{`[]`, `[1]`, `[1,2,3]`, `[1,2,3,4,5]`} {
		var got, want []int
		if err := jsonvalue.Unmarshal(in, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || cap(got) != cap(want) || (got == nil) != (want == nil) {
			t.Errorf("%s: len/cap/nil = %d/%d/%v, want %d/%d/%v", in, len(got), cap(got), got == nil, len(want), cap(want), want == nil)
		}
	}
}

func TestUnmarshalConcurrentFirstUseNeverTakesAWrongFastPath(t *testing.T) {
	// Fresh types, first used by two goroutines at once.
	for round := range 200 {
		fields := []reflect.StructField{{Name: "N", Type: reflect.TypeFor[int](), Tag: `json:",string"`}}
		for i := range 20 {
			fields = append(fields, reflect.StructField{Name: fmt.Sprintf("M%d_%d", round, i), Type: reflect.TypeFor[map[string]int]()})
		}
		typ := reflect.StructOf(fields)
		errs := make(chan error, 2)
		for range 2 {
			go func() {
				v := reflect.New(typ)
				errs <- jsonvalue.Unmarshal(`{"N":5}`, v.Interface())
			}()
		}
		for range 2 {
			if err := <-errs; err == nil {
				t.Fatalf("round %d: nil error, want encoding/json's ,string error", round)
			}
		}
	}
}
