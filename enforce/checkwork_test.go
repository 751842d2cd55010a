package enforce_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
)

// arrayOfBomb is refBomb(levels) placed under items: each element of an
// answer is checked against about 2^(levels+1) subschemas, within
// MaxSchemaExpansion per value, but an answer of many elements multiplies
// that.
func arrayOfBomb(levels int) string {
	var b strings.Builder
	b.WriteString(`{"type": "array", "items": {"$ref": "#/definitions/l0"}, "definitions": {`)
	for i := range levels {
		kw := "allOf"
		if i%2 == 1 {
			kw = "anyOf"
		}
		fmt.Fprintf(&b, `"l%d": {"%s": [{"$ref": "#/definitions/l%d"}, {"$ref": "#/definitions/l%d"}]},`, i, kw, i+1, i+1)
	}
	fmt.Fprintf(&b, `"l%d": {"type": "string"}}}`, levels)
	return b.String()
}

// ones is a JSON array of n ones: 2n+1 bytes.
func ones(n int) string {
	return "[" + strings.Repeat("1,", n-1) + "1]"
}

func TestCheckBoundsTheWorkOfOneAnswer(t *testing.T) {
	s := mustCompile(t, arrayOfBomb(14))
	failed := false
	// 65,534 subschemas an item: MaxCheckWork admits 151 items (152 values). Without
	// the bound 200 items took seconds (50 took 0.6 to 4), and 4 MiB would
	// take hours; with it, what remains is parsing.
	for _, tt := range []struct {
		n     int
		limit time.Duration
	}{{200, time.Second}, {(enforce.MaxAnswerBytes - 2) / 2, time.Minute}} {
		n, answer := tt.n, ones(tt.n)
		t.Run(fmt.Sprintf("%d elements, %d bytes", n, len(answer)), func(t *testing.T) {
			if n > 200 && failed {
				t.Skip("unbounded: judging it would take hours")
			}
			defer func() { failed = failed || t.Failed() }()
			start := time.Now()
			err := s.Check(answer)
			took := time.Since(start)
			var ce *enforce.CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("Check = %v after %v, want a *CheckError", err, took)
			}
			if ce.Stage != enforce.StageJSONParse || len(ce.Issues) != 1 || ce.Issues[0].Keyword != "json" {
				t.Fatalf("Check = %v, want one json issue at json-parse", err)
			}
			if msg := ce.Issues[0].Message; !strings.Contains(msg, "MaxCheckWork") || len(msg) > enforce.MaxQuote {
				t.Errorf("Message = %q, want it to name MaxCheckWork within MaxQuote bytes", msg)
			}
			if took > tt.limit {
				t.Errorf("Check took %v, more than %v", took, tt.limit)
			}
		})
	}
	t.Run("a few elements are still judged", func(t *testing.T) {
		if err := s.Check(`["a"]`); err != nil {
			t.Errorf(`Check(["a"]) = %v, want nil`, err)
		}
		err := s.Check(`[1]`)
		var ce *enforce.CheckError
		if !errors.As(err, &ce) || ce.Stage != enforce.StageSchemaValidate {
			t.Errorf(`Check([1]) = %v, want a schema-validate failure`, err)
		}
	})
}

type checkWorkItem struct {
	ID    int      `json:"id"`
	Name  string   `json:"name"`
	Score float64  `json:"score"`
	Tags  []string `json:"tags"`
	Done  bool     `json:"done"`
}

type checkWorkReport struct {
	Items []checkWorkItem `json:"items"`
	Nums  []int           `json:"nums"`
}

// TestCheckJudgesLargeOrdinaryAnswers holds MaxCheckWork to what ordinary
// contracts need: answers of nearly MaxAnswerBytes, as dense in values as
// JSON allows, are judged, not refused.
func TestCheckJudgesLargeOrdinaryAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("judges answers of 4 MiB")
	}
	fill := func(prefix, unit, suffix string) string {
		n := (enforce.MaxAnswerBytes - len(prefix) - len(suffix) + 1) / (len(unit) + 1)
		return prefix + strings.Repeat(unit+",", n-1) + unit + suffix
	}
	reflected, err := enforce.SchemaFor[checkWorkReport]()
	if err != nil {
		t.Fatal(err)
	}
	objects := mustCompile(t, `{"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["id"]}}`)
	tests := []struct {
		name   string
		s      *enforce.Schema
		answer string
	}{
		{"a reflected struct, many small items", reflected, fill(`{"nums": [], "items": [`, `{"id":1,"name":"","score":0,"tags":[""],"done":true}`, `]}`)},
		{"a reflected struct, a long array of ints", reflected, fill(`{"items": [], "nums": [`, `0`, `]}`)},
		{"an array of objects", objects, fill(`[`, `{"id":1,"tags":["",""]}`, `]`)},
		{"an array of empty objects", objects, fill(`[`, `{"id":1}`, `]`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.answer) > enforce.MaxAnswerBytes || len(tt.answer) < enforce.MaxAnswerBytes-64 {
				t.Fatalf("answer is %d bytes", len(tt.answer))
			}
			start := time.Now()
			if err := tt.s.Check(tt.answer); err != nil {
				t.Fatalf("Check = %.300v, want nil", err)
			}
			t.Logf("judged %d bytes in %v", len(tt.answer), time.Since(start))
		})
	}
}
