package enforce

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TextRule is one rule a [Text] answer is held to. Make one with
// [MinLength], [MaxLength], [MinBytes], [MaxBytes], [Pattern],
// [MustContain] or [MustNotContain]; the zero TextRule is invalid.
type TextRule struct {
	keyword string // the rule's name, its issues' Keyword
	n       int
	s       string
	re      *regexp.Regexp
}

// MinLength holds the text to at least n characters (Unicode code
// points, as JSON Schema's minLength counts them; an invalid UTF-8 byte
// counts one).
func MinLength(n int) TextRule { return TextRule{keyword: "minLength", n: n} }

// MaxLength holds the text to at most n characters (Unicode code
// points). A streamed answer fails at the first byte of its character
// n+1.
func MaxLength(n int) TextRule { return TextRule{keyword: "maxLength", n: n} }

// MinBytes holds the text to at least n bytes of UTF-8.
func MinBytes(n int) TextRule { return TextRule{keyword: "minBytes", n: n} }

// MaxBytes holds the text to at most n bytes of UTF-8. A streamed answer
// fails at byte n+1.
func MaxBytes(n int) TextRule { return TextRule{keyword: "maxBytes", n: n} }

// Pattern holds the text to a Go regular expression (package regexp's
// RE2 syntax, not ECMA 262), which must match somewhere in it, as JSON
// Schema's pattern must: anchor it with ^ and $ (and (?s) to let . match
// a newline) to match the whole text.
func Pattern(expr string) TextRule { return TextRule{keyword: "pattern", s: expr} }

// MustContain holds the text to containing s, byte for byte (case
// matters).
func MustContain(s string) TextRule { return TextRule{keyword: "mustContain", s: s} }

// MustNotContain holds the text to not containing s, byte for byte. A
// streamed answer fails at the byte that completes s, wherever the
// pieces it arrived in split it.
func MustNotContain(s string) TextRule { return TextRule{keyword: "mustNotContain", s: s} }

// text is the reading of a Text.
type text struct {
	rules []TextRule
	// most are the MaxLength and MaxBytes limits (-1: none), and
	// forbidden the MustNotContain strings: what can fail a streamed
	// answer before it ends.
	maxRunes, maxBytes int
	forbidden          []string
	instr              string
}

// Text returns the contract of a plain-text answer (no JSON) held to
// rules, which run in order on the whole answer as written: nothing is
// trimmed. Each broken rule is an issue at the root (""), its Keyword
// the rule's name ("maxLength", "mustNotContain", …), and all of them
// fail the answer at [StageSchemaValidate], the one stage a text has: it
// is read as one JSON string, so json-parse never fails. Invalid UTF-8
// is an issue too (keyword "utf8"); an answer longer than
// [Schema.MaxAnswerBytes] gets one issue, keyword "maxBytes", and is not
// read. Validators ([Schema.WithValidators]) get the text as a JSON
// string: [NewValidator] of string. As it streams ([Schema.Stream]), an
// answer fails at the byte that breaks a MaxLength, MaxBytes or
// MustNotContain rule. A rule with a negative bound, a MinLength or
// MinBytes above the Max of its unit, an empty substring, or a pattern
// that does not compile is a *[SchemaError] naming the rule.
func Text(rules ...TextRule) (*Schema, error) {
	t := &text{rules: make([]TextRule, 0, len(rules)), maxRunes: -1, maxBytes: -1}
	minRunes, minBytes := -1, -1
	for i, r := range rules {
		bad := func(why string) error {
			return &SchemaError{Keyword: r.keyword, Reason: fmt.Sprintf("Text: rule %d: %s", i+1, why)}
		}
		switch r.keyword {
		case "minLength", "maxLength", "minBytes", "maxBytes":
			if r.n < 0 {
				return nil, bad(fmt.Sprintf("a negative bound, %d", r.n))
			}
			switch r.keyword {
			case "minLength":
				minRunes = max(minRunes, r.n)
			case "maxLength":
				t.maxRunes = tighter(t.maxRunes, r.n)
			case "minBytes":
				minBytes = max(minBytes, r.n)
			default:
				t.maxBytes = tighter(t.maxBytes, r.n)
			}
		case "pattern":
			re, err := regexp.Compile(r.s)
			if err != nil {
				return nil, bad(fmt.Sprintf("the pattern does not compile: %v", err))
			}
			r.re = re
		case "mustContain", "mustNotContain":
			if r.s == "" {
				return nil, bad("an empty substring")
			}
			if r.keyword == "mustNotContain" {
				t.forbidden = append(t.forbidden, r.s)
			}
		default:
			return nil, &SchemaError{Reason: fmt.Sprintf("Text: rule %d is the zero TextRule (make rules with MaxLength, Pattern, …)", i+1)}
		}
		t.rules = append(t.rules, r)
	}
	switch {
	case t.maxRunes >= 0 && minRunes > t.maxRunes:
		return nil, &SchemaError{Keyword: "minLength", Reason: fmt.Sprintf("Text: MinLength(%d) is above MaxLength(%d): no text keeps both", minRunes, t.maxRunes)}
	case t.maxBytes >= 0 && minBytes > t.maxBytes:
		return nil, &SchemaError{Keyword: "minBytes", Reason: fmt.Sprintf("Text: MinBytes(%d) is above MaxBytes(%d): no text keeps both", minBytes, t.maxBytes)}
	}
	s, err := CompileSchema([]byte(`{"type":"string"}`))
	if err != nil {
		return nil, err
	}
	t.instr = t.newInstructions()
	s.reading = t
	return s, nil
}

