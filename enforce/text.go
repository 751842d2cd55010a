package enforce

import (
	"errors"
	"fmt"

	"github.com/enforcer-go/enforcer/enforce/internal/corrective"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/enforcer-go/enforcer/enforce/internal/textrule"
)

// TextRule is one rule a [Text] answer is held to. Make one with
// [MinLength], [MaxLength], [MinBytes], [MaxBytes], [Pattern],
// [MustContain] or [MustNotContain]; the zero TextRule is invalid.
type TextRule struct {
	rule textrule.Rule
}

// MinLength holds the text to at least n characters (Unicode code
// points, as JSON Schema's minLength counts them; an invalid UTF-8 byte
// counts one).
func MinLength(n int) TextRule { return TextRule{textrule.Rule{Keyword: "minLength", N: n}} }

// MaxLength holds the text to at most n characters (Unicode code
// points). A streamed answer fails at the first byte of its character
// n+1.
func MaxLength(n int) TextRule { return TextRule{textrule.Rule{Keyword: "maxLength", N: n}} }

// MinBytes holds the text to at least n bytes of UTF-8.
func MinBytes(n int) TextRule { return TextRule{textrule.Rule{Keyword: "minBytes", N: n}} }

// MaxBytes holds the text to at most n bytes of UTF-8. A streamed answer
// fails at byte n+1.
func MaxBytes(n int) TextRule { return TextRule{textrule.Rule{Keyword: "maxBytes", N: n}} }

// Pattern holds the text to a Go regular expression (package regexp's
// RE2 syntax, not ECMA 262), which must match somewhere in it, as JSON
// Schema's pattern must: anchor it with ^ and $ (and (?s) to let . match
// a newline) to match the whole text.
func Pattern(expr string) TextRule { return TextRule{textrule.Rule{Keyword: "pattern", S: expr}} }

// MustContain holds the text to containing s, byte for byte (case
// matters).
func MustContain(s string) TextRule { return TextRule{textrule.Rule{Keyword: "mustContain", S: s}} }

// MustNotContain holds the text to not containing s, byte for byte. A
// streamed answer fails at the byte that completes s, wherever the
// pieces it arrived in split it.
func MustNotContain(s string) TextRule {
	return TextRule{textrule.Rule{Keyword: "mustNotContain", S: s}}
}

// text is the reading of a Text: its rules compiled (see package
// textrule).
type text struct {
	set   *textrule.Set
	instr string
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
	rs := make([]textrule.Rule, len(rules))
	for i, r := range rules {
		rs[i] = r.rule
	}
	set, err := textrule.Compile(rs)
	if err != nil {
		var te *textrule.Error
		errors.As(err, &te)
		return nil, &SchemaError{Keyword: te.Keyword, Reason: te.Reason}
	}
	s, err := CompileSchema([]byte(`{"type":"string"}`))
	if err != nil {
		return nil, err
	}
	s.reading = &text{set: set, instr: set.Instructions()}
	return s, nil
}

func (t *text) kind() Kind { return KindText }

var textWords = &corrective.Words{
	Parse:      "Stage: schema-validate — the text breaks the rules it is held to.\n",
	Validate:   "Stage: schema-validate — the text breaks the rules it is held to.\n",
	Validators: "Stage: schema-validate — the text keeps its rules, but checks of its content failed.\n",
	Reply:      "Reply with only the corrected text, nothing else.",
}

func (t *text) words() *corrective.Words { return textWords }

func (t *text) instructions() string { return t.instr }

func (t *text) judge(s *Schema, answer string) (string, Repairs, error) {
	if limit := s.maxAnswerBytes(); len(answer) > limit {
		return answer, 0, textTooLong(limit)
	}
	broken := t.set.Broken(answer)
	if len(broken) == 0 {
		return answer, 0, nil
	}
	issues := make([]Issue, len(broken))
	for i, b := range broken {
		issues[i] = Issue{Keyword: b.Keyword, Message: quote(b.Message)}
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

func (t *text) value(s *Schema, answer string) (string, bool) { return jsonvalue.Quote(answer), true }

// stream judges a text as it arrives (see textrule.Stream).
func (t *text) stream(s *Schema) *kindStream {
	ts := t.set.Stream(s.maxAnswerBytes())
	return &kindStream{s: s, text: ts.Text, read: func(p string) (int, error) {
		n, broken, tooLong := ts.WriteString(p)
		switch {
		case tooLong:
			return n, textTooLong(s.maxAnswerBytes())
		case broken != nil:
			return n, &CheckError{Stage: StageSchemaValidate, words: textWords,
				Issues: []Issue{{Keyword: broken.Keyword, Message: quote(broken.Message)}}}
		}
		return n, nil
	}}
}
