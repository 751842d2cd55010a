package repair

import (
	"encoding/json"
	"strconv"
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
	// doubt: the value before is offered as unsure ("maybe", "not sure").
	doubt
	// opening: a word that offers another value where a clause begins
	// with it ("— or Lyon"), and is an ordinary word elsewhere ("updates
	// or patches").
	opening
	// between: a word that makes values alternatives, or takes one back,
	// where a clause between two values begins with it ("If Paris is
	// full, {…}", "No, call this: {…}"), and in the text around a single
	// value is an ordinary word ("No problem! Here is the JSON").
	between
)

// secondReading lists the words of each class, in English, the language
// of the prose models write around JSON: a closed list, matched as whole
// words in any case. A word a task describes (a function named
// get_or_create) is one word, and no match.
var secondReading = map[string]wordClass{
	"wait": retract, "actually": retract, "sorry": retract, "oops": retract,
	"mistake": retract, "mistaken": retract, "wrong": retract, "correction": retract,
	"corrected": retract, "scratch": retract, "disregard": retract, "retract": retract,
	"ignore": retract, "incorrect": retract, "meant": retract, "typo": retract,
	"erroneous": retract, "hmm": retract,
	"instead": alternative, "alternatively": alternative, "alternative": alternative,
	"alternatives": alternative, "otherwise": alternative,
	// Words that set values side by side only where a clause begins with
	// them ("or, if Paris is full"), and are ordinary words elsewhere
	// ("updates or patches").
	"or": opening, "rather": opening, "either": between, "option": between, "options": between,
	"choice": between, "vs": between, "versus": between, "if": between, "unless": between,
	"replace": between, "no": between, "but": between, "though": between, "although": between,
	"again": restate, "repeat": restate, "repeated": restate, "restate": restate, "restated": restate,
	"template": template, "placeholder": template, "placeholders": template,
	"example": template, "examples": template, "form": template, "skeleton": template,
	"maybe": doubt, "perhaps": doubt, "possibly": doubt, "unsure": doubt,
	"uncertain": doubt, "guess": doubt,
}

// saysSecondReading reports whether text holds a word of the classes of
// in (or the abbreviations "i.e.", a restatement, and "e.g.", a
// template).
func saysSecondReading(text string, in wordClass) bool {
	clause, prev := true, ""
	for i := 0; i < len(text); {
		if !wordByte(text[i]) {
			switch text[i] {
			case '\n', '.', ':', ';', '!', '?', '(', ')':
				clause = true
			}
			i++
			continue
		}
		j := i
		for j < len(text) && wordByte(text[j]) {
			j++
		}
		w := text[i:j]
		if w == "—" || w == "–" { // a dash, a byte past ASCII like a word's
			clause, i = true, j
			continue
		}
		lw := strings.ToLower(w)
		c := secondReading[lw]
		if len(w) <= 13 && c&in != 0 && (c&(opening|between) == 0 || clause) {
			return true
		}
		if in&doubt != 0 && (lw == "sure" || lw == "certain") && prev == "not" {
			return true // "not sure", "I'm not certain"
		}
		clause, prev = false, lw
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

// setOut reports whether the values cands of text are set out as the
// parts of one list, in a way no language's words are needed to read:
// after whatever text comes before the first, each gap between two values
// holds nothing but space, commas, semicolons, fences and list markers (a
// part's values), or begins the next part by its number ("2.", "Call 3:",
// "the second", a greater number than the last) or a word of sequence
// ("Then:"). Values with other text between them may be alternatives in
// words no list knows ("ou plutôt"): a second reading.
func setOut(text string, cands []candidate) bool {
	n, _ := partNumber(text[:cands[0].start], 0)
	n = max(n, 1) // the first value is the first part, numbered or not
	for i, c := range cands[1:] {
		gap := text[cands[i].end:c.start]
		if bareGap(gap) {
			continue
		}
		m, ok := partNumber(gap, n)
		if !ok {
			return false
		}
		n = m
	}
	return true
}

// bareGap reports whether gap holds nothing but space, commas,
// semicolons, list markers and fences (with an info string).
func bareGap(gap string) bool {
	for i := 0; i < len(gap); i++ {
		switch c := gap[i]; c {
		case ' ', '\t', '\r', '\n', ',', ';', '-', '*', '+':
		case '`', '~':
			for i+1 < len(gap) && gap[i+1] == c {
				i++
			}
			for i+1 < len(gap) && wordByte(gap[i+1]) {
				i++ // the fence's info string: json
			}
		default:
			return false
		}
	}
	return true
}

// ordinals are the English words for the first ten places.
var ordinals = [...]string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}

// sequence are the English words that begin a list's next part where a
// clause begins with them ("Then:", "Next we need:"). A list of what
// allows, not of what refuses: a word it lacks leaves the values alone.
var sequence = [...]string{"then", "next", "also", "and", "finally", "lastly", "additionally", "afterwards"}

// partNumber reads the number by which gap, the text before a list's
// next part, begins it, where n parts were numbered before: a number past
// n as a word of its own followed by '.', ')' or ':' ("2.", "Call 3:"), an
// ordinal word past n ("the second"), or, past the first, a word of
// sequence where a clause begins ("Then:", n+1).
func partNumber(gap string, n int) (int, bool) {
	clause := true
	for i := 0; i < len(gap); {
		if !wordByte(gap[i]) {
			switch gap[i] {
			case '\n', '.', ':', ';', '!', '?', '(', ')':
				clause = true
			}
			i++
			continue
		}
		j := i
		for j < len(gap) && wordByte(gap[j]) {
			j++
		}
		w := gap[i:j]
		if m, err := strconv.Atoi(w); err == nil && m > n && m < 1000 && j < len(gap) && (gap[j] == '.' || gap[j] == ')' || gap[j] == ':') {
			return m, true
		}
		for k, o := range ordinals {
			if k+1 > n && strings.EqualFold(w, o) {
				return k + 1, true
			}
		}
		if n > 0 && clause {
			for _, s := range sequence {
				if strings.EqualFold(w, s) {
					return n + 1, true
				}
			}
		}
		clause, i = false, j
	}
	return n, false
}
