package reflected

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCacheBuildsOncePerTypeAndKeepsTheError(t *testing.T) {
	var c Cache[int]
	builds := 0
	build := func(t reflect.Type) (int, error) {
		builds++
		if t.Kind() == reflect.Chan {
			return 0, errors.New("no")
		}
		return builds, nil
	}
	for range 3 {
		if v, err := c.Get(reflect.TypeFor[string](), build); v != 1 || err != nil {
			t.Fatalf("Get(string) = (%d, %v), want (1, nil): built once", v, err)
		}
		if _, err := c.Get(reflect.TypeFor[chan int](), build); err == nil {
			t.Fatal("Get(chan int) = nil error, want the build's error, kept")
		}
	}
	if builds != 2 {
		t.Errorf("build ran %d times, want 2 (once per type)", builds)
	}
}

func TestSchemaHasNoDialectAndRefusesWhatItCannotReflect(t *testing.T) {
	type point struct{ X, Y int }
	raw, err := Schema(reflect.TypeFor[point]())
	if err != nil || strings.Contains(string(raw), `"$schema"`) || !strings.Contains(string(raw), `"X"`) {
		t.Fatalf("Schema(point) = (%s, %v), want a document without $schema naming X", raw, err)
	}
	var re *Error
	if _, err := Schema(reflect.TypeFor[chan int]()); !errors.As(err, &re) || !strings.Contains(re.Reason, "chan int") {
		t.Errorf("Schema(chan int) = %v, want an *Error naming the type", err)
	}
}
