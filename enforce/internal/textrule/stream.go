package textrule

import (
	"strings"
	"unicode/utf8"
)

// A Stream follows a text as it arrives: it finds the byte that breaks
// its size bound, a MaxBytes or MaxLength rule, or completes a
// MustNotContain substring. Make one with [Set.Stream].
type Stream struct {
	t     *Set
	limit int
	buf   strings.Builder
	// runes counts the characters of buf[:counted], which ends where a
	// character ends, as the bytes up to seen told.
	runes, counted, seen int
}

// Stream returns a Stream of a text judged up to limit bytes.
func (t *Set) Stream(limit int) *Stream { return &Stream{t: t, limit: limit} }

// WriteString reads the next bytes of the text and returns how many of p
// were read: all of them while no rule is broken, else up to and
// including the byte that broke one, with the rule it broke, or, past
// the size bound, tooLong. The caller writes no more once one is.
func (ts *Stream) WriteString(p string) (n int, broken *Broken, tooLong bool) {
	start := ts.buf.Len()
	if ts.buf.Cap() == 0 {
		ts.buf.Grow(min(max(2048, 2*len(p)), ts.limit+1)) // as an Incremental starts
	}
	ts.buf.WriteString(p[:min(len(p), ts.limit+1-start)])
	s := ts.buf.String()
	// at is the byte that dooms the text, and why; -1 while none does.
	at, why := -1, Rule{}
	doom := func(i int, r Rule) {
		if at < 0 || i < at {
			at, why = i, r
		}
	}
	t := ts.t
	if t.maxBytes >= 0 && len(s) > t.maxBytes {
		doom(t.maxBytes, Rule{Keyword: "maxBytes", N: t.maxBytes})
	}
	if t.maxRunes >= 0 && len(s) > t.maxRunes { // no fewer bytes than characters: until then none is past it
		for ts.counted < len(s) {
			// The character beginning at counted is one more, whatever
			// the bytes that end it (an unfinished one is one once it
			// ends or breaks), once the bytes that told where the one
			// before it ended (seen) have come.
			if ts.runes+1 > t.maxRunes {
				doom(max(ts.counted, ts.seen), Rule{Keyword: "maxLength", N: t.maxRunes})
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
	for _, f := range t.forbidden {
		// Only what arrived, and the bytes before it a match may begin in.
		from := max(0, start-len(f)+1)
		if i := strings.Index(s[from:], f); i >= 0 {
			doom(from+i+len(f)-1, Rule{Keyword: "mustNotContain", S: f})
		}
	}
	if len(s) > ts.limit && (at < 0 || at >= ts.limit) {
		return ts.limit + 1 - start, nil, true
	}
	if at < 0 {
		return len(p), nil, false
	}
	return at + 1 - start, &Broken{why.Keyword, why.broken(s[:at+1])}, false
}

// Text is the bytes read, up to one past the size bound.
func (ts *Stream) Text() string { return ts.buf.String() }
