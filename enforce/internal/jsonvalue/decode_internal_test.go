package jsonvalue

import (
	"reflect"
	"testing"
	"time"
)

// TestUnmarshalTakesTheFastPath checks the fast path is really used for
// plain shapes — otherwise the differential tests would pass on the
// fallback alone — and refused for shapes it does not own.
func TestUnmarshalTakesTheFastPath(t *testing.T) {
	type item struct {
		Name string            `json:"name"`
		Qty  int               `json:"qty,omitempty"`
		Tags []string          `json:"tags"`
		Meta map[string]any    `json:"meta"`
		Next *item             `json:"next"`
		Arr  [2]float32        `json:"arr"`
		Kv   map[string]*int64 `json:"kv"`
	}
	tests := []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[item](), true},
		{reflect.TypeFor[[]item](), true},
		{reflect.TypeFor[any](), true},
		{reflect.TypeFor[struct{ At time.Time }](), false},
		{reflect.TypeFor[struct {
			N int `json:",string"`
		}](), false},
		{reflect.TypeFor[[]byte](), false},
		{reflect.TypeFor[struct{ item }](), false},
		{reflect.TypeFor[struct{ Ä int }](), false},
		{reflect.TypeFor[map[int]string](), false},
		{reflect.TypeFor[chan int](), false},
	}
	for _, tt := range tests {
		if got := fastType(tt.t); got != tt.want {
			t.Errorf("fastType(%v) = %v, want %v", tt.t, got, tt.want)
		}
	}
	p := Parser{S: `{"name":"a","qty":2,"tags":["x"],"meta":{"k":1},"next":{"name":"b"},"arr":[1.5],"kv":{"a":3},"other":true}`}
	var v item
	if !p.into(reflect.ValueOf(&v).Elem()) || p.Err != nil || p.I != len(p.S) {
		t.Fatalf("into fell back on a plain answer (err %v)", p.Err)
	}
	if v.Name != "a" || v.Qty != 2 || v.Next == nil || v.Next.Name != "b" || v.Arr[0] != 1.5 || *v.Kv["a"] != 3 || v.Meta["k"] != 1.0 {
		t.Errorf("into decoded %+v", v)
	}
}

// FuzzPointerAt: on any valid JSON and any offset, PointerAt ends and
// names a value that exists.
func FuzzPointerAt(f *testing.F) {
	f.Add(`{"items":[{"qty":1},{"qty":2.5}],"sub":{"x":300}}`, 30)
	f.Add(`[[],{},"a\"b",{"k/~":[1,2]}]`, 20)
	f.Add(`  7 `, 2)
	f.Fuzz(func(t *testing.T, s string, off int) {
		tree, err := Parse(s)
		if err != nil {
			return
		}
		ptr := PointerAt(s, off)
		if _, ok := LookupPointer(tree, ptr); !ok {
			t.Errorf("pointerAt(%q, %d) = %q, which does not resolve", s, off, ptr)
		}
	})
}
