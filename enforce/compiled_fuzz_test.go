package enforce

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// FuzzFast holds the compiled evaluator to gojsonschema. From the fuzz
// bytes it builds a schema from every keyword the evaluator compiles (in
// draft-04, draft-06, draft-07 or 2020-12), answers that try to pass it,
// answers built from numbers and strings where the two are easiest to
// tell apart, a mutation, and the given answer; any answer that parses
// must get the same verdict from both. Every schema built must compile
// for the fast path.
func FuzzFast(f *testing.F) {
	for _, a := range seedAnswers(f) {
		f.Add([]byte{}, a, []byte{})
	}
	f.Add([]byte{3, 1, 4, 1, 5, 9, 2, 6}, `[1, 1.0, -0, 0.1]`, []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, seed []byte, answer string, mutation []byte) {
		g := &fastGen{fuzzGen: fuzzGen{b: seed}}
		dialect := g.pick(4)
		g.draft4 = dialect == 0
		g.dialect = dialect
		doc := g.schema(0)
		if m, ok := doc.(map[string]any); ok {
			m["definitions"] = map[string]any{"d": g.schema(2)}
			switch dialect {
			case 0:
				m["$schema"] = "http://json-schema.org/draft-04/schema#"
			case 1:
				m["$schema"] = "http://json-schema.org/draft-06/schema#"
			case 3:
				m["$schema"] = "https://json-schema.org/draft/2020-12/schema"
			}
		} else if g.draft4 {
			return
		}
		raw, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		s, err := CompileSchema(raw)
		if err != nil {
			return // a $ref cycle, or what gojsonschema refuses
		}
		if s.parts().fast == nil {
			t.Fatalf("schema %s compiles, but not for the fast path", raw)
		}
		var b strings.Builder
		g.value(&b, doc, 0)
		texts := []string{answer, b.String(), edit(b.String(), mutation)}
		for range 3 {
			var r strings.Builder
			g.anyValue(&r, 0)
			texts = append(texts, r.String())
		}
		for _, text := range texts {
			fastAgrees(t, s, text, "fuzz")
		}
	})
}

type fastGen struct {
	fuzzGen
	dialect int
}

var (
	fastNumbers = []string{"0", "-0", "1", "1.0", "1e2", "100", "0.1", "0.10000000000000000001", "0.30000000000000004",
		"0.3", "1e-400", "-1e-400", "12345678901234567890123", "1.5", "2.5e-1", "9007199254740993", "1e308", "1e400",
		"0.01", "3.3", "0.0300", "-2", "7", "19.99", "1E+2", "-0.0"}
	fastBounds   = []any{json.Number("0"), json.Number("1"), json.Number("0.1"), json.Number("-1.5"), json.Number("100"), json.Number("1e300"), json.Number("12345678901234567890123")}
	fastMultiple = []any{json.Number("0.1"), json.Number("0.01"), json.Number("2"), json.Number("2.5"), json.Number("1e-3"), json.Number("3"), json.Number("1e300")}
	fastConsts   = []any{json.Number("1"), json.Number("1.0"), json.Number("-0"), json.Number("0.1"), "a", nil, true, []any{json.Number("1"), "a"}, map[string]any{"a": json.Number("1")}}
)

