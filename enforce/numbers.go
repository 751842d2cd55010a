package enforce

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// countValue accepts a non-negative integer, also written as 2.0.
func countValue(v any) (json.Number, error) {
	n, ok := v.(json.Number)
	if !ok {
		return "", fmt.Errorf("must be a non-negative integer, not %s", jsonKind(v))
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
		return "", fmt.Errorf("must be a non-negative integer, not %s", n)
	}
	return json.Number(r.Num().String()), nil
}

// canonicalizeInPlace is canonicalNumbers for a tree the caller owns: it
// rewrites numbers where they stand, and writes only those that change.
func canonicalizeInPlace(v any) any {
	switch v := v.(type) {
	case json.Number:
		return canonicalNumber(v)
	case []any:
		for i, e := range v {
			switch e := e.(type) {
			case json.Number:
				if c := canonicalNumber(e); c != e {
					v[i] = c
				}
			case []any, map[string]any:
				canonicalizeInPlace(e)
			}
		}
	case map[string]any:
		for k, e := range v {
			switch e := e.(type) {
			case json.Number:
				if c := canonicalNumber(e); c != e {
					v[k] = c
				}
			case []any, map[string]any:
				canonicalizeInPlace(e)
			}
		}
	}
	return v
}

// holdsNumber reports whether v is or contains a number.
func holdsNumber(v any) bool {
	switch v := v.(type) {
	case json.Number:
		return true
	case []any:
		for _, e := range v {
			if holdsNumber(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if holdsNumber(e) {
				return true
			}
		}
	}
	return false
}

// canonicalNumbers rewrites numbers so that equal values are spelled the
// same: gojsonschema compares enum, const and uniqueItems members by
// their JSON text, which would tell 1 from 1.0.
func canonicalNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		return canonicalNumber(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = canonicalNumbers(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = canonicalNumbers(e)
		}
		return out
	}
	return v
}

func canonicalNumber(n json.Number) json.Number {
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

// beyondFloat64 returns the JSON Pointer of the first number in v (members
// in name order) too large for a float64, which gojsonschema cannot
// compare for enum, const or uniqueItems: it panics on one.
func beyondFloat64(v any, ptr string) (string, bool) {
	switch v := v.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(v), 64); err != nil {
			return ptr, true
		}
	case []any:
		for i, e := range v {
			if p, ok := beyondFloat64(e, ptr+"/"+strconv.Itoa(i)); ok {
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
			if p, ok := beyondFloat64(v[k], ptr+"/"+escapePointer(k)); ok {
				return p, true
			}
		}
	}
	return "", false
}
