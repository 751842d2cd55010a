package jsonvalue

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Forms of a syntax error ([SyntaxError.Form]), which tell the kind of
// mistake apart from where it is made.
const (
	formEmpty      = "empty"      // nothing but white space
	formFence      = "fence"      // a markdown fence where the value should begin
	formText       = "text"       // other text where the value should begin: prose, a tag, a quote
	formTrailing   = "trailing"   // a whole value with more after it
	formUnfinished = "unfinished" // the answer ends inside the value
	formSyntax     = "syntax:"    // a syntax error inside the value; its message, which names the construct, follows (syntaxClass)
)

// Form is the form of e, the parser's error on s: where the value
// should begin, nothing (empty), a fence or other text; a whole value
// with more after it (trailing); an end inside the value (unfinished);
// or a syntax error inside it, "syntax:" and its class. Positions are
// left out, so the same mistake made elsewhere in another text has the
// same form.
func (e *SyntaxError) Form(s string) string {
	start, off, msg := e.Start, e.Offset, e.Msg
	switch {
	case start >= len(s):
		return formEmpty
	case e.Trailing:
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
	described := (&Parser{S: s}).Describe(off)
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
