package events

import (
	"strings"
	"unicode"
)

// maxReason is the most runes normalizeReason returns.
const maxReason = 160

// fallbackReason stands in for an empty reason.
const fallbackReason = "retry scheduled"

// normalizeReason is the one normalization of a turn/retryScheduled
// reason; Append applies it (see TurnRetry): invalid UTF-8 becomes U+FFFD, control and bidi-control characters are
// removed, each run of white space becomes one space, the ends are
// trimmed, and the result is clipped on a rune boundary to at most 160 runes.
// An empty result becomes "retry scheduled", so the reason is never empty.
func normalizeReason(s string) string {
	if isNormalASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), 4*maxReason))
	n, space := 0, false
	for _, r := range s { // ranging over a string yields U+FFFD for invalid bytes
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			continue
		}
		if space && n > 0 {
			if n+1 >= maxReason { // a space would be the last rune: stop here
				break
			}
			b.WriteByte(' ')
			n++
		}
		space = false
		if n == maxReason {
			break
		}
		b.WriteRune(r)
		n++
	}
	if b.Len() == 0 {
		return fallbackReason
	}
	return b.String()
}

// isNormalASCII reports whether s is printable ASCII that normalizeReason
// would return unchanged: the common case, checked without allocating.
func isNormalASCII(s string) bool {
	if s == "" || len(s) > maxReason || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}