// tighter is the lower of two limits, -1 meaning none.
func tighter(limit, n int) int {
	if limit < 0 {
		return n
	}
	return min(limit, n)
}

func (t *text) kind() Kind { return KindText }

var textWords = &kindWords{
	parse:      "Stage: schema-validate — the text breaks the rules it is held to.\n",
	validate:   "Stage: schema-validate — the text breaks the rules it is held to.\n",
	validators: "Stage: schema-validate — the text keeps its rules, but checks of its content failed.\n",
	reply:      "Reply with only the corrected text, nothing else.",
}

func (t *text) words() *kindWords { return textWords }

func (t *text) instructions() string { return t.instr }

func (t *text) judge(s *Schema, answer string) (string, Repairs, error) {
	if limit := s.maxAnswerBytes(); len(answer) > limit {
		return answer, 0, textTooLong(limit)
	}
	var issues []Issue
	if !utf8.ValidString(answer) {
		issues = append(issues, Issue{Keyword: "utf8", Message: "the text is not valid UTF-8"})
	}
	for _, r := range t.rules {
		if msg := r.broken(answer); msg != "" {
			issues = append(issues, Issue{Keyword: r.keyword, Message: quote(msg)})
		}
	}
	if len(issues) == 0 {
		return answer, 0, nil
	}
	return answer, 0, &CheckError{Stage: StageSchemaValidate, Issues: issues, words: textWords}
}

// textTooLong is the verdict on a text longer than limit. It does not
// name the text's length, so that a stream can give it at the first
// byte past the limit.
func textTooLong(limit int) *CheckError {
	return &CheckError{Stage: StageSchemaValidate, tooLong: true, words: textWords, Issues: []Issue{{Keyword: "maxBytes", Message: fmt.Sprintf(
		"the text is longer than the %d bytes the contract judges (MaxAnswerBytes, or Schema.WithMaxAnswerBytes): it was not read", limit)}}}
}

// broken is the issue's message when text breaks r, "" when it keeps
// it. A rule a stream may fail early says nothing of the text beyond the
// rule, so that every longer text breaks it with the same message.
func (r TextRule) broken(text string) string {
	switch r.keyword {
	case "minLength":
		if n := utf8.RuneCountInString(text); n < r.n {
			return fmt.Sprintf("the text is %d characters long, fewer than the %d it must have", n, r.n)
		}
	case "maxLength":
		if utf8.RuneCountInString(text) > r.n {
			return fmt.Sprintf("the text is longer than %d characters (Unicode code points): shorten it", r.n)
		}
	case "minBytes":
		if len(text) < r.n {
			return fmt.Sprintf("the text is %d bytes long, fewer than the %d it must have", len(text), r.n)
		}
	case "maxBytes":
		if len(text) > r.n {
			return fmt.Sprintf("the text is longer than %d bytes of UTF-8: shorten it", r.n)
		}
	case "pattern":
		if !r.re.MatchString(text) {
			return "the text does not match the regular expression " + strconv.Quote(r.s)
		}
	case "mustContain":
		if !strings.Contains(text, r.s) {
			return "the text does not contain " + strconv.Quote(r.s) + ", which it must"
		}
	case "mustNotContain":
		if strings.Contains(text, r.s) {
			return "the text contains " + strconv.Quote(r.s) + ", which it must not"
		}
	}
	return ""
}

func (t *text) value(s *Schema, answer string) (string, bool) { return quoteJSON(answer), true }

