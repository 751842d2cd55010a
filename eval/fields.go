package eval

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// compare holds the answer's value against expected, leaf by leaf. An
// answer that did not pass, or is not JSON, matches no leaf.
func compare(expected json.RawMessage, answer string, passed bool) *Fields {
	var want any
	if err := decode(expected, &want); err != nil {
		return &Fields{Wrong: []string{""}, Compared: 1}
	}
	var got any
	ok := passed && decode([]byte(answer), &got) == nil
	f := &Fields{}
	leaves(want, "", func(ptr string, w any) {
		f.Compared++
		if g, found := at(got, ptr); ok && found && equal(g, w) {
			f.Matched++
		} else {
			f.Wrong = append(f.Wrong, ptr)
		}
	})
	slices.Sort(f.Wrong)
	return f
}

// decode reads JSON keeping numbers exact.
func decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// leaves calls f for each leaf of v with its JSON Pointer: scalars, and
// empty objects and arrays.
func leaves(v any, ptr string, f func(string, any)) {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			f(ptr, v)
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			leaves(v[k], ptr+"/"+escape(k), f)
		}
	case []any:
		if len(v) == 0 {
			f(ptr, v)
		}
		for i, e := range v {
			leaves(e, ptr+"/"+strconv.Itoa(i), f)
		}
	default:
		f(ptr, v)
	}
}

// at is the value at ptr in v.
func at(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			e, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// equal is JSON equality of two decoded values: numbers by value.
func equal(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		b, ok := b.(json.Number)
		return ok && sameNumber(a, b)
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if w, ok := b[k]; !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// sameNumber compares two JSON numbers by exact value: 1, 1.0 and 1e0
// are one; 9007199254740993 is not 9007199254740992.
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, ok1 := new(big.Rat).SetString(string(a))
	y, ok2 := new(big.Rat).SetString(string(b))
	return ok1 && ok2 && x.Cmp(y) == 0
}
