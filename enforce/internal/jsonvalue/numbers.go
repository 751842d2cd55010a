package jsonvalue

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// CanonicalizeInPlace is CanonicalNumbers for a tree the caller owns: it
// rewrites numbers where they stand, and writes only those that change.
func CanonicalizeInPlace(v any) any {
	switch v := v.(type) {
	case json.Number:
		return CanonicalNumber(v)
	case []any:
		for i, e := range v {
			switch e := e.(type) {
			case json.Number:
				if c := CanonicalNumber(e); c != e {
					v[i] = c
				}
			case []any, map[string]any:
				CanonicalizeInPlace(e)
			}
		}
	case map[string]any:
		for k, e := range v {
			switch e := e.(type) {
			case json.Number:
				if c := CanonicalNumber(e); c != e {
					v[k] = c
				}
			case []any, map[string]any:
				CanonicalizeInPlace(e)
			}
		}
	}
	return v
}

// HoldsNumber reports whether v is or contains a number.
func HoldsNumber(v any) bool {
	switch v := v.(type) {
	case json.Number:
		return true
	case []any:
		for _, e := range v {
			if HoldsNumber(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if HoldsNumber(e) {
				return true
			}
		}
	}
	return false
}

// CanonicalNumbers rewrites numbers so that equal values are spelled the
// same: gojsonschema compares enum, const and uniqueItems members by
// their JSON text, which would tell 1 from 1.0.
func CanonicalNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		return CanonicalNumber(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = CanonicalNumbers(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = CanonicalNumbers(e)
		}
		return out
	}
	return v
}

func CanonicalNumber(n json.Number) json.Number {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if s == "-0" {
			return "0"
		}
		return n
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return n
	}
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	if f, exact := r.Float64(); exact {
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return n
}

// BeyondFloat64 returns the JSON Pointer of the first number in v (members
// in name order) too large for a float64, which gojsonschema cannot
// compare for enum, const or uniqueItems: it panics on one.
func BeyondFloat64(v any, ptr string) (string, bool) {
	switch v := v.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(v), 64); err != nil {
			return ptr, true
		}
	case []any:
		for i, e := range v {
			if p, ok := BeyondFloat64(e, ptr+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			if p, ok := BeyondFloat64(v[k], ptr+"/"+EscapePointer(k)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// Kind names the JSON type of v, a value of a parsed tree, for a
// message.
func Kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
