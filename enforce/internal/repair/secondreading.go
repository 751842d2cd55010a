package repair

import (
	"encoding/json"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// The prose and gather repairs act only when the text has one reading
// (enforce's ledger guide states the rule). This file holds what tells a
// second reading: a start of a value that is no candidate, the words that
// take a value back or set values side by side, and values that are a
// template or a restatement.

// looksLikeValue reports whether the bracket at text[i] begins what a
// model writes as a JSON value (in JSON or the relaxed syntax), as prose
// brackets ("[see below]", "[(3/3)x^3]", "{x}") do not: a '{' before a
// quote, a '}', or a name and a colon; a '[' before a bracket, a quote,
// or a number or literal and a comma or ']'; either before the end of the
// text (a value cut off).
func looksLikeValue(text string, i int) bool {
	j := skipSpace(text, i+1)
	if j == len(text) {
		return true
	}
	c := text[j]
	if text[i] == '{' {
		switch {
		case c == '"' || c == '\'' || c == '}':
			return true
		case IdentByte(c):
			k := j
			for k < len(text) && k-j < 256 && IdentByte(text[k]) {
				k++
			}
			k = skipSpace(text, k)
			return k == len(text) || text[k] == ':'
		}
		return false
	}
	switch {
	case c == '{' || c == '[' || c == '"' || c == '\'' || c == ']':
		return true
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		k := j
		for k < len(text) && k-j < 64 && (IdentByte(text[k]) || text[k] == '.' || text[k] == '+') {
			k++
		}
		if tok := text[j:k]; tok != "true" && tok != "false" && tok != "null" && !validJSON(tok) {
			return false
		}
		k = skipSpace(text, k)
		return k == len(text) || text[k] == ',' || text[k] == ']'
	}
	return false
}

func skipSpace(text string, i int) int {
	for i < len(text) && jsonvalue.IsSpace(text[i]) {
		i++
	}
	return i
}

// A wordClass is a kind of words that make a second reading of the
// values they stand beside.
type wordClass uint8

const (
	// retract: the value before is taken back ("Wait, that's wrong").
	retract wordClass = 1 << iota
	// alternative: the values are choices, not parts ("or, instead").
	alternative
	// restate: a value is said again ("call 1 again", "i.e.").
	restate
	// template: a value shows a form, not an answer ("for example").
	template
)

// secondReading lists the words of each class, in English, the language
// of the prose models write around JSON: a closed list, matched as whole
// words in any case. A word a task describes (a function named
// get_or_create) is one word, and no match.
var secondReading = map[string]wordClass{
	"wait": retract, "actually": retract, "sorry": retract, "oops": retract,
	"mistake": retract, "mistaken": retract, "wrong": retract, "correction": retract,
	"corrected": retract, "scratch": retract, "disregard": retract, "retract": retract,
	"or": alternative, "instead": alternative, "rather": alternative, "otherwise": alternative,
	"alternatively": alternative, "alternative": alternative,
	"again": restate, "repeat": restate, "repeated": restate, "restate": restate, "restated": restate,
	"template": template, "placeholder": template, "placeholders": template,
	"example": template, "examples": template, "form": template, "skeleton": template,
}

// saysSecondReading reports whether text holds a word of the classes of
// in (or the abbreviations "i.e.", a restatement, and "e.g.", a
// template).
func saysSecondReading(text string, in wordClass) bool {
	for i := 0; i < len(text); {
		if !wordByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && wordByte(text[j]) {
			j++
		}
		w := text[i:j]
		if len(w) <= 13 && secondReading[strings.ToLower(w)]&in != 0 {
			return true
		}
		if len(w) == 1 && j+3 <= len(text) && text[j] == '.' && text[j+2] == '.' {
			switch strings.ToLower(text[i : j+3]) {
			case "i.e.":
				if in&restate != 0 {
					return true
				}
			case "e.g.":
				if in&template != 0 {
					return true
				}
			}
		}
		i = j
	}
	return false
}

// wordByte reports whether c is part of a word: a letter, a digit, '_',
// or a byte of a character past ASCII.
func wordByte(c byte) bool {
	return c == '_' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// templateOrRestated reports whether the items of the JSON array a (a
// gathered array) hold a placeholder ("<function>", "{city}", "...") —
// a template of a call, not a call — or one item twice, a restatement:
// either is a second reading of the values gathered. An array that does
// not decode counts as both.
func templateOrRestated(a string) bool {
	var items []any
	if json.Unmarshal([]byte(a), &items) != nil {
		return true
	}
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		if holdsPlaceholder(it) {
			return true
		}
		b, err := json.Marshal(it) // member order and spelling aside
		if err != nil || seen[string(b)] {
			return true
		}
		seen[string(b)] = true
	}
	return false
}

// holdsPlaceholder reports whether v, or a member name or string in it,
// is a placeholder.
func holdsPlaceholder(v any) bool {
	switch v := v.(type) {
	case string:
		return placeholder(v)
	case []any:
		for _, it := range v {
			if holdsPlaceholder(it) {
				return true
			}
		}
	case map[string]any:
		for k, it := range v {
			if placeholder(k) || holdsPlaceholder(it) {
				return true
			}
		}
	}
	return false
}

// placeholder reports whether s stands for a value to be filled in: an
// ellipsis, or a name in angle brackets or braces ("<function>",
// "{city}", "{{name}}").
func placeholder(s string) bool {
	s = strings.TrimSpace(s)
	if s == "..." || s == "…" {
		return true
	}
	if len(s) < 3 {
		return false
	}
	open, end := s[0], s[len(s)-1]
	if !(open == '<' && end == '>') && !(open == '{' && end == '}') {
		return false
	}
	inner := strings.Trim(s, "<>{}")
	if inner == "" {
		return false
	}
	for i := 0; i < len(inner); i++ {
		if c := inner[i]; !wordByte(c) && c != ' ' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}
