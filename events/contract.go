package events

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Checks shared by the events' producer contracts.

// maxText bounds each free-text field of an event (an error message, a
// reason), so every record fits a log line and an SSE frame.
const maxText = 16 << 10

// text makes a free-text field safe to record and to show: valid UTF-8
// (invalid bytes become U+FFFD, as the JSON on the wire would show them
// anyway, so live and replayed frames agree), without control characters
// other than newline and tab (an ESC from a log would reach a terminal
// as an escape sequence) nor bidi controls (see unsafeInText), and at
// most maxText bytes, clipped on a rune boundary. Append and every read apply
// it, so a record read back holds what a live subscriber saw.
func text(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.ContainsFunc(s, unsafeInText) {
		s = strings.Map(func(r rune) rune {
			if unsafeInText(r) {
				return -1
			}
			return r
		}, s)
	}
	if len(s) <= maxText {
		return s
	}
	n := maxText - len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// unsafeInText reports the runes text removes: controls (C0, C1) other
// than newline and tab, and bidi controls (U+202E and the like), which
// make text display as other text — the set normalizeReason removes,
// less the white space a multi-line message keeps.
func unsafeInText(r rune) bool {
	return r != '\n' && r != '\t' && unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
}

// maxID bounds session, turn and command IDs.
const maxID = 256

// checkIDs refuses IDs that could not travel intact: empty, over maxID
// bytes, invalid UTF-8, or holding control characters (which would break
// an SSE id: line or a Last-Event-ID header), format characters or line
// separators (see unsafeInID). CommandID may be empty.
func checkIDs(kind string, turnID string, commandID ...string) error {
	if turnID == "" {
		return invalid("%s: turnId is empty", kind)
	}
	for _, id := range append([]string{turnID}, commandID...) {
		if id == "" {
			continue
		}
		if err := checkID(id); err != nil {
			return invalid("%s: id %.40q %s", kind, id, err)
		}
	}
	return nil
}

func checkID(id string) error {
	switch {
	case len(id) > maxID:
		return fmt.Errorf("is longer than %d bytes", maxID)
	case !utf8.ValidString(id):
		return errors.New("is not valid UTF-8")
	case strings.ContainsFunc(id, unsafeInID):
		return errors.New("holds control, format or line-separator characters")
	}
	return nil
}

// unsafeInID reports the runes an ID must not hold: controls (C0, C1),
// format characters (category Cf: bidi overrides and isolates such as
// U+202E and U+2066, zero-width characters, the BOM), which would make an
// ID display as another, and the line and paragraph separators U+2028 and
// U+2029, which some readers take as line ends.
func unsafeInID(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// checkAttempts is the contract of the retry events.
func checkAttempts(name, turnID string, attempt, next, max int, delay time.Duration) error {
	switch {
	case turnID == "":
		return invalid("%s: turnId is empty", name)
	case !(1 <= attempt && attempt < next && next <= max):
		return invalid("%s: want 1 <= attempt < nextAttempt <= maxAttempts, got %d, %d, %d", name, attempt, next, max)
	case delay < 0:
		return invalid("%s: retry delay %v is negative", name, delay)
	}
	return nil
}

func isHex8(s string) bool {
	if len(s) != 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}
