package oracle_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// FuzzDifferential generates a schema and answers for it from the fuzzer's
// bytes — any dialect, booleans, nested $schema, references into
// definitions, into unknown keywords and to anchors, identifiers that move
// the base, formats, unevaluatedProperties and unevaluatedItems — and requires enforce's verdict on every answer to be
// the oracle's wherever enforce accepts the schema. A schema enforce
// refuses must be refused with a *SchemaError.
func FuzzDifferential(f *testing.F) {
	for _, seed := range []string{"", "\x01", "\x02\x05\x07", "\x03\x01\x04\x01\x05\x09\x02\x06", "\x04\xff\x10\x20\x30\x40", "\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{b: data}
		schema, answers := g.case_()
		raw, err := json.Marshal(schema)
		if err != nil {
			t.Fatal(err)
		}
		s, err := enforce.CompileSchema(raw)
		if err != nil {
			var se *enforce.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("schema %s: CompileSchema = %T %v, want a *SchemaError", raw, err, err)
			}
			return
		}
		o, err := compileOracle(raw)
		if err != nil {
			return // not a schema the oracle judges
		}
		for _, a := range answers {
			text, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			want, err := o(text)
			if err != nil {
				continue
			}
			got, crash := enforceVerdict(s, text)
			if crash != nil {
				t.Fatalf("schema %s, answer %s: %v", raw, text, crash)
			}
			if got != want {
				t.Fatalf("schema %s, answer %s: enforce says valid = %v, the oracle %v (%v)", raw, text, got, want, s.Check(string(text)))
			}
		}
	})
}

// gen reads choices from the fuzzer's bytes; past their end every choice
// is the first, so that every input makes a finite case.
type gen struct {
	b []byte
	i int
	// dialect is the root's; defs counts the definitions made so far.
	dialect string
}

func (g *gen) next() int {
	if g.i >= len(g.b) {
		return 0
	}
	g.i++
	return int(g.b[g.i-1])
}

func (g *gen) pick(n int) int { return g.next() % n }