// schema builds a subschema from any keyword the evaluator compiles.
func (g *fastGen) schema(depth int) any {
	if depth > 3 {
		return map[string]any{"type": "string"}
	}
	m := map[string]any{}
	for range g.pick(4) + 1 {
		switch g.pick(24) {
		case 0:
			m["type"] = []string{"string", "integer", "number", "object", "array", "boolean", "null"}[g.pick(7)]
		case 1:
			m["type"] = []any{"integer", "string", "null"}[:g.pick(3)+1]
		case 2:
			k := []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}[g.pick(4)]
			if g.draft4 && strings.HasPrefix(k, "exclusive") {
				m[strings.ToLower(k[9:10])+k[10:]] = fastBounds[g.pick(len(fastBounds))]
				m[k] = g.pick(2) == 0
			} else {
				m[k] = fastBounds[g.pick(len(fastBounds))]
			}
		case 3:
			m["multipleOf"] = fastMultiple[g.pick(len(fastMultiple))]
		case 4:
			var e []any
			for range g.pick(3) + 1 {
				c := fastConsts[g.pick(len(fastConsts))]
				dup := false
				for _, x := range e {
					dup = dup || jsonEqual(jsonvalue.CanonicalNumbers(x), jsonvalue.CanonicalNumbers(c))
				}
				if !dup {
					e = append(e, c)
				}
			}
			m["enum"] = e
		case 5:
			m["const"] = fastConsts[g.pick(len(fastConsts))]
		case 6:
			m[[]string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}[g.pick(6)]] = g.pick(4)
		case 7:
			m["pattern"] = fuzzPatterns[g.pick(len(fuzzPatterns))]
		case 8:
			m["format"] = fuzzFormats[g.pick(len(fuzzFormats))]
		case 9:
			props := map[string]any{}
			for _, n := range fuzzNames[:3] {
				if g.pick(2) == 0 {
					props[n] = g.schema(depth + 1)
				}
			}
			m["properties"] = props
		case 10:
			m["required"] = []any{"a", "b"}[:g.pick(2)+1]
		case 11:
			if g.pick(2) == 0 {
				m["additionalProperties"] = false
			} else {
				m["additionalProperties"] = g.schema(depth + 1)
			}
		case 12:
			m["patternProperties"] = map[string]any{"^a": g.schema(depth + 1), "b$": g.schema(depth + 1)}
		case 13:
			m["items"] = g.schema(depth + 1)
		case 14:
			if g.dialect != 3 {
				m["items"] = []any{g.schema(depth + 1), g.schema(depth + 1)}
				if g.pick(2) == 0 {
					m["additionalItems"] = g.pick(2) == 0
				} else {
					m["additionalItems"] = g.schema(depth + 1)
				}
			}
		case 15:
			m["uniqueItems"] = g.pick(3) != 0
		case 16:
			m["contains"] = g.schema(depth + 1)
		case 17:
			m["propertyNames"] = map[string]any{"maxLength": 1}
		case 18:
			if g.dialect != 3 {
				m["dependencies"] = map[string]any{"a": []any{"b"}, "b": g.schema(depth + 1)}
			}
		case 19:
			m[[]string{"allOf", "anyOf", "oneOf"}[g.pick(3)]] = []any{g.schema(depth + 1), g.schema(depth + 1)}
		case 20:
			m["not"] = g.schema(depth + 1)
		case 21:
			m["if"] = g.schema(depth + 1)
			m["then"] = g.schema(depth + 1)
			if g.pick(2) == 0 {
				m["else"] = g.schema(depth + 1)
			}
		case 22:
			if depth > 0 {
				m["$ref"] = []string{"#", "#/definitions/d"}[g.pick(2)]
			}
		case 23:
			if !g.draft4 && depth > 0 {
				return g.pick(2) == 0
			}
		}
	}
	return m
}

// anyValue writes a value of any kind, from numbers and strings the two
// judges might tell apart.
func (g *fastGen) anyValue(b *strings.Builder, depth int) {
	k := g.pick(7)
	if depth > 3 {
		k %= 4
	}
	switch k {
	case 0, 1:
		b.WriteString(fastNumbers[g.pick(len(fastNumbers))])
	case 2:
		writeJSON(b, fuzzStrings[g.pick(len(fuzzStrings))])
	case 3:
		b.WriteString([]string{"null", "true", "false"}[g.pick(3)])
	case 4, 5:
		b.WriteString("[")
		for i := range g.pick(4) {
			if i > 0 {
				b.WriteString(",")
			}
			g.anyValue(b, depth+1)
		}
		b.WriteString("]")
	case 6:
		b.WriteString("{")
		names := []string{"a", "b", "ab", "ba", "abc", "c/d"}
		start := g.pick(len(names))
		for i := range g.pick(4) {
			if i > 0 {
				b.WriteString(",")
			}
			writeJSON(b, names[(start+i)%len(names)])
			b.WriteString(":")
			g.anyValue(b, depth+1)
		}
		b.WriteString("}")
	}
}
