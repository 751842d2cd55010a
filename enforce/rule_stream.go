package enforce

import (
	"strconv"
	"unicode/utf8"
)

// A rule is prefix-sound when it can say, of a text still streaming,
// that it is broken whatever follows: ForbiddenWords is, once the rune
// after a word shows the word whole. Such rules hold a text answer
// ([Text]) as it streams ([Schema.StreamValidating]), and the answer is
// cut at the byte that breaks one.

// prefixJudge reports the first finding in text, a prefix of a string
// that may yet grow, that no continuation can undo: the length of text
// up to and including the byte that makes it sure, and its message, as
// the rule's check gives it on any text text begins. end is -1 when
// there is none. Nothing is sure before from (bytes judged before): a
// judge may read only what lies near and after it.
type prefixJudge func(text string, from int) (end int, msg string)

// newPrefixJudge returns a judge for one text as it grows: it may keep
// what it read between calls, for the text passed to it only grows.
type newPrefixJudge func() prefixJudge

// streamRules is t's stream, held also to s's prefix-sound rules that
// retry (a warning or a fix accepts the answer; a tripwire judges it
// whole) and judge the whole text.
func (t *text) streamRules(s *Schema) *kindStream {
	ks := t.stream(s)
	var rules []Validator
	for _, v := range s.validators {
		if v.prefix != nil && (!v.pointed || v.at == "") && (v.policy == "" || v.policy == PolicyRetry) {
			rules = append(rules, v)
		}
	}
	if len(rules) == 0 {
		return ks
	}
	judges := make([]prefixJudge, len(rules))
	for i, v := range rules {
		judges[i] = v.prefix()
	}
	read, judged := ks.read, 0
	ks.read = func(p string) (int, error) {
		n, err := read(p)
		text := ks.text()
		base := len(text) - n
		best, msg, name := -1, "", ""
		for i, v := range rules {
			if end, m := judges[i](text, judged); end >= 0 && (best < 0 || end < best) {
				best, msg, name = end, m, v.name
			}
		}
		judged = len(text)
		if best < 0 || err != nil && best > len(text) {
			return n, err
		}
		// The rule's issue, as its check will give it at the answer's
		// end: at the root, the rule's name its keyword.
		return best - base, &CheckError{Stage: StageSchemaValidate, words: textWords,
			Issues: []Issue{{Keyword: name, Message: msg}}}
	}
	return ks
}

// forbiddenPrefix is ForbiddenWords' prefixJudge: a word found whole in
// the text, its end sure where the word ends in a rune that is no
// letter, digit or mark, else at the rune after it, once that is one.
func forbiddenPrefix(words [][]rune, kept []string) prefixJudge {
	longest := 0
	for _, w := range words {
		longest = max(longest, len(w))
	}
	return func(text string, from int) (int, string) {
		// A rune cut off at the end is not yet read.
		for k := len(text) - 1; k >= 0 && k >= len(text)-utf8.UTFMax; k-- {
			if utf8.RuneStart(text[k]) {
				if !utf8.FullRuneInString(text[k:]) {
					text = text[:k]
				}
				break
			}
		}
		// A finding sure after from begins at most a word and a rune
		// before it; one rune more shows what precedes the word.
		start := max(0, from-(longest+2)*utf8.UTFMax)
		for start > 0 && !utf8.RuneStart(text[start]) {
			start--
		}
		runes := foldRunes(text[start:])
		offs := make([]int, 0, len(runes)+1)
		for i := range text[start:] {
			offs = append(offs, start+i)
		}
		offs = append(offs, len(text))
		best, msg := -1, ""
		for i := range runes {
			if i == 0 && start > 0 {
				continue // its rune before lies outside the window
			}
			for k, w := range words {
				e := i + len(w)
				if e > len(runes) || !equalRunes(runes[i:e], w) || wordRune(w[0]) && i > 0 && wordRune(runes[i-1]) {
					continue
				}
				sure, last := offs[e], e
				if wordRune(w[len(w)-1]) {
					if e == len(runes) || wordRune(runes[e]) {
						continue // not yet whole, or inside a longer word
					}
					sure, last = offs[e+1], e+1
				}
				if invalidIn(runes[i:last], offs[i:last+1]) {
					// A byte that is no rune is known for one only by
					// the byte after it; such a text fails the schema
					// anyway, and rules never judge it.
					continue
				}
				if best < 0 || sure < best {
					best, msg = sure, "forbidden word "+strconv.Quote(kept[k])
				}
			}
		}
		return best, msg
	}
}

// invalidIn reports whether runes, beginning at the byte offsets offs
// (one more, the end), hold a byte that is no rune.
func invalidIn(runes []rune, offs []int) bool {
	for i, r := range runes {
		if r == utf8.RuneError && offs[i+1]-offs[i] != len(string(utf8.RuneError)) {
			return true
		}
	}
	return false
}