var dialectURIs = []string{"", "http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-06/schema#", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema", "https://json-schema.org/draft/2020-12/schema"}

// formatValues are strings of each format, valid and not, on which the
// RFCs leave no doubt.
var formatValues = map[string][]string{
	"date-time":     {"2024-01-02T03:04:05Z", "2024-01-02T03:04:05.5+01:00", "2024-01-02", "2024-13-02T03:04:05Z", "2024-01-02 03:04:05Z"},
	"date":          {"2024-02-29", "2023-02-29", "2024-1-2"},
	"time":          {"12:00:00Z", "23:59:60Z", "12:00:00", "25:00:00Z"},
	"duration":      {"P1D", "PT1H30M", "P1Y2M3DT4H", "P", "PT", "1D"},
	"email":         {"a@b.co", "a.b@example.com", "a@@b", ".a@b.co", "a..b@c.d"},
	"hostname":      {"example.com", "a-b.c", "-bad.com", "a_b.com", "x.y-"},
	"ipv4":          {"1.2.3.4", "255.255.255.255", "1.2.3.256", "01.2.3.4", "1.2.3"},
	"ipv6":          {"::1", "2001:db8::1", "1::2::3", "12345::", "::ffff:1.2.3.4"},
	"uri":           {"http://a/b", "urn:isbn:1", "/rel", "a b", "http://a b"},
	"uri-reference": {"/rel", "http://a/b?c#d", "a b", "#frag"},
	"uuid":          {"123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000", "g23e4567-e89b-12d3-a456-426614174000"},
	"json-pointer":  {"", "/a/b", "/a~1b", "a/b", "/a~2"},
	"unknown-fmt":   {"anything"},
}

var formatNames = []string{"date-time", "date", "time", "duration", "email", "hostname", "ipv4", "ipv6", "uri", "uri-reference", "uuid", "json-pointer", "unknown-fmt"}

var memberNames = []string{"a", "b", "c"}

// case_ makes a schema and answers for it.
func (g *gen) case_() (map[string]any, []any) {
	g.dialect = dialectURIs[g.pick(len(dialectURIs))]
	root := map[string]any{}
	if g.dialect != "" {
		root["$schema"] = g.dialect
	}
	defsKey := "definitions"
	if g.isNew() && g.pick(2) == 0 {
		defsKey = "$defs"
	}
	// Definitions first, so that references have targets; one of them may
	// sit under a keyword no dialect knows, one may move the base.
	defs := map[string]any{}
	nDefs := 1 + g.pick(3)
	for k := range nDefs {
		defs[fmt.Sprintf("d%d", k)] = g.schema(2, k, nDefs, defsKey)
	}
	root[defsKey] = defs
	switch g.pick(5) {
	case 0:
		root["x-lib"] = map[string]any{"s": g.schema(1, nDefs, nDefs, defsKey)}
		root["allOf"] = []any{map[string]any{"$ref": "#/x-lib/s"}}
	case 1:
		anchored := g.schema(1, nDefs, nDefs, defsKey)
		if m, ok := anchored.(map[string]any); ok {
			if g.isNew() {
				m["$anchor"] = "anc"
			} else if g.dialect != dialectURIs[1] {
				m["$id"] = "#anc"
			} else {
				m["id"] = "#anc"
			}
			defs["anchored"] = m
			root["properties"] = map[string]any{"c": map[string]any{"$ref": "#anc"}}
		}
	case 2:
		// A subschema of its own base: its references resolve against it.
		idKey := "$id"
		if g.dialect == dialectURIs[1] {
			idKey = "id"
		}
		root[idKey] = "http://example.com/root.json"
		defs["sub"] = map[string]any{
			idKey:         "http://example.com/sub.json",
			"definitions": map[string]any{"inner": g.leaf()},
			"properties":  map[string]any{"a": map[string]any{"$ref": "#/definitions/inner"}},
		}
		root["properties"] = map[string]any{"b": map[string]any{"$ref": "sub.json"}}
	case 3:
		// A subschema in another dialect: a resource of its own, for
		// only there may $schema stand.
		nested := g.schema(1, nDefs, nDefs, defsKey)
		if m, ok := nested.(map[string]any); ok {
			m["$schema"] = dialectURIs[1+g.pick(len(dialectURIs)-1)]
			m["$id"], m["id"] = "nested.json", "nested.json"
			root["properties"] = map[string]any{"a": m}
		}
	}
	body := g.schema(3, -1, nDefs, defsKey)
	if m, ok := body.(map[string]any); ok {
		for k, v := range m {
			if _, taken := root[k]; !taken {
				root[k] = v
			}
		}
	} else if body == false {
		root["not"] = map[string]any{}
	}
	answers := make([]any, 0, 8)
	for range 6 + g.pick(4) {
		answers = append(answers, g.value(3))
	}
	return root, answers
}

func (g *gen) isNew() bool { return g.dialect == dialectURIs[4] || g.dialect == dialectURIs[5] }

func (g *gen) isDraft4() bool { return g.dialect == dialectURIs[1] }

// ref is a reference to a definition: at, the definition being made (-1
// for the root), may refer in place only to later ones, so that no loop
// consumes no input.
func (g *gen) ref(at, nDefs int, defsKey string, inPlace bool) map[string]any {
	from := 0
	if inPlace {
		from = at + 1
	}
	if from >= nDefs {
		return nil
	}
	return map[string]any{"$ref": fmt.Sprintf("#/%s/d%d", defsKey, from+g.pick(nDefs-from))}
}

func (g *gen) leaf() any {
	switch g.pick(8) {
	case 0:
		return map[string]any{"type": "string", "format": formatNames[g.pick(len(formatNames))]}
	case 1:
		return map[string]any{"type": "integer", "minimum": g.pick(5)}
	case 2:
		return map[string]any{"enum": []any{"x", 1, nil, "y"}}
	case 3:
		return map[string]any{"type": []any{"string", "null"}, "maxLength": 2}
	case 4:
		return map[string]any{"format": formatNames[g.pick(len(formatNames))]}
	case 5:
		m := map[string]any{"type": "number", "maximum": 3}
		if g.isDraft4() {
			m["exclusiveMaximum"] = true
		} else {
			m["exclusiveMinimum"] = 0
		}
		return m
	case 6:
		return map[string]any{"const": "x"}
	}
	return map[string]any{}
}

// schema makes a subschema depth levels deep at most.
func (g *gen) schema(depth, at, nDefs int, defsKey string) any {
	if depth == 0 {
		return g.leaf()
	}
	switch g.pick(12) {
	case 0:
		return g.leaf()
	case 1:
		if g.isDraft4() {
			return map[string]any{}
		}
		return g.pick(2) == 0
	case 2:
		props := map[string]any{}
		for _, n := range memberNames[:1+g.pick(len(memberNames))] {
			props[n] = g.schema(depth-1, at, nDefs, defsKey)
		}
		m := map[string]any{"type": "object", "properties": props}
		switch g.pick(3) {
		case 0:
			m["additionalProperties"] = false // a boolean in every dialect, draft-04 too
		case 1:
			m["additionalProperties"] = g.schema(depth-1, at, nDefs, defsKey)
		}
		if g.pick(2) == 0 {
			m["required"] = []any{memberNames[g.pick(len(memberNames))]}
		}
		if g.isNew() && g.pick(2) == 0 {
			m["unevaluatedProperties"] = g.schema(depth-1, at, nDefs, defsKey)
			if g.pick(2) == 0 {
				m["allOf"] = []any{g.schema(depth-1, at, nDefs, defsKey)}
			}
		}
		return m
	case 3:
		m := map[string]any{"type": "array"}
		if g.pick(2) == 0 {
			m["items"] = g.schema(depth-1, at, nDefs, defsKey)
		} else if g.dialect == dialectURIs[5] {
			m["prefixItems"] = []any{g.schema(depth-1, at, nDefs, defsKey)}
			m["items"] = false
		} else {
			m["items"] = []any{g.schema(depth-1, at, nDefs, defsKey)}
			m["additionalItems"] = g.isDraft4() || g.pick(2) == 0
		}
		if g.pick(2) == 0 {
			m["uniqueItems"] = true
		}
		if g.isNew() && g.pick(2) == 0 {
			if _, every := m["items"].(map[string]any); !every || g.pick(2) == 0 {
				delete(m, "items")
			}
			m["unevaluatedItems"] = g.schema(depth-1, at, nDefs, defsKey)
		}
		return m
	case 4:
		kw := []string{"allOf", "anyOf", "oneOf"}[g.pick(3)]
		return map[string]any{kw: []any{g.schema(depth-1, at, nDefs, defsKey), g.schema(depth-1, at, nDefs, defsKey)}}
	case 5:
		return map[string]any{"not": g.schema(depth-1, at, nDefs, defsKey)}
	case 6:
		return map[string]any{"if": g.schema(depth-1, at, nDefs, defsKey), "then": g.schema(depth-1, at, nDefs, defsKey), "else": g.schema(depth-1, at, nDefs, defsKey)}
	case 7:
		if r := g.ref(at, nDefs, defsKey, true); r != nil {
			if g.pick(2) == 0 {
				r["type"] = "object" // a sibling: ignored before 2019-09, applied since
			}
			return r
		}
		return g.leaf()
	case 8:
		r := g.ref(at, nDefs, defsKey, false)
		if r == nil {
			r = map[string]any{"$ref": "#"}
		}
		return map[string]any{"type": "object", "properties": map[string]any{"a": r}}
	case 9:
		if g.isNew() {
			// dependencies is no keyword since 2019-09 (the oracle
			// applies it for compatibility, enforce ignores it).
			return map[string]any{"dependentRequired": map[string]any{"b": []any{"c"}}, "dependentSchemas": map[string]any{"a": g.schema(depth-1, at, nDefs, defsKey)}}
		}
		return map[string]any{"dependencies": map[string]any{"a": []any{"b"}, "b": g.schema(depth-1, at, nDefs, defsKey)}, "dependentRequired": map[string]any{"b": []any{"c"}}}
	case 10:
		return map[string]any{"contains": g.schema(depth-1, at, nDefs, defsKey), "propertyNames": map[string]any{"maxLength": 1}}
	}
	return map[string]any{"type": "string", "format": formatNames[g.pick(len(formatNames))]}
}

// value makes an answer.
func (g *gen) value(depth int) any {
	k := g.pick(9)
	if depth == 0 && k >= 6 {
		k = 0
	}
	switch k {
	case 0:
		f := formatNames[g.pick(len(formatNames))]
		vs := formatValues[f]
		return vs[g.pick(len(vs))]
	case 1:
		return []any{"x", "y", "", "ab"}[g.pick(4)]
	case 2:
		return []any{0, 1, 2, 3, -1, 2.5, 4}[g.pick(7)]
	case 3:
		return nil
	case 4:
		return g.pick(2) == 0
	case 5:
		return json.Number("1.0")
	case 6, 7:
		m := map[string]any{}
		for range g.pick(4) {
			m[memberNames[g.pick(len(memberNames))]] = g.value(depth - 1)
		}
		return m
	}
	a := []any{}
	for range g.pick(4) {
		a = append(a, g.value(depth-1))
	}
	return a
}
