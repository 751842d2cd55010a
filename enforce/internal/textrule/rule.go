package textrule

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Rule is one rule of a text: its Keyword ("minLength", "maxLength",
// "minBytes", "maxBytes", "pattern", "mustContain", "mustNotContain"),
// with its bound N or its string S.
type Rule struct {
	Keyword string
	N       int
	S       string
	re      *regexp.Regexp
}

// A Set is rules compiled: they run in order on the whole text.
type Set struct {
	rules []Rule
	// maxRunes and maxBytes are the MaxLength and MaxBytes limits (-1:
	// none), and forbidden the MustNotContain strings: what can fail a
	// streamed text before it ends.
	maxRunes, maxBytes int
	forbidden          []string
}

// An Error says why rules do not compile: the rule's keyword (or "")
// and the reason.
type Error struct{ Keyword, Reason string }

func (e *Error) Error() string { return e.Reason }

// Compile returns the Set of rules, or an *Error naming the rule that
// has a negative bound, an empty substring or a pattern that does not
// compile, is the zero Rule, or is a minimum above the maximum of its
// unit.
func Compile(rules []Rule) (*Set, error) {
	t := &Set{rules: make([]Rule, 0, len(rules)), maxRunes: -1, maxBytes: -1}
	minRunes, minBytes := -1, -1
	for i, r := range rules {
		bad := func(why string) error {
			return &Error{Keyword: r.Keyword, Reason: fmt.Sprintf("Text: rule %d: %s", i+1, why)}
		}
		switch r.Keyword {
		case "minLength", "maxLength", "minBytes", "maxBytes":
			if r.N < 0 {
				return nil, bad(fmt.Sprintf("a negative bound, %d", r.N))
			}
			switch r.Keyword {
			case "minLength":
				minRunes = max(minRunes, r.N)
			case "maxLength":
				t.maxRunes = tighter(t.maxRunes, r.N)
			case "minBytes":
				minBytes = max(minBytes, r.N)
			default:
				t.maxBytes = tighter(t.maxBytes, r.N)
			}
		case "pattern":
			re, err := regexp.Compile(r.S)
			if err != nil {
				return nil, bad(fmt.Sprintf("the pattern does not compile: %v", err))
			}
			r.re = re
		case "mustContain", "mustNotContain":
			if r.S == "" {
				return nil, bad("an empty substring")
			}
			if r.Keyword == "mustNotContain" {
				t.forbidden = append(t.forbidden, r.S)
			}
		default:
			return nil, &Error{Reason: fmt.Sprintf("Text: rule %d is the zero TextRule (make rules with MaxLength, Pattern, …)", i+1)}
		}
		t.rules = append(t.rules, r)
	}
	switch {
	case t.maxRunes >= 0 && minRunes > t.maxRunes:
		return nil, &Error{Keyword: "minLength", Reason: fmt.Sprintf("Text: MinLength(%d) is above MaxLength(%d): no text keeps both", minRunes, t.maxRunes)}
	case t.maxBytes >= 0 && minBytes > t.maxBytes:
		return nil, &Error{Keyword: "minBytes", Reason: fmt.Sprintf("Text: MinBytes(%d) is above MaxBytes(%d): no text keeps both", minBytes, t.maxBytes)}
	}
	return t, nil
}

// tighter is the lower of two limits, -1 meaning none.
func tighter(limit, n int) int {
	if limit < 0 {
		return n
	}
	return min(limit, n)
}

// A Broken is a rule a text breaks: its keyword, and the message of the
// issue (the text's own words, not yet quoted).
type Broken struct{ Keyword, Message string }

// Broken returns the rules text breaks, in order: first, invalid UTF-8
// (keyword "utf8").
func (t *Set) Broken(text string) []Broken {
	var out []Broken
	if !utf8.ValidString(text) {
		out = append(out, Broken{"utf8", "the text is not valid UTF-8"})
	}
	for _, r := range t.rules {
		if msg := r.broken(text); msg != "" {
			out = append(out, Broken{r.Keyword, msg})
		}
	}
	return out
}

// broken is the message when text breaks r, "" when it keeps
// it. A rule a stream may fail early says nothing of the text beyond the
// rule, so that every longer text breaks it with the same message.
func (r Rule) broken(text string) string {
	switch r.Keyword {
	case "minLength":
		if n := utf8.RuneCountInString(text); n < r.N {
			return fmt.Sprintf("the text is %d characters long, fewer than the %d it must have", n, r.N)
		}
	case "maxLength":
		if utf8.RuneCountInString(text) > r.N {
			return fmt.Sprintf("the text is longer than %d characters (Unicode code points): shorten it", r.N)
		}
	case "minBytes":
		if len(text) < r.N {
			return fmt.Sprintf("the text is %d bytes long, fewer than the %d it must have", len(text), r.N)
		}
	case "maxBytes":
		if len(text) > r.N {
			return fmt.Sprintf("the text is longer than %d bytes of UTF-8: shorten it", r.N)
		}
	case "pattern":
		if !r.re.MatchString(text) {
			return "the text does not match the regular expression " + strconv.Quote(r.S)
		}
	case "mustContain":
		if !strings.Contains(text, r.S) {
			return "the text does not contain " + strconv.Quote(r.S) + ", which it must"
		}
	case "mustNotContain":
		if strings.Contains(text, r.S) {
			return "the text contains " + strconv.Quote(r.S) + ", which it must not"
		}
	}
	return ""
}

// Instructions is the rules in words, for a model's prompt.
func (t *Set) Instructions() string {
	var b strings.Builder
	b.WriteString("Your final answer is plain text, not JSON. Reply with only the text itself")
	if len(t.rules) == 0 {
		b.WriteString(".")
		return b.String()
	}
	b.WriteString(", held to these rules:")
	for _, r := range t.rules {
		b.WriteString("\n- ")
		switch r.Keyword {
		case "minLength":
			fmt.Fprintf(&b, "at least %d characters", r.N)
		case "maxLength":
			fmt.Fprintf(&b, "at most %d characters", r.N)
		case "minBytes":
			fmt.Fprintf(&b, "at least %d bytes of UTF-8", r.N)
		case "maxBytes":
			fmt.Fprintf(&b, "at most %d bytes of UTF-8", r.N)
		case "pattern":
			b.WriteString("it matches the regular expression " + strconv.Quote(r.S) + " (Go syntax)")
		case "mustContain":
			b.WriteString("it contains " + strconv.Quote(r.S) + ", exactly so")
		case "mustNotContain":
			b.WriteString("it does not contain " + strconv.Quote(r.S))
		}
	}
	return b.String()
}