func (t *text) newInstructions() string {
	var b strings.Builder
	b.WriteString("Your final answer is plain text, not JSON. Reply with only the text itself")
	if len(t.rules) == 0 {
		b.WriteString(".")
		return b.String()
	}
	b.WriteString(", held to these rules:")
	for _, r := range t.rules {
		b.WriteString("\n- ")
		switch r.keyword {
		case "minLength":
			fmt.Fprintf(&b, "at least %d characters", r.n)
		case "maxLength":
			fmt.Fprintf(&b, "at most %d characters", r.n)
		case "minBytes":
			fmt.Fprintf(&b, "at least %d bytes of UTF-8", r.n)
		case "maxBytes":
			fmt.Fprintf(&b, "at most %d bytes of UTF-8", r.n)
		case "pattern":
			b.WriteString("it matches the regular expression " + strconv.Quote(r.s) + " (Go syntax)")
		case "mustContain":
			b.WriteString("it contains " + strconv.Quote(r.s) + ", exactly so")
		case "mustNotContain":
			b.WriteString("it does not contain " + strconv.Quote(r.s))
		}
	}
	return b.String()
}

func (t *text) stream(s *Schema) kindStream {
	return &textStream{s: s, t: t, limit: s.maxAnswerBytes()}
}

// textStream judges a text as it arrives: it fails the text at the byte
// that breaks its size bound, a MaxBytes or MaxLength rule, or completes
// a MustNotContain substring; Close judges the whole text.
type textStream struct {
	s     *Schema
	t     *text
	limit int
	buf   strings.Builder
	// runes counts the characters of buf[:counted], which ends where a
	// character ends, as the bytes up to seen told.
	runes, counted, seen int
	verdict              error
	closed               bool
}

func (ts *textStream) write(p string) (int, error) {
	if ts.closed {
		return 0, errStreamClosed
	}
	if ts.verdict != nil {
		return 0, ts.verdict
	}
	start := ts.buf.Len()
	if ts.buf.Cap() == 0 {
		ts.buf.Grow(min(max(2048, 2*len(p)), ts.limit+1)) // as an Incremental starts
	}
	ts.buf.WriteString(p[:min(len(p), ts.limit+1-start)])
	s := ts.buf.String()
	// at is the byte that dooms the text, and why; -1 while none does.
	at, why := -1, TextRule{}
	doom := func(i int, r TextRule) {
		if at < 0 || i < at {
			at, why = i, r
		}
	}
	if ts.t.maxBytes >= 0 && len(s) > ts.t.maxBytes {
		doom(ts.t.maxBytes, MaxBytes(ts.t.maxBytes))
	}
	if ts.t.maxRunes >= 0 && len(s) > ts.t.maxRunes { // no fewer bytes than characters: until then none is past it
		for ts.counted < len(s) {
			// The character beginning at counted is one more, whatever
			// the bytes that end it (an unfinished one is one once it
			// ends or breaks), once the bytes that told where the one
			// before it ended (seen) have come.
			if ts.runes+1 > ts.t.maxRunes {
				doom(max(ts.counted, ts.seen), MaxLength(ts.t.maxRunes))
				break
			}
			if s[ts.counted] < utf8.RuneSelf {
				ts.runes++
				ts.counted++
				continue
			}
			k := 1
			for ts.counted+k <= len(s) && !utf8.FullRuneInString(s[ts.counted:ts.counted+k]) {
				k++
			}
			if ts.counted+k > len(s) {
				break
			}
			_, size := utf8.DecodeRuneInString(s[ts.counted:])
			ts.runes++
			ts.seen = max(ts.seen, ts.counted+k-1)
			ts.counted += size
		}
	}
	for _, f := range ts.t.forbidden {
		// Only what arrived, and the bytes before it a match may begin in.
		from := max(0, start-len(f)+1)
		if i := strings.Index(s[from:], f); i >= 0 {
			doom(from+i+len(f)-1, MustNotContain(f))
		}
	}
	if len(s) > ts.limit && (at < 0 || at >= ts.limit) {
		ts.verdict = textTooLong(ts.limit)
		return ts.limit + 1 - start, ts.verdict
	}
	if at < 0 {
		return len(p), nil
	}
	ts.verdict = &CheckError{Stage: StageSchemaValidate, words: textWords,
		Issues: []Issue{{Keyword: why.keyword, Message: quote(why.broken(s[:at+1]))}}}
	return at + 1 - start, ts.verdict
}

func (ts *textStream) close() error {
	if !ts.closed {
		ts.closed = true
		if ts.verdict == nil {
			ts.verdict = ts.s.Check(ts.buf.String())
		}
	}
	return ts.verdict
}
