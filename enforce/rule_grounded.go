package enforce

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Grounded returns a rule named name that fails an answer whose strings
// quote what none of sources holds: each span between quotation marks
// ("…", “…”, „…“, «…», 「…」) of two words or more must appear in one
// source, compared with runs of white space as one space, curly quotes
// and apostrophes as straight ones and case under simple folding. An
// ellipsis (… or ..., bracketed or not) in a span leaves out text: its
// parts must appear in that order. Its issue gives the span and the byte
// it begins at.
func Grounded(name string, sources ...string) Validator {
	norm := make([]string, len(sources))
	for i, src := range sources {
		norm[i] = normalQuote(src)
	}
	held := func(span string) bool {
		parts := elided(normalQuote(span))
	next:
		for _, src := range norm {
			at := 0
			for _, p := range parts {
				k := strings.Index(src[at:], p)
				if k < 0 {
					continue next
				}
				at += k + len(p)
			}
			return true
		}
		return false
	}
	v := stringRule(name, func(s string) []string {
		var found []string
		for _, q := range quotedSpans(s) {
			if !held(q.text) {
				found = append(found, groundedIssue(q))
			}
		}
		return found
	})
	v.prefix = func() prefixJudge {
		// A span is sure once its closing mark is read: the marks pair
		// from the start, so nothing after it changes the pairing. The
		// judge reads each byte once, where the pairing left off.
		var sc quoteScan
		return func(text string, _ int) (int, string) {
			for {
				q, ok := sc.next(text)
				if !ok {
					return -1, ""
				}
				if !held(q.text) {
					return q.end, groundedIssue(q)
				}
			}
		}
	}
	return v
}

func groundedIssue(q quoted) string {
	return fmt.Sprintf("quotes %q at byte %d, which no source holds", jsonvalue.Clip(q.text, maxIssueQuote), q.start)
}

// quoted is a span of s between quotation marks: its text, where its
// opening mark begins and where its closing mark ends.
type quoted struct {
	text       string
	start, end int
}

// quoteCloses gives the marks that close each opening mark.
var quoteCloses = map[rune]string{'"': "\"", '“': "”", '„': "“”", '«': "»", '「': "」"}

// quotedSpans returns the spans quoted in s of two words or more, in
// order. Marks pair from the start: inside a span, only its closing mark
// counts; a span never closed is no quotation.
func quotedSpans(s string) []quoted {
	var spans []quoted
	var sc quoteScan
	for {
		q, ok := sc.next(s)
		if !ok {
			return spans
		}
		spans = append(spans, q)
	}
}

// quoteScan pairs the quotation marks of a text that may grow: read is
// where it left off, and open where the span being read opened (-1: none).
type quoteScan struct {
	read, open, body int
	closes           string
	started          bool
}

// next returns the next span of two words or more closed in s (which
// begins with the text read before), and false when s holds no more.
func (sc *quoteScan) next(s string) (quoted, bool) {
	if !sc.started {
		sc.open, sc.started = -1, true
	}
	for sc.read < len(s) {
		r, size := utf8.DecodeRuneInString(s[sc.read:])
		if r == utf8.RuneError && !utf8.FullRuneInString(s[sc.read:]) {
			return quoted{}, false // a rune cut off at the end is not yet read
		}
		i := sc.read
		sc.read += size
		if sc.open < 0 {
			if c, ok := quoteCloses[r]; ok {
				sc.open, sc.closes, sc.body = i, c, i+size
			}
			continue
		}
		if strings.ContainsRune(sc.closes, r) {
			open := sc.open
			sc.open = -1
			if text := s[sc.body:i]; len(strings.Fields(text)) >= 2 {
				return quoted{text, open, i + size}, true
			}
		}
	}
	return quoted{}, false
}

// normalQuote is s as Grounded compares it: curly quotes and apostrophes
// straight, each run of white space one space, no space at either end,
// and each rune the least of its simple case folding orbit.
func normalQuote(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.TrimSpace(s) {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case strings.ContainsRune("“”„«»「」", r):
			r = '"'
		case strings.ContainsRune("‘’‚‛′", r):
			r = '\''
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteString(string(foldRunes(string(r))))
	}
	return b.String()
}

// elided returns the parts of a normalised span that an ellipsis (…,
// ... or either in brackets) leaves between, none empty.
func elided(span string) []string {
	for _, e := range []string{"[...]", "[…]", "(...)", "(…)", "..."} {
		span = strings.ReplaceAll(span, e, "…")
	}
	var parts []string
	for _, p := range strings.Split(span, "…") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}
