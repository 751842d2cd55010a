package enforce

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// The repeat limit ([WithRepeatLimit]) stops a run whose answers fail the
// same way in a row. At schema-validate an answer's issues say what is
// wrong with it: their pointers and keywords are its failure. At
// json-parse every failure is one issue at the root with keyword "json",
// so the failure is told by its form instead: prose followed by a fenced
// answer is progress, the same fence twice is not.

// Forms of a json-parse failure (parseForm). An answer not judged at all
// (too long, or too many values to check) has none: its form is "".
const (
	formEmpty      = "empty"      // nothing but white space
	formFence      = "fence"      // a markdown fence where the value should begin
	formText       = "text"       // other text where the value should begin: prose, a tag, a quote
	formTrailing   = "trailing"   // a whole value with more after it
	formUnfinished = "unfinished" // the answer ends inside the value
	formSyntax     = "syntax:"    // a syntax error inside the value; its message, which names the construct, follows (syntaxClass)
)

// parseForm is the form of the parser's failure se on s. Positions are
// left out, so the same mistake made elsewhere in another answer is the
// same failure.
func parseForm(s string, se *jsonvalue.SyntaxError) string {
	start, off, msg := se.Start, se.Offset, se.Msg
	switch {
	case start >= len(s):
		return formEmpty
	case se.Trailing:
		return formTrailing
	case off == start && s[start] == '`':
		return formFence
	case off == start:
		return formText
	case off >= len(s):
		return formUnfinished
	}
	return formSyntax + syntaxClass(s, off, msg)
}

// syntaxClass is the parser's message msg on a syntax error of s at off
// without the text of the model's it quotes, which says where the
// mistake is made, not what it is: the name of a key given twice, the
// byte of a raw control character or of invalid UTF-8, the letter of an
// escape; a letter or digit where it does not belong is "a letter" or "a
// digit" (unquoted keys are one mistake whichever key comes first). A
// punctuation character stays: a single quote, a trailing comma's
// bracket and a comment's slash are different mistakes.
func syntaxClass(s string, off int, msg string) string {
	for _, prefix := range [...]string{"duplicate object key", "control character", "invalid UTF-8 byte", "invalid escape"} {
		if strings.HasPrefix(msg, prefix) {
			return prefix
		}
	}
	described := (&jsonvalue.Parser{S: s}).Describe(off)
	r, _ := utf8.DecodeRuneInString(s[off:])
	var class string
	switch {
	case r == utf8.RuneError:
		class = "invalid UTF-8"
	case unicode.IsLetter(r) || r == '_':
		class = "a letter"
	case unicode.IsDigit(r):
		class = "a digit"
	default:
		return msg
	}
	return strings.Replace(msg, described, class, 1)
}

// signature is what makes two failures the same for the repeat limit:
// the stage, the form of a json-parse failure, the set of pointer and
// keyword pairs, and whether the answer was truncated at the output
// limit: such an answer fails for the limit, and its correction
// asks for a shorter one, so it is never the same failure as an answer
// the model ended itself.
func (e *CheckError) signature(truncated bool) string {
	pairs := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		pairs[i] = is.Path + "\x01" + is.Keyword
	}
	sort.Strings(pairs)
	pairs = slices.Compact(pairs)
	sig := string(e.Stage) + "\x00" + e.form + "\x00" + strings.Join(pairs, "\x00")
	if truncated {
		sig = "truncated\x00" + sig
	}
	return sig
}
