package label

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// A Set is the labels of a choice, in order, each distinct in case and
// canonical form (fold.go).
type Set struct {
	// Multi: the answer is a set of labels, not one.
	Multi bool
	// Names and Descs are each label's name and description.
	Names, Descs []string
	has          map[string]struct{}
	// keys is each label's keys (fold.go), for the near-miss repair.
	keys [][folds]string
}

// New returns the Set of names and descs (one each), for the contract
// what ("Choice", "MultiLabel"); its error, a label that is invalid or
// not distinct in simple case folding and canonical form (café written
// with é or with e and U+0301), is the reason to refuse it, quoting a name
// clipped to clip bytes.
func New(what string, multi bool, names, descs []string, clip int) (*Set, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("%s needs at least one label", what)
	}
	s := &Set{Multi: multi, Names: names, Descs: descs, has: make(map[string]struct{}, len(names))}
	folded := make(map[string]string, len(names))
	for i, name := range names {
		if err := check(name); err != nil {
			return nil, fmt.Errorf("%s: label %d (%s) %w", what, i+1, strconv.Quote(jsonvalue.Clip(name, clip)), err)
		}
		k := keys(name)
		if prev, dup := folded[k[simpleFold]]; dup {
			return nil, fmt.Errorf("%s: labels %s and %s differ only in case or in how their letters are composed, if at all: the answer could not tell them apart", what, strconv.Quote(jsonvalue.Clip(prev, clip)), strconv.Quote(jsonvalue.Clip(name, clip)))
		}
		folded[k[simpleFold]] = name
		s.has[name] = struct{}{}
		s.keys = append(s.keys, k)
	}
	return s, nil
}

// check says what is wrong with a label's name, or nil.
func check(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("is empty")
	case !utf8.ValidString(name):
		return fmt.Errorf("is not valid UTF-8")
	case name[0] == '"' || name[0] == '[' || name[0] == '{':
		return fmt.Errorf("begins with %q, which begins a JSON answer", name[0])
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("has whitespace around it")
	}
	for _, r := range name {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return fmt.Errorf("holds %U, which an answer cannot be told apart by", r)
		}
	}
	return nil
}

// Has reports whether name is one of the labels, exactly.
func (s *Set) Has(name string) bool {
	_, ok := s.has[name]
	return ok
}

// Member is the object form's one member: "label", or "labels".
func (s *Set) Member() string {
	if s.Multi {
		return "labels"
	}
	return "label"
}

// Schemas returns the JSON Schema of the object form, the labels
// described, and of the label itself (or the array of labels).
func (s *Set) Schemas() (object, value string) {
	enum, _ := json.Marshal(s.Names)
	item := `{"type":"string","enum":` + string(enum) + `}`
	value = item
	prop := `{"type":"string","enum":` + string(enum) + `,"description":` + jsonvalue.Quote(s.describe()) + `}`
	if s.Multi {
		value = `{"type":"array","items":` + item + `,"uniqueItems":true,"minItems":1}`
		prop = `{"type":"array","items":` + item + `,"uniqueItems":true,"minItems":1,"description":` + jsonvalue.Quote(s.describe()) + `}`
	}
	object = `{"type":"object","properties":{"` + s.Member() + `":` + prop + `},"required":["` + s.Member() + `"],"additionalProperties":false}`
	return object, value
}

// ValueOf is the value JSON for v, the JSON of one label's value (a
// string, number, literal): for a Multi set, a set of it.
func (s *Set) ValueOf(v string) string {
	if s.Multi {
		return "[" + v + "]"
	}
	return v
}

// Mend returns js, the label's value or (object) the object form, with
// each string that is a near-miss of exactly one label written as that
// label; false when none is.
func (s *Set) Mend(js string, object bool) (string, bool) {
	var doc any
	if json.Unmarshal([]byte(js), &doc) != nil {
		return "", false
	}
	changed := false
	fix := func(v any) any {
		if str, ok := v.(string); ok {
			if l, ok := s.NearMiss(str); ok && l != str {
				changed = true
				return l
			}
		}
		return v
	}
	fixAll := func(v any) any {
		if !s.Multi {
			return fix(v)
		}
		items, ok := v.([]any)
		if !ok {
			return v
		}
		for i := range items {
			items[i] = fix(items[i])
		}
		return items
	}
	if object {
		obj := doc.(map[string]any)
		if v, ok := obj[s.Member()]; ok {
			obj[s.Member()] = fixAll(v)
		}
	} else {
		doc = fixAll(doc)
	}
	if !changed {
		return "", false
	}
	b, err := json.Marshal(doc)
	return string(b), err == nil
}

// NearMiss returns the one label str spells in another case (simple
// folding), with whitespace around it or a trailing full stop; false
// when it spells none, or when another label is the same as it under
// any fold fold.go considers (KIT, with kit and kıt).
func (s *Set) NearMiss(str string) (string, bool) {
	t := strings.TrimSpace(str)
	words := []string{t}
	if stop, ok := strings.CutSuffix(t, "."); ok {
		words = append(words, stop)
	}
	var ks [2][folds]string
	for i, w := range words {
		ks[i] = keys(w)
	}
	found, n := "", 0
	for i, name := range s.Names {
		spelled, reached := false, false
		for j, w := range words {
			spelled = spelled || strings.EqualFold(w, name)
			for f := range folds {
				reached = reached || ks[j][f] == s.keys[i][f]
			}
		}
		if spelled {
			found = name
		}
		if spelled || reached {
			n++
		}
	}
	return found, found != "" && n == 1
}

// Read reads answer: the JSON judged and whether it is the object form
// (else the label's value, or the labels'), or the parser's error on an
// answer that begins (after whitespace) with a quote, [ or { and is not
// one JSON value. Any other answer is the label itself: a number or a
// literal as that JSON value, other text as a string.
func (s *Set) Read(answer string) (js string, object bool, err error) {
	if s.Has(answer) {
		return s.ValueOf(jsonvalue.Quote(answer)), false, nil
	}
	i := 0
	for i < len(answer) && jsonvalue.IsSpace(answer[i]) {
		i++
	}
	if i < len(answer) && (answer[i] == '"' || answer[i] == '[' || answer[i] == '{') {
		doc, err := jsonvalue.Parse(answer)
		if err != nil {
			return "", false, err
		}
		switch doc.(type) {
		case map[string]any:
			return answer, true, nil
		case []any:
			return answer, false, nil // for a single label, an issue of type
		}
		return s.ValueOf(answer), false, nil
	}
	if _, err := jsonvalue.Parse(answer); err == nil {
		return s.ValueOf(answer), false, nil // a number or a literal: an issue of type
	}
	return s.ValueOf(jsonvalue.Quote(answer)), false, nil
}

// Value returns the JSON value answer reads as (the label's, or the
// labels'), mended when fold (the label repair) and a near-miss is; false
// when it reads as none.
func (s *Set) Value(answer string, fold bool) (string, bool) {
	js, object, err := s.Read(answer)
	if err != nil {
		return "", false
	}
	if object {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(js), &obj) != nil {
			return "", false
		}
		v, ok := obj[s.Member()]
		if !ok {
			return "", false
		}
		js = string(v)
	}
	if fold {
		if mended, ok := s.Mend(js, false); ok {
			js = mended
		}
	}
	return js, true
}
