package engine

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/xeipuuv/gojsonschema"
)

// countingFormat counts the values gojsonschema checks against a
// subschema that asserts it.
type countingFormat struct{ calls *atomic.Int64 }

func (c countingFormat) IsFormat(any) bool {
	c.calls.Add(1)
	return true
}

func TestFanOutCountsWhatTheValidatorChecks(t *testing.T) {
	var calls atomic.Int64
	gojsonschema.FormatCheckers.Add("enforcer-test-count", countingFormat{&calls})
	bomb := `{"format": "enforcer-test-count", "items": {"allOf": [{"$ref": "#"}, {"$ref": "#"}]}}`

	// The validator itself, without the audit: the string at the bottom
	// of an answer nested d deep is checked against the root 2^d times.
	gs, err := gojsonschema.NewSchema(gojsonschema.NewStringLoader(bomb))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal([]byte(bomb), &doc); err != nil {
		t.Fatal(err)
	}
	a, err := NewAuditor(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.indexRoot(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.walk(doc, "", ""); err != nil {
		t.Fatal(err)
	}
	f := newFanOut(a)
	v := f.closure(f.id(""))
	for d := 1; d <= 12; d++ {
		v = f.take(v, step{kind: stepAt}, &f.sc)
		answer := strings.Repeat("[", d) + `"s"` + strings.Repeat("]", d)
		calls.Store(0)
		if _, err := gs.Validate(gojsonschema.NewStringLoader(answer)); err != nil {
			t.Fatal(err)
		}
		counted := 0
		for _, x := range v {
			if f.locs[x.node] == "" {
				counted = x.n
			}
		}
		if got, want := calls.Load(), int64(1)<<d; got != want {
			t.Errorf("nested %d deep: gojsonschema checked the string against the root %d times, want %d", d, got, want)
		}
		if got, want := int64(counted), calls.Load(); got != want {
			t.Errorf("nested %d deep: the audit counts %d checks against the root, gojsonschema made %d", d, got, want)
		}
	}
}
